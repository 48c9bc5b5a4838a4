"""Interface ports (AF_PACKET receive ring, batched sends) on real veths: packets come
out as they went in, VLAN tags included, in order across many turns of the ring, and a
lone packet is not held back waiting for a batch."""

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from p4aqm.topology.netlab import TestNetwork
from tests.programs import compile_program

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None, reason="needs root and iproute2"
)

# Port 1 to port 2, no parsing: the bytes out are the bytes in.
WIRE_P4 = """
#include <core.p4>
#include <v1model.p4>
struct h_t { }
struct m_t { }
parser P(packet_in p, out h_t h, inout m_t m, inout standard_metadata_t s) {
    state start { transition accept; }
}
control V(inout h_t h, inout m_t m) { apply { } }
control I(inout h_t h, inout m_t m, inout standard_metadata_t s) {
    apply { s.egress_spec = 2; }
}
control E(inout h_t h, inout m_t m, inout standard_metadata_t s) { apply { } }
control C(inout h_t h, inout m_t m) { apply { } }
control D(packet_out p, in h_t h) { apply { } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""

# Runs in the network's namespace: the switch on s1/s2; the frames of a JSON file (see
# `frames_file`) sent into h1, lone ones each awaited, bursts sent whole; what comes
# out of h2 is printed as JSON. PACKET_AUXDATA returns the VLAN tag the kernel takes out
# of received data.
SCRIPT = r"""
import json, socket, struct, sys
from p4aqm.switch._dataplane import Dataplane

SOL_PACKET, PACKET_AUXDATA, TP_STATUS_VLAN_VALID = 263, 8, 1 << 4
SO_RCVBUFFORCE = 33

dp = Dataplane()
dp.add_interface(1, "s1")
dp.add_interface(2, "s2")
dp.load_pipeline(open(sys.argv[1], "rb").read())
dp.start()

rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
rx.bind(("h2", 0))
rx.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
# A whole burst must fit, or this reader, not the switch, would lose packets.
rx.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20)
rx.settimeout(30)  # only a lost packet takes this long
tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
tx.bind(("h1", 0))


def receive():
    data, anc, _, _ = rx.recvmsg(65536, 1024)
    for level, kind, aux in anc:
        if level == SOL_PACKET and kind == PACKET_AUXDATA:
            status, _, _, _, _, tci, tpid = struct.unpack("IIIHHHH", aux[:20])
            if status & TP_STATUS_VLAN_VALID:
                data = data[:12] + struct.pack("!HH", tpid or 0x8100, tci) + data[12:]
    return data.hex()


frames = json.load(open(sys.argv[2]))
out = {"lone": [], "bursts": []}
for f in frames["lone"]:
    tx.send(bytes.fromhex(f))
    out["lone"].append(receive())
for burst in frames["bursts"]:
    for f in burst:
        tx.send(bytes.fromhex(f))
    out["bursts"].append([receive() for _ in burst])
dp.stop()
print(json.dumps(out))
"""

ETHERTYPE_LOCAL = b"\x88\xb5"


def frame(n: int, size: int, vlan: int | None = None) -> bytes:
    """A frame numbered n, of `size` bytes, optionally with an 802.1Q tag."""
    head = bytes.fromhex("020000000002020000000001")
    if vlan is not None:
        head += (0x8100).to_bytes(2, "big") + vlan.to_bytes(2, "big")
    head += ETHERTYPE_LOCAL + n.to_bytes(4, "big")
    return head + bytes(size - len(head))


LONE = [frame(0, 64), frame(1, 64, vlan=0x2005), frame(2, 1514)]
# 100 bursts of 200: more than two turns of the 8,192-frame receive ring, in bursts it holds.
BURSTS = [[frame(n, 64 + n % 700) for n in range(b * 200, (b + 1) * 200)] for b in range(100)]


@pytest.fixture(scope="module")
def through_switch(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("wire")
    source = tmp / "wire.p4"
    source.write_text(WIRE_P4)
    program = compile_program(source, tmp)
    frames_file = tmp / "frames.json"
    frames_file.write_text(
        json.dumps(
            {"lone": [f.hex() for f in LONE], "bursts": [[f.hex() for f in b] for b in BURSTS]}
        )
    )
    with TestNetwork(ports=2) as net:
        args = [sys.executable, "-c", SCRIPT, str(program.json_path), str(frames_file)]
        result = net.run(args, timeout_s=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_lone_packet_leaves_without_waiting_for_a_batch(through_switch: dict) -> None:
    assert through_switch["lone"][0] == LONE[0].hex()


def test_vlan_tag_taken_out_by_the_kernel_is_put_back(through_switch: dict) -> None:
    assert through_switch["lone"][1] == LONE[1].hex()


def test_full_size_frame_passes_whole(through_switch: dict) -> None:
    assert through_switch["lone"][2] == LONE[2].hex()


def test_packets_keep_their_order_over_many_turns_of_the_ring(through_switch: dict) -> None:
    assert through_switch["bursts"] == [[f.hex() for f in b] for b in BURSTS]


# The switch's sockets exist from add_interface; with no event loop yet, the receive
# ring fills and the kernel drops the rest, which port_stats must show as rx_drops.
RING_OVERFLOW = r"""
import json, socket, sys, time
from p4aqm.switch._dataplane import Dataplane

dp = Dataplane()
dp.add_interface(1, "s1")
dp.add_interface(2, "s2")
dp.load_pipeline(open(sys.argv[1], "rb").read())
tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
tx.bind(("h1", 0))
frame = bytes.fromhex(sys.argv[2])
for _ in range(int(sys.argv[3])):
    tx.send(frame)
before = dp.port_stats(1)
dp.start()
deadline = time.monotonic() + 60  # only a hang takes this long
while dp.port_stats(1)["rx_packets"] < 8192 and time.monotonic() < deadline:
    time.sleep(0.05)
after = dp.port_stats(1)
dp.stop()
print(json.dumps({"before": before, "after": after}))
"""

RING_FRAMES = 8192


def test_a_full_receive_ring_drops_and_counts(tmp_path: Path) -> None:
    source = tmp_path / "wire.p4"
    source.write_text(WIRE_P4)
    program = compile_program(source, tmp_path)
    sent = RING_FRAMES + 808
    with TestNetwork(ports=2) as net:
        args = [sys.executable, "-c", RING_OVERFLOW, str(program.json_path)]
        result = net.run([*args, frame(0, 64).hex(), str(sent)], timeout_s=120)
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    assert stats["before"]["rx_packets"] == 0
    assert stats["after"]["rx_packets"] == RING_FRAMES
    assert stats["after"]["rx_drops"] == sent - RING_FRAMES

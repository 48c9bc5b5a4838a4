"""The programs' occupancy counts stay exact under real traffic, in real time, on veths.

A million packets or more, in bursts, go through red.p4, cbt.p4 and fred.p4 on our switch
with the output queue drained at a fixed rate; ingress and egress both touch the counts
(both on the switch's event loop for interface ports), while the test reads them at one
instant with the traffic manager's depth. Each count changes inside a single action,
which the switch runs with the action's register arrays locked, as BMv2 does
(include/occupancy.p4); tests/dataplane/test_action_atomicity.py shows the updates lost
without that lock, with ingress on inject's thread and egress on the event loop.

Checked:
  - while the packets flow, the occupancy the program counts for the port never differs
    from the traffic manager's depth by more than the packets in flight: read at one
    instant (queue_snapshot), it is at least the depth and at most the depth plus two,
    one packet admitted by ingress and not yet queued and one taken from the queue whose
    egress has not yet run (egress runs one packet at a time);
  - once the queue has drained, every occupancy register is exactly 0: the port's, each
    CBT class's, each FRED flow's and FRED's count of active flows.
"""

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import Ether

from p4aqm.controller.disciplines import CbtConfig, FredConfig, RedConfig
from p4aqm.controller.disciplines.cbt import CbtClassRule
from p4aqm.topology.netlab import TestNetwork
from programs import P4SRC, compile_program

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None, reason="needs root and iproute2"
)

TESTS = Path(__file__).resolve().parent.parent
PACKETS = 1_000_000
BURST = 400
DRAIN_PPS = 60_000
IN_FLIGHT = 2
DSCP_EF = 46
# Action-level register locking (Dataplane(atomic_actions=...)).
ATOMIC_ACTIONS = True

# Runs in the network's namespace: the switch on s1 (in) and s2 (out); the AQM entries
# from the controller's discipline module; bursts of frames sent into h1 until ingress
# has taken PACKETS of them; queue snapshots taken all along. Prints JSON.
SCRIPT = r"""
import json, socket, sys, threading, time
from pathlib import Path

sys.path[:0] = [sys.argv[1], str(Path(sys.argv[1]) / "aqm")]
from aqm_switch import IN_PORT, OUT_PORT, QUEUE_HEADROOM_PKTS, ROUTE, install_entries, u
from pydantic import TypeAdapter

from p4aqm.controller.disciplines import AqmConfig
from p4aqm.switch._dataplane import Dataplane
from programs import CompiledProgram

spec = json.loads(Path(sys.argv[2]).read_text())
program = CompiledProgram(Path(spec["source"]), Path(spec["json"]), Path(spec["p4info"]))
aqm = TypeAdapter(AqmConfig).validate_python(spec["aqm"])
frames = [bytes.fromhex(f) for f in spec["frames"]]

dp = Dataplane(atomic_actions=spec["atomic_actions"])
dp.add_interface(IN_PORT, "s1")
dp.add_interface(OUT_PORT, "s2")
dp.load_pipeline(program.json_path.read_bytes())
dp.table_add("MyIngress.ipv4_lpm", [ROUTE], "MyIngress.ipv4_forward",
             [bytes(6), bytes(6), u(OUT_PORT, 2)], 0)
install_entries(dp, program, aqm.entries(OUT_PORT))
dp.set_queue(OUT_PORT, rate_pps=spec["drain_pps"],
             depth_pkts=aqm.limit_pkts + QUEUE_HEADROOM_PKTS)
dp.start()

port_cell = [tuple(spec["port_cell"])]
differences = {}
snapshots = 0
sending = True


def watch():
    global snapshots
    while sending:
        s = dp.queue_snapshot(OUT_PORT, registers=port_cell)
        difference = s["registers"][0] - s["qdepth_pkts"]
        differences[difference] = differences.get(difference, 0) + 1
        snapshots += 1
        time.sleep(0.0002)


watcher = threading.Thread(target=watch)
watcher.start()
tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
tx.bind(("h1", 0))
tx.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
started = time.monotonic()
n = 0
while dp.port_stats(IN_PORT)["rx_packets"] < spec["packets"]:
    for _ in range(spec["burst"]):
        tx.send(frames[n % len(frames)])
        n += 1
    # A pause of about one burst's drain time: the queue fills, then drains.
    time.sleep(spec["burst"] / spec["drain_pps"] / 2)
sending = False
watcher.join()
# Everything admitted drains in at most limit / rate seconds.
deadline = time.monotonic() + 30
while dp.queue_snapshot(OUT_PORT)["qdepth_pkts"] and time.monotonic() < deadline:
    time.sleep(0.05)
time.sleep(0.2)
counts = {f"{name}[{index}]": int.from_bytes(dp.register_read(name, index), "big")
          for name, index in spec["counts"]}
out = {
    "sent": n,
    "seconds": time.monotonic() - started,
    "in": dp.port_stats(IN_PORT),
    "out": dp.port_stats(OUT_PORT),
    "snapshots": snapshots,
    "differences": differences,
    "counts": counts,
}
dp.stop()
print(json.dumps(out))
"""


def udp(src: str, sport: int, tos: int = 0) -> bytes:
    ip = IP(src=src, dst="10.0.2.1", tos=tos)
    return bytes(Ether() / ip / UDP(sport=sport, dport=5001) / (b"x" * 18))


def tcp(sport: int, tos: int = 0) -> bytes:
    ip = IP(src="10.0.1.1", dst="10.0.2.1", tos=tos)
    return bytes(Ether() / ip / TCP(sport=sport, dport=80) / (b"x" * 18))


RED = {"min_th": 20, "max_th": 60, "max_p": 0.1, "w_q": 1 / 16, "limit_pkts": 120}
OUT_PORT = 2
FRED_SLOTS = 16


def red() -> dict:
    aqm = RedConfig(discipline="red", **RED, gentle=True, ecn=True)
    # ECT(0) and not-ECT: some arrivals are marked and admitted, others dropped.
    frames = [udp("10.0.1.1", 5000 + i % 4, tos=2 * (i % 2)) for i in range(8)]
    return {"aqm": aqm, "frames": frames, "port_cell": OUT_PORT, "cells": [OUT_PORT]}


def cbt() -> dict:
    marked = CbtClassRule(traffic_class="marked", protocol=17, dscp=DSCP_EF)
    aqm = CbtConfig(discipline="cbt", **RED, marked_th=30, unmarked_th=10, classes=[marked])
    frames = [tcp(4000 + i) for i in range(4)]
    frames += [udp("10.0.1.2", 6000, tos=DSCP_EF << 2), udp("10.0.1.3", 7000)]
    total = OUT_PORT * 4 + 3
    return {"aqm": aqm, "frames": frames, "port_cell": total, "cells": range(total - 3, total + 1)}


def fred() -> dict:
    aqm = FredConfig(discipline="fred", **RED, flow_slots=FRED_SLOTS, slot_base=64)
    # One aggressive flow among several: flow drops, strikes and shares all happen.
    frames = [udp("10.0.1.1", 9000)] * 6 + [udp(f"10.0.1.{i}", 5000 + i) for i in range(2, 12)]
    counts = [("fred_nactive", OUT_PORT)]
    counts += [("fred_flow_occupancy", slot) for slot in range(64, 64 + FRED_SLOTS)]
    return {
        "aqm": aqm,
        "frames": frames,
        "port_cell": OUT_PORT,
        "cells": [OUT_PORT],
        "counts": counts,
    }


@pytest.mark.parametrize("case", [red, cbt, fred], ids=lambda f: f.__name__)
def test_counts_stay_exact_under_concurrent_ingress_and_egress(
    case: object, tmp_path: Path
) -> None:
    setup = case()  # type: ignore[operator]
    program = compile_program(P4SRC / f"{case.__name__}.p4", tmp_path)  # type: ignore[attr-defined]
    cells = [("aqm_occupancy", cell) for cell in setup["cells"]]
    spec = {
        "source": str(program.source),
        "json": str(program.json_path),
        "p4info": str(program.p4info_path),
        "aqm": setup["aqm"].model_dump(mode="json"),
        "frames": [f.hex() for f in setup["frames"]],
        "port_cell": ["aqm_occupancy", setup["port_cell"]],
        "counts": cells + setup.get("counts", []),
        "packets": PACKETS,
        "burst": BURST,
        "drain_pps": DRAIN_PPS,
        "atomic_actions": ATOMIC_ACTIONS,
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec))
    with TestNetwork(ports=2) as net:
        result = net.run([sys.executable, "-c", SCRIPT, str(TESTS), str(spec_file)], 300)
    assert result.returncode == 0, result.stderr
    run = json.loads(result.stdout)

    # The run did what it must for the check to mean anything: a million packets through
    # ingress, a queue that built up and drained many times, none lost in the traffic
    # manager (which would take packets the program counted).
    assert run["in"]["rx_packets"] >= PACKETS
    assert run["out"]["tm_drops"] == 0
    assert run["out"]["tx_packets"] > PACKETS // 10
    assert run["snapshots"] > 1000
    differences = {int(d): n for d, n in run["differences"].items()}
    assert min(differences) >= 0 and max(differences) <= IN_FLIGHT, differences
    assert run["counts"] == dict.fromkeys(run["counts"], 0), run["counts"]

"""Link emulation on real veths: two hosts in their own namespaces talk UDP
through the switch (l3_forward) in a third; a 40 ms one-way delay on the
switch's port 1 makes the round trip 80 ms (the request crosses port 1's
link inwards, the reply outwards). A line rate on port
2 spaces a burst on the wire, through the event loop."""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "l3_forward.json"

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None or shutil.which("ethtool") is None,
    reason="needs root, iproute2 and ethtool",
)

SWITCH = r"""
import sys, time
from p4aqm.switch._dataplane import Dataplane

dp = Dataplane()
dp.add_interface(1, "s1")
dp.add_interface(2, "s2")
dp.load_pipeline(open(sys.argv[1], "rb").read())
for net, mac, port in ((bytes([10, 0, 1, 0]), "000000000011", 1),
                       (bytes([10, 0, 2, 0]), "000000000022", 2)):
    dp.table_add("MyIngress.ipv4_lpm", [("lpm", net, 24)], "MyIngress.ipv4_forward",
                 [bytes.fromhex(mac), bytes.fromhex("0000000000ff"), bytes([0, port])], 0)
dp.set_link(1, delay_us=int(sys.argv[2]))
if int(sys.argv[3]):
    dp.set_link(2, rate_bps=int(sys.argv[3]))
dp.start()
print("ready", flush=True)
sys.stdin.read()  # runs until the test closes stdin
dp.stop()
"""

ECHO = r"""
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.0.2.2", 7000))
print("ready", flush=True)
while True:
    data, addr = s.recvfrom(2048)
    s.sendto(data, addr)
"""

CLIENT = r"""
import json, socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
rtts = []
for i in range(10):
    t = time.monotonic()
    s.sendto(str(i).encode(), ("10.0.2.2", 7000))
    s.recvfrom(2048)
    rtts.append((time.monotonic() - t) * 1000)
    time.sleep(0.05)
print(json.dumps(rtts))
"""

# A burst of 1000-byte datagrams; prints the times (ms) their echoes came back.
BURST = r"""
import json, socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
for i in range(10):
    s.sendto(bytes(1000), ("10.0.2.2", 7000))
times = []
for i in range(10):
    s.recvfrom(2048)
    times.append(time.monotonic() * 1000)
print(json.dumps(times))
"""


def run(*args: str) -> None:
    subprocess.run(list(args), check=True, capture_output=True)


def in_ns(ns: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", ns, *args]


def host(ns: str, dev: str, addr: str, mac: str, gw: str) -> None:
    run("ip", "-n", ns, "link", "set", dev, "address", mac)
    run("ip", "-n", ns, "addr", "add", addr, "dev", dev)
    for d in ("lo", dev):
        run("ip", "-n", ns, "link", "set", d, "up")
    run("ip", "-n", ns, "route", "add", "default", "via", gw, "dev", dev)
    # veths leave the UDP checksum to offload, and the switch sends what it
    # got through AF_PACKET as is: the hosts must compute it themselves.
    run(*in_ns(ns, "ethtool", "-K", dev, "tx", "off"))
    # The switch answers no ARP: the gateway's MAC is static.
    run("ip", "-n", ns, "neigh", "add", gw, "lladdr", "00:00:00:00:00:ff", "dev", dev)


@contextlib.contextmanager
def topology(delay_us: int, rate_bps: int) -> Iterator[str]:
    """h1 -- (port 1) switch (port 2) -- h2 with an echo server on h2;
    yields h1's namespace."""
    tag = f"p4dp-link-{os.getpid()}"
    sw, h1, h2 = f"{tag}-sw", f"{tag}-h1", f"{tag}-h2"
    procs: list[subprocess.Popen] = []
    try:
        for ns in (sw, h1, h2):
            run("ip", "netns", "add", ns)
        for s_dev, h_dev, h_ns in (("s1", "h1", h1), ("s2", "h2", h2)):
            peer = ("peer", "name", h_dev, "netns", h_ns)
            run("ip", "-n", sw, "link", "add", s_dev, "type", "veth", *peer)
            run("ip", "-n", sw, "link", "set", s_dev, "up")
        for ns in (sw, h1, h2):
            run(*in_ns(ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"))
        host(h1, "h1", "10.0.1.1/24", "00:00:00:00:00:11", "10.0.1.254")
        host(h2, "h2", "10.0.2.2/24", "00:00:00:00:00:22", "10.0.2.254")
        switch = in_ns(sw, sys.executable, "-c", SWITCH, str(FIXTURE), str(delay_us), str(rate_bps))
        for cmd in (switch, in_ns(h2, sys.executable, "-c", ECHO)):
            p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            procs.append(p)
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        time.sleep(0.2)
        yield h1
    finally:
        for p in procs:
            p.kill()
            p.wait()
        for ns in (sw, h1, h2):
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


def client(ns: str, script: str) -> list[float]:
    r = subprocess.run(
        in_ns(ns, sys.executable, "-c", script), capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


# What a loaded machine may add to a round trip: far less than a second pass through
# the 40 ms delay line, or a wait for a switch thread's 100 ms idle sleep.
SLACK_MS = 40


@pytest.mark.parametrize("delay_us", [0, 40_000])
def test_udp_round_trip_through_the_link_delay(delay_us: int) -> None:
    with topology(delay_us, 0) as h1:
        rtts = client(h1, CLIENT)
    expected_ms = 2 * delay_us / 1000
    assert min(rtts) >= expected_ms, rtts
    median = sorted(rtts)[len(rtts) // 2]
    assert median < expected_ms + SLACK_MS, rtts


def test_interfaces_honour_the_line_rate() -> None:
    # 1042-byte frames at 1 Mbit/s leave port 2 every 8.336 ms.
    gap_ms = 8.336
    with topology(0, 1_000_000) as h1:
        times = client(h1, BURST)
    # Wide bounds, as the receiver's scheduling shifts the first and last times on a
    # loaded machine; they still tell the rate from none (gaps of microseconds) and
    # from the rate applied twice.
    mean_gap = (times[-1] - times[0]) / (len(times) - 1)
    assert 0.5 * gap_ms <= mean_gap <= 1.5 * gap_ms, times

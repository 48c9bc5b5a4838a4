"""The dataplane forwards between real interfaces (veths in a private
network namespace), through AF_PACKET ports and the event loop."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "l3_forward.json"

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None, reason="needs root and iproute2"
)

# Runs inside the namespace: switch between veth0 (port 1) and veth1 (port 2);
# scapy sends on veth0's peer and sniffs on veth1's peer.
SCRIPT = r"""
import json, sys, threading, time
from scapy.all import AsyncSniffer, Ether, IP, UDP, sendp
from p4aqm.switch._dataplane import Dataplane

dp = Dataplane()
dp.add_interface(1, "veth0")
dp.add_interface(2, "veth1")
dp.load_pipeline(open(sys.argv[1], "rb").read())
dp.table_add("MyIngress.ipv4_lpm", [("lpm", bytes([10, 0, 2, 0]), 24)], "MyIngress.ipv4_forward",
             [bytes.fromhex("000000000202"), bytes.fromhex("000000000101"), b"\x02"], 0)
dp.start()
try:
    listening, arrived = threading.Event(), threading.Event()
    sniffer = AsyncSniffer(iface="veth1p", lfilter=lambda p: IP in p and p[IP].dst == "10.0.2.2",
                           prn=lambda p: arrived.set(), started_callback=listening.set)
    sniffer.start()
    assert listening.wait(30), "the sniffer did not start"
    pkt = Ether(src="00:00:00:00:00:01", dst="00:00:00:00:01:00") / IP(
        src="10.0.1.1", dst="10.0.2.2", ttl=64) / UDP(sport=1, dport=2) / b"hello"
    sendp(pkt, iface="veth0p", verbose=False)
    arrived.wait(30)  # only a hang takes this long
    time.sleep(0.2)  # room for a duplicate, which must not come
    got = sniffer.stop()
finally:
    dp.stop()


def checksum_ok(p):
    hdr = p[IP].copy()
    del hdr.chksum
    return IP(bytes(hdr)).chksum == p[IP].chksum


print(json.dumps([{"ttl": p[IP].ttl, "src": p.src, "dst": p.dst, "good": checksum_ok(p)}
                  for p in got]))
"""


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def test_forward_between_veths() -> None:
    ns = f"p4dp-test-{os.getpid()}"
    ip("netns", "add", ns)
    try:
        for a, b in (("veth0", "veth0p"), ("veth1", "veth1p")):
            ip("-n", ns, "link", "add", a, "type", "veth", "peer", "name", b)
        subprocess.run(
            ["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
            check=True,
        )
        for dev in ("lo", "veth0", "veth0p", "veth1", "veth1p"):
            ip("-n", ns, "link", "set", dev, "up")
        r = subprocess.run(
            ["ip", "netns", "exec", ns, sys.executable, "-c", SCRIPT, str(FIXTURE)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 0, r.stderr
        got = json.loads(r.stdout.strip().splitlines()[-1])
        assert len(got) == 1, got
        assert got[0]["ttl"] == 63
        assert got[0]["dst"] == "00:00:00:00:02:02"
        assert got[0]["src"] == "00:00:00:00:01:01"
        assert got[0]["good"]
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)

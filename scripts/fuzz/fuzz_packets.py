"""Fuzzing the switch's packet path with atheris: mutated frames through real programs.

Programs: l3_forward (with routes) and every program of tests/conformance/ that compiles.
The first input byte picks the program and the ingress port; the rest is the frame. The
Rust packet path must never panic (a panic surfaces here as an exception) and a frame
must never leave on a port the program cannot send to (0..15 here).

    .venv/bin/python scripts/fuzz/fuzz_packets.py -max_total_time=600 [corpus dir]
"""

import tempfile
from pathlib import Path

from harness import fuzz
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import Ether

from p4aqm.compiler.cli import main as compile_main
from p4aqm.switch._dataplane import Dataplane

REPO = Path(__file__).resolve().parents[2]
WORK = Path(tempfile.mkdtemp(prefix="p4aqm-fuzz-packets-"))
PORTS = range(16)


def _compile(source: Path) -> bytes | None:
    out = WORK / f"{source.stem}.json"
    if compile_main([str(source), "-o", str(out)]) != 0:
        return None
    return out.read_bytes()


def _dataplanes() -> list[Dataplane]:
    sources = [REPO / "p4src" / "l3_forward.p4", *sorted(REPO.glob("tests/conformance/*.p4"))]
    dataplanes = []
    for source in sources:
        bmv2_json = _compile(source)
        if bmv2_json is None:
            continue
        dataplane = Dataplane(seed=1)
        for port in PORTS:
            dataplane.add_memory_port(port)
        dataplane.load_pipeline(bmv2_json)
        if source.stem == "l3_forward":
            dataplane.table_add(
                "MyIngress.ipv4_lpm",
                [("lpm", bytes([10, 0, 0, 0]), 8)],
                "MyIngress.ipv4_forward",
                [bytes(6), bytes(6), bytes([2])],
                0,
            )
        dataplanes.append(dataplane)
    return dataplanes


DATAPLANES = _dataplanes()


def test_one_input(data: bytes) -> None:
    if not data:
        return
    dataplane = DATAPLANES[data[0] % len(DATAPLANES)]
    dataplane.inject(data[0] % 4, data[1:])
    for port, _ in dataplane.take_output():
        if port not in PORTS:
            raise RuntimeError(f"packet sent on port {port}")


def seeds() -> list[bytes]:
    frames = [
        Ether() / IP(dst="10.0.2.1") / UDP() / (b"x" * 20),
        Ether() / IP(dst="10.1.2.3", ttl=1) / TCP(),
        Ether(type=0x8100) / (b"\x00" * 30),
        Ether() / IP(ihl=15) / (b"\x00" * 4),
    ]
    return [bytes([selector]) + bytes(f) for f in frames for selector in range(len(DATAPLANES))]


if __name__ == "__main__":
    fuzz(test_one_input, seeds)

"""A controller that resets a program's occupancy registers while packets are queued
(say, to restart an experiment) must not make the counts wrap below zero when those
packets leave: a wrapped count would read as a full queue and drop every arrival."""

from collections.abc import Callable
from pathlib import Path

import pytest
from aqm_switch import OUT_PORT, aqm_dataplane
from cbt_switch import TOTAL, cbt_config, cell
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4aqm.controller.disciplines import AqmConfig, DropTailConfig, FredConfig, RedConfig
from p4aqm.models.cbt import TrafficClass
from p4aqm.models.fred import FredTables
from p4aqm.switch._dataplane import Dataplane
from programs import P4SRC, compile_program

RATE_PPS = 1000.0
BURST = 5
RED = {"min_th": 20, "max_th": 40, "max_p": 0.1, "limit_pkts": 60}


def run(tmp: Path, name: str, aqm: AqmConfig) -> Dataplane:
    return aqm_dataplane(compile_program(P4SRC / f"{name}.p4", tmp), aqm, RATE_PPS, seed=1)


def droptail(tmp: Path) -> tuple[Dataplane, list[tuple[str, int]]]:
    dp = run(tmp, "droptail", DropTailConfig(discipline="droptail", limit_pkts=60))
    return dp, [("aqm_occupancy", OUT_PORT)]


def red(tmp: Path) -> tuple[Dataplane, list[tuple[str, int]]]:
    dp = run(tmp, "red", RedConfig(discipline="red", **RED))
    return dp, [("aqm_occupancy", OUT_PORT)]


def cbt(tmp: Path) -> tuple[Dataplane, list[tuple[str, int]]]:
    dp = run(tmp, "cbt", cbt_config(**RED, marked_th=20, unmarked_th=20))
    cells = [TOTAL, *(cell(c) for c in TrafficClass)]
    return dp, [("aqm_occupancy", c) for c in cells]


def fred(tmp: Path) -> tuple[Dataplane, list[tuple[str, int]]]:
    aqm = FredConfig(discipline="fred", **RED, flow_slots=8)
    dp = run(tmp, "fred", aqm)
    base = FredTables.from_params(aqm.params()).slot_base
    flows = [("fred_flow_occupancy", slot) for slot in range(base, base + 8)]
    return dp, [("aqm_occupancy", OUT_PORT), ("fred_nactive", OUT_PORT), *flows]


@pytest.mark.parametrize("build", [droptail, red, cbt, fred], ids=lambda f: f.__name__)
def test_counts_do_not_wrap_after_a_reset(
    build: Callable[[Path], tuple[Dataplane, list[tuple[str, int]]]], tmp_path: Path
) -> None:
    dp, counts = build(tmp_path)
    frame = bytes(Ether() / IP(dst="10.0.2.1") / UDP(sport=1000, dport=2000) / (b"x" * 18))
    for _ in range(BURST):
        dp.inject(1, frame)
    assert any(dp.register_read(name, index) != bytes(4) for name, index in counts)
    for name, index in counts:
        dp.register_write(name, index, bytes(4))
    dp.advance_time(int(2 * BURST * 1e6 / RATE_PPS))
    assert len(dp.take_output()) >= 1
    left = [(name, i, int.from_bytes(dp.register_read(name, i), "big")) for name, i in counts]
    assert left == [(name, i, 0) for name, i in counts]

"""A controller that resets a program's occupancy registers while packets are queued
(say, to restart an experiment) must not make the counts wrap below zero when those
packets leave: a wrapped count would read as a full queue and drop every arrival."""

from collections.abc import Callable
from pathlib import Path

import pytest
from cbt_switch import cbt_dataplane, compile_cbt
from fred_switch import compile_fred, fred_dataplane
from red_switch import OUT_PORT, red_dataplane, routed_dataplane, u
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4aqm.models.cbt import CbtConfig, CbtParams
from p4aqm.models.fred import FredConfig, FredParams
from p4aqm.models.red import RedConfig, RedParams
from p4switch._dataplane import Dataplane
from programs import P4SRC, compile_program

RATE_PPS = 1000.0
BURST = 5
RED = RedParams(min_th_pkts=20, max_th_pkts=40, max_p=0.1, qlen_pkts=60)


def droptail(tmp: Path) -> tuple[Dataplane, list[tuple[str, int]]]:
    program = compile_program(P4SRC / "droptail.p4", tmp)
    dp = routed_dataplane(program.json_path.read_bytes(), seed=1)
    dp.table_add(
        "MyIngress.droptail_config",
        [("exact", u(OUT_PORT, 2))],
        "MyIngress.droptail_set_limit",
        [u(60, 4)],
        0,
    )
    dp.set_queue(OUT_PORT, rate_pps=RATE_PPS, depth_packets=124)
    return dp, [("droptail_qlen", OUT_PORT)]


def red(tmp: Path) -> tuple[Dataplane, list[tuple[str, int]]]:
    program = compile_program(P4SRC / "red.p4", tmp)
    config = RedConfig.from_params(RED)
    dp = red_dataplane(program.json_path.read_bytes(), config, RATE_PPS, seed=1)
    return dp, [("red_qlen", OUT_PORT)]


def cbt(tmp: Path) -> tuple[Dataplane, list[tuple[str, int]]]:
    config = CbtConfig.from_params(CbtParams(tcp=RED, marked_th_pkts=20, unmarked_th_pkts=20))
    dp = cbt_dataplane(compile_cbt(tmp), config, RATE_PPS, seed=1)
    return dp, [("cbt_port_qlen", OUT_PORT)] + [("cbt_qlen", OUT_PORT * 4 + c) for c in range(4)]


def fred(tmp: Path) -> tuple[Dataplane, list[tuple[str, int]]]:
    config = FredConfig.from_params(FredParams(RED, flow_slots=8))
    dp = fred_dataplane(compile_fred(tmp), config, RATE_PPS, seed=1)
    flows = [("fred_flow_qlen", slot) for slot in range(config.slot_base, config.slot_base + 8)]
    return dp, [("fred_qlen", OUT_PORT), ("fred_nactive", OUT_PORT), *flows]


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

"""fred.p4 at a held average: robust flows see RED's curve, fragile and striking flows
see FRED's rules.

Before every packet the port's occupancy, average and nactive, and the arriving flow's
occupancy
and strikes, are written into the program's registers, so each decision sees the same
state. A robust flow (occupancy_i >= max(min_q, avgcq), below max_q, no strikes) is dropped at
random with the fraction 1/E[gap] of RED's linear ramp, within a 99 % interval; a
fragile flow (below min_q) is never dropped; a flow with two strikes and at least its
share is always dropped.
"""

import math
from collections.abc import Callable
from ipaddress import IPv4Address

import pytest
from aqm_switch import OUT_PORT, aqm_dataplane
from fred_switch import read_counters
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4aqm.controller.disciplines import FredConfig
from p4aqm.models.fixed_point import packets_to_avg, probability
from p4aqm.models.fred import FiveTuple, FredTables
from p4aqm.models.red import expected_mark_fraction
from programs import CompiledProgram

ARRIVALS = 60_000
AQM = FredConfig(discipline="fred", min_th=30, max_th=90, max_p=0.1, limit_pkts=10_000, min_q=2)
NACTIVE = 10
SRC, DST, SPORT, DPORT = "10.0.1.1", "10.0.2.1", 5000, 5001


@pytest.fixture(scope="module")
def fred_program(p4src_program: Callable[[str], CompiledProgram]) -> CompiledProgram:
    return p4src_program("fred")


def drop_counts(
    program: CompiledProgram, avg_pkts: float, flow_occupancy: int, strikes: int
) -> tuple:
    """The four drop counters after ARRIVALS packets of one flow at the held state."""
    config = FredTables.from_params(AQM.params())
    dp = aqm_dataplane(program, AQM, rate_pps=1e9, seed=3)
    slot = config.slot(FiveTuple(int(IPv4Address(SRC)), int(IPv4Address(DST)), 17, SPORT, DPORT))
    frame = bytes(Ether() / IP(src=SRC, dst=DST) / UDP(sport=SPORT, dport=DPORT) / (b"x" * 18))
    held = {
        ("aqm_occupancy", OUT_PORT): round(avg_pkts),
        ("red_avg", OUT_PORT): packets_to_avg(avg_pkts),
        ("fred_nactive", OUT_PORT): NACTIVE,
        ("fred_flow_occupancy", slot): flow_occupancy,
        ("fred_flow_strikes", slot): strikes,
    }
    for _ in range(ARRIVALS):
        for (name, index), value in held.items():
            dp.register_write(name, index, value.to_bytes(4, "big"))
        dp.inject(1, frame)
    dp.take_output()
    return read_counters(dp)


@pytest.mark.parametrize("avg_pkts", [37.5, 60.0, 82.5])
def test_robust_flow_follows_the_ramp(fred_program: CompiledProgram, avg_pkts: float) -> None:
    # avgcq = avg / 10 is at most 8.25 packets: 12 queued is above it and min_q.
    flow_drops, early, forced, overflow = drop_counts(fred_program, avg_pkts, 12, 0)
    assert flow_drops == forced == overflow == 0
    p_b = probability(AQM.max_p * (avg_pkts - 30) / 60)
    expected = expected_mark_fraction(p_b)
    half_width = 2.576 * math.sqrt(expected * (1 - expected) / ARRIVALS)
    assert abs(early / ARRIVALS - expected) < half_width, (early / ARRIVALS, expected)


def test_fragile_flow_is_never_dropped(fred_program: CompiledProgram) -> None:
    assert drop_counts(fred_program, 82.5, 1, 0) == (0, 0, 0, 0)


def test_flow_with_strikes_is_held_to_its_share(fred_program: CompiledProgram) -> None:
    # avgcq = (60 * 2^16 * floor(2^16 / 10)) >> 16, just under 6 packets: a flow with two
    # strikes and 6 queued is at its share and loses every arrival.
    assert drop_counts(fred_program, 60.0, 6, 2) == (ARRIVALS, 0, 0, 0)

"""fred.p4 at a held average: robust flows see RED's curve, fragile and striking flows
see FRED's rules.

Before every packet the port's qlen, average and nactive, and the arriving flow's qlen
and strikes, are written into the program's registers, so each decision sees the same
state. A robust flow (qlen_i >= max(min_q, avgcq), below max_q, no strikes) is dropped at
random with the fraction 1/E[gap] of RED's linear ramp, within a 99 % interval; a
fragile flow (below min_q) is never dropped; a flow with two strikes and at least its
share is always dropped.
"""

import math
from ipaddress import IPv4Address

import pytest
from fred_switch import OUT_PORT, compile_fred, fred_dataplane, read_counters
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4aqm.models.fixed_point import packets_to_avg, probability
from p4aqm.models.fred import FiveTuple, FredConfig, FredParams
from p4aqm.models.red import RedParams, expected_mark_fraction

ARRIVALS = 60_000
PARAMS = FredParams(
    RedParams(min_th_pkts=30, max_th_pkts=90, max_p=0.1, qlen_pkts=10_000), min_q_pkts=2
)
NACTIVE = 10
SRC, DST, SPORT, DPORT = "10.0.1.1", "10.0.2.1", 5000, 5001


@pytest.fixture(scope="module")
def fred_json(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return compile_fred(tmp_path_factory.mktemp("fred"))


def drop_counts(fred_json: bytes, avg_pkts: float, flow_qlen: int, strikes: int) -> tuple:
    """The four drop counters after ARRIVALS packets of one flow at the held state."""
    config = FredConfig.from_params(PARAMS)
    dp = fred_dataplane(fred_json, config, rate_pps=1e9, seed=3)
    slot = config.slot(FiveTuple(int(IPv4Address(SRC)), int(IPv4Address(DST)), 17, SPORT, DPORT))
    frame = bytes(Ether() / IP(src=SRC, dst=DST) / UDP(sport=SPORT, dport=DPORT) / (b"x" * 18))
    held = {
        ("fred_qlen", OUT_PORT): round(avg_pkts),
        ("fred_avg", OUT_PORT): packets_to_avg(avg_pkts),
        ("fred_nactive", OUT_PORT): NACTIVE,
        ("fred_flow_qlen", slot): flow_qlen,
        ("fred_flow_strikes", slot): strikes,
    }
    for _ in range(ARRIVALS):
        for (name, index), value in held.items():
            dp.register_write(name, index, value.to_bytes(4, "big"))
        dp.inject(1, frame)
    dp.take_output()
    return read_counters(dp)


@pytest.mark.parametrize("avg_pkts", [37.5, 60.0, 82.5])
def test_robust_flow_follows_the_ramp(fred_json: bytes, avg_pkts: float) -> None:
    # avgcq = avg / 10 is at most 8.25 packets: 12 queued is above it and min_q.
    flow_drops, early, forced, overflow = drop_counts(fred_json, avg_pkts, 12, 0)
    assert flow_drops == forced == overflow == 0
    p_b = probability(PARAMS.red.max_p * (avg_pkts - 30) / 60)
    expected = expected_mark_fraction(p_b)
    half_width = 2.576 * math.sqrt(expected * (1 - expected) / ARRIVALS)
    assert abs(early / ARRIVALS - expected) < half_width, (early / ARRIVALS, expected)


def test_fragile_flow_is_never_dropped(fred_json: bytes) -> None:
    assert drop_counts(fred_json, 82.5, 1, 0) == (0, 0, 0, 0)


def test_flow_with_strikes_is_held_to_its_share(fred_json: bytes) -> None:
    # avgcq = (60 * 2^16 * floor(2^16 / 10)) >> 16, just under 6 packets: a flow with two
    # strikes and 6 queued is at its share and loses every arrival.
    assert drop_counts(fred_json, 60.0, 6, 2) == (ARRIVALS, 0, 0, 0)

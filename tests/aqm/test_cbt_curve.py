"""cbt.p4 at held class averages: TCP's drop fraction follows RED's design curve within
a 99 % confidence interval, and the non-TCP classes' thresholds are sharp.

The class averages and occupancies are written into the program's registers before
every packet, so each decision sees a fixed average. For TCP, the fraction of early
drops (or marks) is compared with 1/E[gap] for the ramp's p_b, as for red.p4: the
linear ramp from min_th to max_th and gentle's second ramp. While TCP is held on its
ramp, unmarked UDP held at its threshold all passes: a class's state is its own.
"""

import math
from collections.abc import Callable

import pytest
from aqm_switch import aqm_dataplane
from cbt_switch import DSCP_EF, TOTAL, cbt_config, cbt_tables, cell, read_counters
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Packet

from p4aqm.models.cbt import CbtDecision, TrafficClass
from p4aqm.models.fixed_point import packets_to_avg, probability
from p4aqm.models.red import expected_mark_fraction
from p4aqm.switch._dataplane import Dataplane
from programs import CompiledProgram

ARRIVALS = 60_000
AQM = cbt_config(
    min_th=30,
    max_th=90,
    max_p=0.1,
    limit_pkts=10_000,
    gentle=True,
    ecn=True,
    marked_th=10,
    unmarked_th=2,
)


def frame(ip: Packet) -> bytes:
    return bytes(Ether() / ip / (b"x" * 18))


def p_b(avg_pkts: float) -> int:
    low, high = AQM.min_th, AQM.max_th
    if avg_pkts < high:
        return probability(AQM.max_p * (avg_pkts - low) / (high - low))
    return probability(AQM.max_p + (1 - AQM.max_p) * (avg_pkts - high) / high)


def hold(dp: Dataplane, traffic_class: TrafficClass, occupancy: int, avg: int) -> None:
    """The class's occupancy and average (in 2^-16 packets), and the port far from its
    limit."""
    dp.register_write("aqm_occupancy", cell(traffic_class), occupancy.to_bytes(4, "big"))
    dp.register_write("red_avg", cell(traffic_class), avg.to_bytes(4, "big"))
    dp.register_write("aqm_occupancy", TOTAL, bytes(4))


@pytest.mark.parametrize("avg_pkts", [37.5, 60.0, 82.5, 150.0])
@pytest.mark.parametrize("ecn", [0, 2], ids=["not-ect", "ect"])
def test_tcp_fraction_follows_the_ramp(
    p4src_program: Callable[[str], CompiledProgram], avg_pkts: float, ecn: int
) -> None:
    dp = aqm_dataplane(p4src_program("cbt"), AQM, rate_pps=1e9, seed=3)
    tcp = frame(IP(dst="10.0.2.1", tos=ecn) / TCP(sport=4000, dport=80))
    udp = frame(IP(dst="10.0.2.1") / UDP(sport=5000, dport=5004))
    for _ in range(ARRIVALS):
        hold(dp, TrafficClass.TCP, round(avg_pkts), packets_to_avg(avg_pkts))
        dp.inject(1, tcp)
        # Unmarked UDP at its threshold: admitted, whatever TCP's average.
        hold(dp, TrafficClass.UNMARKED, 2, packets_to_avg(AQM.unmarked_th))
        dp.inject(1, udp)
    dp.take_output()
    counts = read_counters(dp)
    tcp_counts = {
        d: counts[d, TrafficClass.TCP] for d in CbtDecision if d is not CbtDecision.ENQUEUE
    }
    marked = tcp_counts.pop(CbtDecision.MARK if ecn else CbtDecision.DROP_EARLY)
    assert not any(tcp_counts.values()), tcp_counts
    assert not any(n for (_, c), n in counts.items() if c is not TrafficClass.TCP)
    # The update before deciding moves the held average by (q - avg) w_q, at most 2^-10
    # packets here: a change of p_b far inside the confidence interval.
    expected = expected_mark_fraction(p_b(avg_pkts))
    half_width = 2.576 * math.sqrt(expected * (1 - expected) / ARRIVALS)
    assert abs(marked / ARRIVALS - expected) < half_width, (marked / ARRIVALS, expected)


@pytest.mark.parametrize(
    ("traffic_class", "dscp"), [(TrafficClass.MARKED, DSCP_EF), (TrafficClass.UNMARKED, 0)]
)
def test_non_tcp_threshold_is_sharp(
    p4src_program: Callable[[str], CompiledProgram], traffic_class: TrafficClass, dscp: int
) -> None:
    """Held at its threshold a class passes everything; one 2^-16 packet above, nothing."""
    dp = aqm_dataplane(p4src_program("cbt"), AQM, rate_pps=1e9, seed=3)
    udp = frame(IP(dst="10.0.2.1", tos=dscp << 2) / UDP(sport=5000, dport=5004))
    threshold = cbt_tables(AQM).threshold(traffic_class)
    occupancy = threshold >> 16  # whole packets, so the update leaves the average in place
    for avg in (threshold, threshold + 1):
        for _ in range(1000):
            hold(dp, traffic_class, occupancy, avg)
            dp.inject(1, udp)
    counts = read_counters(dp)
    assert counts[CbtDecision.DROP_THRESHOLD, traffic_class] == 1000
    assert sum(counts.values()) == 1000

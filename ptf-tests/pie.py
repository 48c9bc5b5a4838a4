"""PTF tests for p4src/pie.p4: PIE on port 2 of a switch whose queue drains slowly.

Test parameters (ptf --test-params):
  config   path of a controller YAML config for pie.p4 (pipeline, switch, routes)

Each test adds PIE (RFC 8033's defaults: target 15 ms, t_update 15 ms, max_burst 150
ms) and a drain of 100 packets/s for port 2 to that config, pushes it, and offers
traffic from port 1: one packet at a time (the queue stays empty, PIE never drops), or
150 packets/s for three seconds, a delay that grows far above target: past the burst
allowance the drop probability rises and PIE drops at enqueue (the model drops about a
third), or with ECN marks ECT packets CE while the probability is at most 10 %. PIE
updates its probability at arrivals, so the overload is paced, not one burst.
"""

from aqm_base import AqmTest, frame_to_port2
from ptf import testutils
from scapy.layers.inet import UDP

from p4aqm.controller.config import PortConfig, QueueConfig
from p4aqm.controller.disciplines.pie import PieConfig

DRAIN_PPS = 100
OFFER_PPS = 150
OFFERED = 450  # three seconds
LIMIT_PKTS = 600
CALM_PKTS = 200  # four seconds at half the drain rate: 200 updates at qdelay 0
ECN_NOT_ECT, ECN_ECT0, ECN_CE = 0, 2, 3


class PieTest(AqmTest):
    ecn = False

    def port_config(self) -> PortConfig:
        return PortConfig(
            queue=QueueConfig(rate_pps=DRAIN_PPS, depth_pkts=LIMIT_PKTS + 100),
            aqm=PieConfig(ecn=self.ecn, limit_pkts=LIMIT_PKTS),
        )

    def frame(self, ecn: int) -> bytes:
        return frame_to_port2(UDP(sport=5000, dport=5001) / (b"p" * 64), tos=ecn)

    def overload(self, ecn: int) -> list[bytes]:
        return self.offered(self.frame(ecn), OFFERED, OFFER_PPS, timeout_s=1.0)


class NoDropsWhenTheQueueIsEmpty(PieTest):
    """One packet at a time, each waited for: at most 2 packets queued, never a drop."""

    ecn = True

    def runTest(self) -> None:
        for _ in range(30):
            testutils.send_packet(self, 1, self.frame(ECN_ECT0))
            packets = self.received(timeout_s=0.1)
            self.assertEqual(len(packets), 1)
            self.assertEqual(packets[0][15] & 3, ECN_ECT0)


class DropsUnderPersistentDelay(PieTest):
    """1.5 times the drain rate for three seconds: the delay stays above target, the
    probability rises, PIE drops."""

    def runTest(self) -> None:
        packets = self.overload(ECN_NOT_ECT)
        self.assertLess(len(packets), OFFERED * 0.9)
        self.assertGreater(len(packets), OFFERED // 2)
        self.assertFalse(any(p[15] & 3 == ECN_CE for p in packets))


class EcnMarksWhileTheProbabilityIsLow(PieTest):
    """With ECN the same overload of ECT packets is marked CE while the probability is at
    most 10 %; past that PIE drops them as RFC 8033 says. The probability a test before
    left (the registers stay with the pipeline) first decays under half the drain rate,
    which the queue, never above 2 packets, passes whole."""

    ecn = True

    def runTest(self) -> None:
        calm = self.offered(self.frame(ECN_ECT0), CALM_PKTS, DRAIN_PPS / 2, timeout_s=0.2)
        self.assertEqual(len(calm), CALM_PKTS)
        packets = self.overload(ECN_ECT0)
        self.assertGreater(sum(1 for p in packets if p[15] & 3 == ECN_CE), 0)
        self.assertLess(len(packets), OFFERED)

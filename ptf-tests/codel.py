"""PTF tests for p4src/codel.p4: CoDel on port 2 of a switch whose queue drains slowly.

Test parameters (ptf --test-params):
  config   path of a controller YAML config for codel.p4 (pipeline, switch, routes)

Each test adds CoDel (RFC 8289's target 5 ms and interval 100 ms) and a drain of 100
packets/s for port 2 to that config, pushes it, and offers traffic from port 1: one
packet at a time (no standing queue: the sojourn stays below target) or a burst that
stands in the queue for far longer than an interval (drops, or CE marks with ECN).
CoDel decides at dequeue, so its drops come out of the queue already formed: fewer
packets leave than arrived.
"""

from aqm_base import AqmTest, frame_to_port2
from ptf import testutils
from scapy.layers.inet import UDP

from p4aqm.controller.config import PortConfig, QueueConfig
from p4aqm.controller.disciplines.codel import CodelConfig

DRAIN_PPS = 100  # 10 ms a packet: a burst of 60 stands for 600 ms
BURST = 60
LIMIT_PKTS = 200
ECN_NOT_ECT, ECN_ECT0, ECN_CE = 0, 2, 3


class CodelTest(AqmTest):
    ecn = False

    def port_config(self) -> PortConfig:
        return PortConfig(
            queue=QueueConfig(rate_pps=DRAIN_PPS, depth_pkts=LIMIT_PKTS + 100),
            aqm=CodelConfig(ecn=self.ecn, limit_pkts=LIMIT_PKTS),
        )

    def frame(self, ecn: int) -> bytes:
        return frame_to_port2(UDP(sport=5000, dport=5001) / (b"c" * 64), tos=ecn)

    def burst(self, ecn: int) -> list[bytes]:
        for _ in range(BURST):
            testutils.send_packet(self, 1, self.frame(ecn))
        return self.received(timeout_s=1.0)


class NoDropsBelowTarget(CodelTest):
    """One packet at a time, each waited for: the sojourn time stays below target."""

    ecn = True

    def runTest(self) -> None:
        for _ in range(30):
            testutils.send_packet(self, 1, self.frame(ECN_ECT0))
            packets = self.received(timeout_s=0.1)
            self.assertEqual(len(packets), 1)
            self.assertEqual(packets[0][15] & 3, ECN_ECT0)


class DropsAStandingQueue(CodelTest):
    """A burst stands in the queue for 600 ms, above target for more than an interval:
    CoDel drops from about 110 ms on, interval / sqrt(count) apart."""

    def runTest(self) -> None:
        packets = self.burst(ECN_NOT_ECT)
        self.assertLess(len(packets), BURST)
        self.assertGreater(len(packets), BURST // 2)
        self.assertTrue(all(p[15] & 3 == ECN_NOT_ECT for p in packets))


class EcnMarksEctDropsNotEct(CodelTest):
    """With ECN, the same burst of ECT packets all leave, some marked CE; not-ECT drops."""

    ecn = True

    def runTest(self) -> None:
        ect = self.burst(ECN_ECT0)
        self.assertEqual(len(ect), BURST)
        self.assertGreater(sum(1 for p in ect if p[15] & 3 == ECN_CE), 0)
        not_ect = self.burst(ECN_NOT_ECT)
        self.assertLess(len(not_ect), BURST)
        self.assertFalse(any(p[15] & 3 == ECN_CE for p in not_ect))

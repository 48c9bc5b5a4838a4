"""PTF tests for p4src/red.p4: RED on port 2 of a switch whose queue drains slowly.

Test parameters (ptf --test-params):
  config   path of a controller YAML config for red.p4 (pipeline, switch, routes)

Each test adds RED and a drain rate for port 2 to that config, pushes it, and offers
traffic from port 1 either slower than the drain rate (the average stays below min_th)
or as a burst far above it (the average crosses min_th and RED acts).
"""

from aqm_base import AqmTest, frame_to_port2
from ptf import testutils
from scapy.layers.inet import UDP

from p4aqm.controller.config import PortConfig, QueueConfig
from p4aqm.controller.disciplines.red import RedConfig

DRAIN_PPS = 100
RED = {"discipline": "red", "min_th": 5, "max_th": 15, "max_p": 0.2, "w_q": 1 / 4, "limit_pkts": 40}
ECN_NOT_ECT, ECN_ECT0, ECN_CE = 0, 2, 3


class RedTest(AqmTest):
    ecn = False

    def port_config(self) -> PortConfig:
        return PortConfig(
            queue=QueueConfig(rate_pps=DRAIN_PPS, depth_pkts=200),
            aqm=RedConfig(**{**RED, "ecn": self.ecn}),
        )

    def frame(self, ecn: int) -> bytes:
        return frame_to_port2(UDP(sport=5000, dport=5001) / (b"p" * 64), tos=ecn)


class NoDropsBelowMinTh(RedTest):
    """One packet at a time, each waited for: the queue never holds more than one, the
    average stays below min_th, and every packet gets through."""

    def runTest(self) -> None:
        for _ in range(40):
            testutils.send_packet(self, 1, self.frame(ECN_NOT_ECT))
            self.assertEqual(len(self.received(timeout_s=0.1)), 1)


class DropsAboveMinTh(RedTest):
    """A burst far above the drain rate pushes the average past min_th: RED drops."""

    def runTest(self) -> None:
        burst = 150
        for _ in range(burst):
            testutils.send_packet(self, 1, self.frame(ECN_NOT_ECT))
        packets = self.received(timeout_s=1.0)
        self.assertLess(len(packets), burst)
        self.assertGreater(len(packets), RED["min_th"])
        self.assertTrue(all(p[15] & 3 == ECN_NOT_ECT for p in packets))


class EcnMarksEctDropsNotEct(RedTest):
    """With ECN, the same burst of ECT packets is marked CE, not dropped; not-ECT drops."""

    ecn = True

    def runTest(self) -> None:
        burst = 150
        for _ in range(burst):
            testutils.send_packet(self, 1, self.frame(ECN_ECT0))
        ect = self.received(timeout_s=1.0)
        marked = sum(1 for p in ect if p[15] & 3 == ECN_CE)
        self.assertGreater(marked, 0)
        # Above limit_pkts the queue still overflows; below it, nothing is dropped for ECT.
        self.assertGreaterEqual(len(ect), RED["limit_pkts"])

        for _ in range(burst):
            testutils.send_packet(self, 1, self.frame(ECN_NOT_ECT))
        not_ect = self.received(timeout_s=1.0)
        self.assertLess(len(not_ect), burst)
        self.assertFalse(any(p[15] & 3 == ECN_CE for p in not_ect))

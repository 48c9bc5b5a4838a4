"""PTF tests for p4src/red.p4: RED on port 2 of a switch whose queue drains slowly.

Test parameters (ptf --test-params):
  config   path of a controller YAML config for red.p4 (pipeline, switch, routes)

Each test adds RED and a drain rate for port 2 to that config, pushes it, and offers
traffic from port 1 either slower than the drain rate (the average stays below min_th)
or as a burst far above it (the average crosses min_th and RED acts).
"""

from pathlib import Path

import ptf
from ptf import testutils
from ptf.base_tests import BaseTest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from controller.config import PortConfig, QueueConfig, load_config
from controller.disciplines.red import RedConfig
from controller.session import apply_config

DRAIN_PPS = 100
RED = {"discipline": "red", "min_th": 5, "max_th": 15, "max_p": 0.2, "w_q": 1 / 4, "limit_pkts": 40}
ECN_NOT_ECT, ECN_ECT0, ECN_CE = 0, 2, 3


class RedTest(BaseTest):
    ecn = False

    def setUp(self) -> None:
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        config = load_config(Path(testutils.test_params_get()["config"]))
        port2 = PortConfig(
            queue=QueueConfig(rate_pps=DRAIN_PPS, depth_packets=200),
            aqm=RedConfig(**{**RED, "ecn": self.ecn}),
        )
        apply_config(config.model_copy(update={"ports": {2: port2}}))

    def frame(self, ecn: int) -> bytes:
        return bytes(
            Ether(dst="00:00:00:00:01:ff", src="00:00:00:00:01:01")
            / IP(src="10.0.1.1", dst="10.0.2.1", tos=ecn)
            / UDP(sport=5000, dport=5001)
            / (b"p" * 64)
        )

    def received(self, timeout_s: float) -> list[bytes]:
        """Every packet that leaves port 2 until none arrives for timeout_s."""
        packets = []
        while True:
            result = testutils.dp_poll(self, device_number=0, port_number=2, timeout=timeout_s)
            if not isinstance(result, self.dataplane.PollSuccess):
                return packets
            packets.append(bytes(result.packet))


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

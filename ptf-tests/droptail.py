"""PTF test for p4src/droptail.p4: a burst into a slowly draining port keeps limit_pkts packets.

Test parameters (ptf --test-params):
  config   path of a controller YAML config for droptail.p4 (pipeline, switch, routes)
"""

import math
import time

from aqm_base import AqmTest, frame_to_port2
from ptf import testutils
from scapy.layers.inet import UDP

from p4aqm.controller.config import PortConfig, QueueConfig
from p4aqm.controller.disciplines.droptail import DropTailConfig

LIMIT_PKTS = 20
DRAIN_PPS = 50
BURST = 120


class BurstKeepsTheLimit(AqmTest):
    def port_config(self) -> PortConfig:
        return PortConfig(
            queue=QueueConfig(rate_pps=DRAIN_PPS, depth_pkts=LIMIT_PKTS + 100),
            aqm=DropTailConfig(discipline="droptail", limit_pkts=LIMIT_PKTS),
        )

    def runTest(self) -> None:
        frame = frame_to_port2(UDP(sport=5000, dport=5001))
        start = time.monotonic()
        for _ in range(BURST):
            testutils.send_packet(self, 1, frame)
        burst_s = time.monotonic() - start
        received = len(self.received(timeout_s=0.5))
        # The queue holds LIMIT_PKTS; a few more drain while the burst is still arriving.
        drained_during_burst = math.ceil(burst_s * DRAIN_PPS) + 1
        self.assertGreaterEqual(received, LIMIT_PKTS)
        self.assertLessEqual(received, LIMIT_PKTS + drained_during_burst)

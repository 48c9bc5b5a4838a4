"""PTF test for p4src/droptail.p4: a burst into a slowly draining port keeps limit_pkts packets.

Test parameters (ptf --test-params):
  config   path of a controller YAML config for droptail.p4 (pipeline, switch, routes)
"""

import math
import time
from pathlib import Path

import ptf
from ptf import testutils
from ptf.base_tests import BaseTest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from controller.config import PortConfig, QueueConfig, load_config
from controller.disciplines.droptail import DropTailConfig
from controller.session import apply_config

LIMIT_PKTS = 20
DRAIN_PPS = 50
BURST = 120


class BurstKeepsTheLimit(BaseTest):
    def setUp(self) -> None:
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        config = load_config(Path(testutils.test_params_get()["config"]))
        port2 = PortConfig(
            queue=QueueConfig(rate_pps=DRAIN_PPS, depth_packets=LIMIT_PKTS + 100),
            aqm=DropTailConfig(discipline="droptail", limit_pkts=LIMIT_PKTS),
        )
        apply_config(config.model_copy(update={"ports": {2: port2}}))

    def runTest(self) -> None:
        frame = (
            Ether(dst="00:00:00:00:01:ff", src="00:00:00:00:01:01")
            / IP(src="10.0.1.1", dst="10.0.2.1")
            / UDP(sport=5000, dport=5001)
        )
        start = time.monotonic()
        for _ in range(BURST):
            testutils.send_packet(self, 1, frame)
        burst_s = time.monotonic() - start
        received = 0
        while isinstance(
            testutils.dp_poll(self, device_number=0, port_number=2, timeout=0.5),
            self.dataplane.PollSuccess,
        ):
            received += 1
        # The queue holds LIMIT_PKTS; a few more drain while the burst is still arriving.
        drained_during_burst = math.ceil(burst_s * DRAIN_PPS) + 1
        self.assertGreaterEqual(received, LIMIT_PKTS)
        self.assertLessEqual(received, LIMIT_PKTS + drained_during_burst)

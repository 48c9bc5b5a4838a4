"""PTF tests for p4src/fred.p4: FRED on port 2 of a switch whose queue drains slowly.

Test parameters (ptf --test-params):
  config   path of a controller YAML config for fred.p4 (pipeline, switch, routes)

The test adds FRED and a drain rate for port 2 to that config and pushes it. One UDP
flow sends a burst far above the drain rate, interleaved with a few packets of three
light flows. FRED lets the aggressive flow hold at most max_q packets in the queue (and
less once it has strikes), so it gets out at most max_q plus what drained while the
burst was sent; the light flows hold less than min_q each and lose nothing.
"""

import time
from pathlib import Path

import ptf
from ptf import testutils
from ptf.base_tests import BaseTest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from controller.config import PortConfig, QueueConfig, load_config
from controller.disciplines.fred import FredConfig
from controller.session import apply_config

DRAIN_PPS = 100
MAX_Q = 8
# The average stays below min_th (the queue holds about max_q plus the light flows'
# packets), so the only drops are FRED's per-flow ones, not RED's.
FRED = FredConfig(
    discipline="fred",
    min_th=20,
    max_th=40,
    max_p=0.02,
    w_q=1 / 4,
    limit_pkts=60,
    min_q=2,
    max_q=MAX_Q,
)
AGGRESSIVE_PORT = 5000
LIGHT_PORTS = (6001, 6002, 6003)


class FredTest(BaseTest):
    def setUp(self) -> None:
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        config = load_config(Path(testutils.test_params_get()["config"]))
        port2 = PortConfig(queue=QueueConfig(rate_pps=DRAIN_PPS, depth_packets=200), aqm=FRED)
        apply_config(config.model_copy(update={"ports": {2: port2}}))

    def frame(self, sport: int) -> bytes:
        return bytes(
            Ether(dst="00:00:00:00:01:ff", src="00:00:00:00:01:01")
            / IP(src="10.0.1.1", dst="10.0.2.1")
            / UDP(sport=sport, dport=5001)
            / (b"p" * 64)
        )

    def received_ports(self, timeout_s: float) -> list[int]:
        """The UDP source port of every packet out of port 2 until none comes for timeout_s."""
        ports = []
        while True:
            result = testutils.dp_poll(self, device_number=0, port_number=2, timeout=timeout_s)
            if not isinstance(result, self.dataplane.PollSuccess):
                return ports
            ports.append(Ether(bytes(result.packet))[UDP].sport)


class AggressiveFlowHeldNearMaxQ(FredTest):
    def runTest(self) -> None:
        burst = 120
        start = time.monotonic()
        for i in range(burst):
            testutils.send_packet(self, 1, self.frame(AGGRESSIVE_PORT))
            if i % 12 == 11:
                testutils.send_packet(self, 1, self.frame(LIGHT_PORTS[i // 12 % 3]))
        sent_s = time.monotonic() - start
        ports = self.received_ports(timeout_s=0.5)

        aggressive = ports.count(AGGRESSIVE_PORT)
        drained = DRAIN_PPS * sent_s
        # The flow fills its max_q before any drop, and never holds more than that.
        self.assertGreaterEqual(aggressive, MAX_Q)
        self.assertLessEqual(aggressive, MAX_Q + drained + 2, f"sent in {sent_s:.3f} s")
        self.assertLess(aggressive, burst // 2)
        # The light flows lose nothing.
        self.assertEqual(len(ports) - aggressive, burst // 12)

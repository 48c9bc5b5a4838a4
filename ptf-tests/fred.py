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

from aqm_base import AqmTest, frame_to_port2
from ptf import testutils
from scapy.layers.inet import UDP
from scapy.layers.l2 import Ether

from p4aqm.controller.config import PortConfig, QueueConfig
from p4aqm.controller.disciplines.fred import FredConfig

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


class FredTest(AqmTest):
    def port_config(self) -> PortConfig:
        return PortConfig(queue=QueueConfig(rate_pps=DRAIN_PPS, depth_pkts=200), aqm=FRED)

    def frame(self, sport: int) -> bytes:
        return frame_to_port2(UDP(sport=sport, dport=5001) / (b"p" * 64))

    def received_ports(self, timeout_s: float) -> list[int]:
        """The UDP source port of every packet out of port 2 until none comes for timeout_s."""
        return [Ether(packet)[UDP].sport for packet in self.received(timeout_s)]


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

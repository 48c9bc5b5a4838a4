"""PTF tests for p4src/cbq.p4: CBQ on port 2, whose link is slow, with three classes.

Test parameters (ptf --test-params):
  config   path of a controller YAML config for cbq.p4 (pipeline, switch, routes)

The switch must run with at least 3 priority queues per port (`--priority-queues 3`).
The test adds CBQ and the link's rate for port 2 to that config, pushes it, and sends from
port 1 frames of FRAME_BYTES, so that the rates in bit/s are rates in frames per second.
Marked UDP (DSCP EF) is the top class, TCP the next, and any other packet the lowest,
which borrows. A UDP blast far above the link's rate fills the lowest class's queue and
loses most of itself; the marked and TCP packets among it, under their classes' rates,
all pass. Alone, the lowest class takes the whole link, not only its share.
"""

from aqm_base import AQM_PORT, AqmTest, frame_to_port2
from ptf import testutils
from scapy.layers.inet import TCP, UDP

from p4aqm.controller.config import LinkConfig, PortConfig
from p4aqm.controller.disciplines.cbq import CbqConfig

FRAME_BYTES = 1000
LINK_PPS = 50
LINK_BPS = LINK_PPS * FRAME_BYTES * 8
DSCP_EF = 46
IP_PROTO_TCP = 6
IP_PROTO_UDP = 17
OTHER_SHARE_PPS = 10
OTHER_LIMIT_PKTS = 30
CBQ = {
    "discipline": "cbq",
    "default_priority": 0,
    "classes": [
        {"traffic_class": "marked", "protocol": IP_PROTO_UDP, "dscp": DSCP_EF, "priority": 2,
         "rate_bps": 10 * FRAME_BYTES * 8, "limit_pkts": 10},
        {"traffic_class": "tcp", "protocol": IP_PROTO_TCP, "priority": 1,
         "rate_bps": 20 * FRAME_BYTES * 8, "limit_pkts": 10},
        {"traffic_class": "other", "priority": 0, "rate_bps": OTHER_SHARE_PPS * FRAME_BYTES * 8,
         "limit_pkts": OTHER_LIMIT_PKTS, "borrow": True},
    ],
}  # fmt: skip
BLAST = 200  # packets of the lowest class
OTHERS = 5  # marked and TCP packets each, spread through the blast
# How far behind the sender the switch may be reading the blast, on a loaded machine.
SWITCH_LAG_S = 0.25
# Headers of a frame_to_port2 frame before the L4 payload: Ethernet, IPv4, and UDP or TCP.
UDP_HEADERS_BYTES = 14 + 20 + 8
TCP_HEADERS_BYTES = 14 + 20 + 20


class CbqTest(AqmTest):
    def port_config(self) -> PortConfig:
        return PortConfig(link=LinkConfig(rate_bps=LINK_BPS), aqm=CbqConfig(**CBQ))

    def frame(self, tcp: bool = False, dscp: int = 0) -> bytes:
        if tcp:
            l4, headers = TCP(sport=4000, dport=80), TCP_HEADERS_BYTES
        else:
            l4, headers = UDP(sport=5000, dport=5004), UDP_HEADERS_BYTES
        return frame_to_port2(l4 / (b"p" * (FRAME_BYTES - headers)), tos=dscp << 2)

    def arrivals(self, timeout_s: float) -> list[tuple[float, bytes]]:
        """When each packet left port 2 (as PTF received it) and the packet, until none
        arrives for timeout_s."""
        packets = []
        while True:
            result = testutils.dp_poll(
                self, device_number=0, port_number=AQM_PORT, timeout=timeout_s
            )
            if not isinstance(result, self.dataplane.PollSuccess):
                return packets
            packets.append((result.time, bytes(result.packet)))


class ClassesUnderTheirRatesKeepTheirPackets(CbqTest):
    def runTest(self) -> None:
        others = [self.frame(tcp=True), self.frame(dscp=DSCP_EF)]
        every = BLAST // OTHERS
        blast = self.frame()
        for index in range(BLAST):
            testutils.send_packet(self, 1, blast)
            if index % every == every // 2:
                for other in others:
                    testutils.send_packet(self, 1, other)
        packets = [p for _, p in self.arrivals(timeout_s=1.5)]
        tcp = [p for p in packets if p[23] == IP_PROTO_TCP]
        marked = [p for p in packets if p[23] != IP_PROTO_TCP and p[15] >> 2 == DSCP_EF]
        self.assertEqual(len(tcp), OTHERS)
        self.assertEqual(len(marked), OTHERS)
        # The blast keeps its queue's limit and what the link sent while it lasted: far
        # from all of it (a FIFO would have dropped TCP and marked packets with it).
        self.assertLess(len(packets) - 2 * OTHERS, BLAST // 2)


class IdleClassesLendTheLink(CbqTest):
    """The lowest class alone: its queue drains at the link's rate, five times its share."""

    def runTest(self) -> None:
        blast = self.frame()
        for _ in range(OTHER_LIMIT_PKTS - 5):
            testutils.send_packet(self, 1, blast)
        times = [t for t, _ in self.arrivals(timeout_s=1.5)]
        self.assertEqual(len(times), OTHER_LIMIT_PKTS - 5)
        span_s = times[-1] - times[0]
        at_share_s = (len(times) - 1) / OTHER_SHARE_PPS
        # At the link's rate the span is a fifth of at_share_s; half leaves room for lag.
        self.assertLess(span_s, at_share_s / 2, f"span {span_s:.3f} s")
        self.assertGreater(span_s, (len(times) - 1) / LINK_PPS - SWITCH_LAG_S)

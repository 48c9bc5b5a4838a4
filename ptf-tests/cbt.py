"""PTF tests for p4src/cbt.p4: CBT on port 2 of a switch whose queue drains slowly.

Test parameters (ptf --test-params):
  config   path of a controller YAML config for cbt.p4 (pipeline, switch, routes)

The test adds CBT and a drain rate for port 2 to that config, pushes it, and sends from
port 1 a UDP blast far above the drain rate with a few TCP and marked (DSCP EF) UDP
packets among it. Without CBT the blast would fill the 60-packet FIFO and the others
would be dropped with it; with CBT the blast holds about its class threshold of the
queue, and the TCP and marked packets, whose classes stay below theirs, all pass.
"""

import time

from aqm_base import AqmTest, frame_to_port2
from ptf import testutils
from scapy.layers.inet import TCP, UDP

from p4aqm.controller.config import PortConfig, QueueConfig
from p4aqm.controller.disciplines.cbt import CbtConfig

DRAIN_PPS = 20
# How far behind the sender the switch may be reading the blast, on a loaded machine.
SWITCH_LAG_S = 0.25
DSCP_EF = 46
IP_PROTO_TCP = 6
# The paper's settings (Parris, Jeffay, Smith 1999), except w_q: at 0.002 the average
# would trail a blast of a few hundred packets by far more than the class threshold.
CBT = {
    "discipline": "cbt",
    "min_th": 15,
    "max_th": 30,
    "max_p": 0.1,
    "w_q": 1 / 2,
    "limit_pkts": 60,
    "marked_th": 10,
    "unmarked_th": 2,
    "classes": [{"traffic_class": "marked", "protocol": 17, "dscp": DSCP_EF}],
}
BLAST = 200  # unmarked UDP packets
OTHERS = 5  # TCP and marked packets each, spread through the blast


class CbtTest(AqmTest):
    rules: list[dict[str, object]] = CBT["classes"]

    def port_config(self) -> PortConfig:
        return PortConfig(
            queue=QueueConfig(rate_pps=DRAIN_PPS, depth_pkts=200),
            aqm=CbtConfig(**{**CBT, "classes": self.rules}),
        )

    def frame(self, tcp: bool = False, dscp: int = 0, dport: int = 5004) -> bytes:
        l4 = TCP(sport=4000, dport=80) if tcp else UDP(sport=5000, dport=dport)
        return frame_to_port2(l4 / (b"p" * 64), tos=dscp << 2)

    def blast(self, frame: bytes, others: list[bytes]) -> tuple[float, list[bytes]]:
        """BLAST copies of frame with `others` spread among them: how long it took, and
        every packet port 2 sent until 1 s after it. Port 2 is read while sending: ptf
        keeps only the last 100 packets of a port, and a switch slower to take the blast
        in (BMv2) drains more of it meanwhile, so reading only afterwards would lose the
        first TCP and marked packets."""
        every = BLAST // OTHERS
        packets: list[bytes] = []
        start = time.monotonic()
        for index in range(BLAST):
            testutils.send_packet(self, 1, frame)
            if index % every == every // 2:
                for other in others:
                    testutils.send_packet(self, 1, other)
            packets += self.received(timeout_s=0.0005)
        blast_s = time.monotonic() - start
        return blast_s, packets + self.received(timeout_s=1.0)

    def bound(self, threshold: float, blast_s: float) -> float:
        """The most a class held to `threshold` can get through during a blast: the
        threshold plus the one packet that the average's lag lets in, plus the places
        the port drained while the blast lasted (the first packet leaves at once)."""
        return threshold + 2 + DRAIN_PPS * (blast_s + SWITCH_LAG_S)


class UdpBlastHeldToItsThreshold(CbtTest):
    def runTest(self) -> None:
        others = [self.frame(tcp=True), self.frame(dscp=DSCP_EF)]
        blast_s, packets = self.blast(self.frame(), others)

        tcp = [p for p in packets if p[23] == IP_PROTO_TCP]
        marked = [p for p in packets if p[23] != IP_PROTO_TCP and p[15] >> 2 == DSCP_EF]
        unmarked = len(packets) - len(tcp) - len(marked)
        self.assertEqual(len(tcp), OTHERS)
        self.assertEqual(len(marked), OTHERS)
        # A FIFO of limit 60 would have let 60 and more through, and dropped TCP and marked.
        bound = self.bound(CBT["unmarked_th"], blast_s)
        self.assertLessEqual(unmarked, bound, f"blast took {blast_s:.3f} s")
        self.assertGreaterEqual(unmarked, CBT["unmarked_th"])


class MarkedByPortHeldToItsThreshold(CbtTest):
    """A rule on protocol and L4 port marks a UDP blast: it gets the marked class's
    threshold, more than an unmarked blast could, and no more; TCP still passes."""

    rules = [{"traffic_class": "marked", "protocol": 17, "dst_port": 5006}]

    def runTest(self) -> None:
        blast_s, packets = self.blast(self.frame(dport=5006), [self.frame(tcp=True)])
        tcp = [p for p in packets if p[23] == IP_PROTO_TCP]
        marked = len(packets) - len(tcp)
        self.assertEqual(len(tcp), OTHERS)
        self.assertLessEqual(marked, self.bound(CBT["marked_th"], blast_s))
        # The average trails the queue, so the class fills past its threshold first: far
        # more than the unmarked class, which the rule did not leave this blast in.
        self.assertGreater(marked, CBT["marked_th"])

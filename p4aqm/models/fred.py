"""FRED (Lin and Morris 1997) as p4src/fred.p4 computes it.

Units and ranges are those of p4aqm/models/fixed_point.py.

FRED is RED with a count of queued packets per active flow. The port-wide part (the
average with its idle decay, count and the random threshold q_r) is RED's arithmetic,
inherited from p4aqm.models.red.RedQueue; what FRED adds, per arrival at a port:

  0. Flow. The flow is the 5-tuple (IPv4 source, IPv4 destination, protocol, source
     port, destination port), the ports those of TCP or UDP as include/l4_headers.p4
     parses them and 0 for other packets. The program hashes those 13 bytes, packed
     big-endian in that order (v1model concatenates the fields' bits, and these are
     whole bytes), with v1model's crc16, which our dataplane and BMv2 compute as
     CRC-16/ARC (polynomial 0x8005 reflected, i.e. 0xa001, initial value 0, no final
     xor); crc16() below is that CRC, and flow_slot() the register index. The slot
     is slot_base + (crc & slot_mask): each FRED port owns a power-of-two region of
     the flow registers, placed by the control plane. Flows whose hashes agree in the
     masked bits share a slot and are one flow to FRED: their packets add up in one
     occupancy_i, they share strikes, and nactive counts them once.
  1. Average. RED's update on arrival (decay if the queue is empty, then the EWMA).
     The paper also updates the average on departures; the program keeps RED's
     arrival-time average, computed in ingress where the decision is made.
  2. Share. avgcq = max(avg / nactive, 1 packet), nactive the slots with packets
     queued. The data plane cannot divide: the controller installs, per nactive n in
     1..slots, recip(n) = floor(2^16 / n), and avgcq = (avg * recip) >> 16 in 2^-16
     packets; with n = 0 (no entry) recip = 2^16 and avgcq = avg, as in the paper.
  3. Flow checks (the paper's non-adaptive flows). max_q' = max_q, or 2 while
     avg >= max_th. If occupancy_i >= max_q', or avg >= max_th and occupancy_i > 2 avgcq, or
     occupancy_i >= avgcq with strikes_i > 1: drop, strikes_i += 1 (DROP_FLOW). count and
     q_r are not touched.
  4. RED's modes. avg < min_th: enqueue, count <- -1. avg >= max_th: drop
     (DROP_FORCED), count <- -1. Otherwise count += 1; count == 0 draws q_r as RED
     does; else, for a flow holding occupancy_i >= max(min_q, avgcq) only, RED's test
     count * p_b >= q_r with p_b from the ramp table drops (DROP_EARLY), resets count
     to 0 and draws a new q_r. Flows below that are never dropped at random but are
     still counted, as in the paper.
  5. Hard limit. An arrival still to be enqueued with occupancy >= limit_pkts is
     dropped.
  6. Enqueue. occupancy_i == 0 makes the flow active (nactive += 1); occupancy_i and
     occupancy += 1.

Departure: occupancy -= 1 (and idle_since on empty, as RED); occupancy_i -= 1, and a flow
whose last packet left is forgotten: strikes_i <- 0, nactive -= 1. No count goes below
zero, as in the program.

All quantities are integers: averages and shares in 2^-16 packets (a flow's occupancy_i is
compared as occupancy_i << 16), probabilities in 2^-24. The limit is kept below 2^15 packets
so that every average, share and 2 avgcq fits the program's 32-bit fields.
"""

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

from p4aqm.models.fixed_point import (
    AVG_FRAC_BITS,
    MAX_TH_PKTS,
    REGISTER_MAX,
    check_at_most,
    packets_to_avg,
)
from p4aqm.models.red import RedParams, RedQueue, RedTables, lookup

ONE_PKT = 1 << AVG_FRAC_BITS
# The flow registers of p4src/fred.p4, shared by every FRED port in regions.
FLOW_SLOTS = 1 << 16
# 2 avgcq must fit in 32 bits, and avgcq <= avg < limit * 2^16.
FRED_MAX_LIMIT_PKTS = (1 << 15) - 1
# The paper's max_q while the average is at or above max_th (drop-tail mode).
DROP_TAIL_MAX_Q = 2


class Decision(enum.Enum):
    ENQUEUE = "enqueue"
    DROP_FLOW = "drop_flow"  # the flow checks: at max_q, or over its share with strikes
    DROP_EARLY = "drop_early"  # RED's probabilistic decision, for robust flows
    DROP_FORCED = "drop_forced"  # avg at or above max_th
    DROP_OVERFLOW = "drop_overflow"  # occupancy at the hard limit


def crc16(data: bytes) -> int:
    """CRC-16/ARC, v1model's HashAlgorithm.crc16 (dataplane/src/pipeline/checksum.rs)."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


@dataclass(frozen=True)
class FiveTuple:
    src: int
    dst: int
    protocol: int
    src_port: int = 0  # 0 when the packet has no TCP or UDP header
    dst_port: int = 0

    def key(self) -> bytes:
        """The hash input, as the program packs it."""
        return (
            self.src.to_bytes(4, "big")
            + self.dst.to_bytes(4, "big")
            + self.protocol.to_bytes(1, "big")
            + self.src_port.to_bytes(2, "big")
            + self.dst_port.to_bytes(2, "big")
        )


def flow_slot(flow: FiveTuple, slot_base: int, slot_mask: int) -> int:
    """The register index of a packet's flow: its crc16, masked, in the port's region."""
    return slot_base + (crc16(flow.key()) & slot_mask)


@dataclass(frozen=True)
class FredParams:
    """FRED in a researcher's units: RED's parameters, min_q and max_q in packets, and
    the port's region of flow slots (a power of two of them)."""

    red: RedParams
    min_q_pkts: float = 2.0
    max_q_pkts: int | None = None  # the paper's default: max_th (whole packets)
    flow_slots: int = 256
    slot_base: int = 0

    def __post_init__(self) -> None:
        if self.red.gentle or self.red.ecn:
            raise ValueError("FRED drops: gentle and ecn are RED options it does not have")
        check_at_most(
            "limit_pkts", self.red.limit_pkts, FRED_MAX_LIMIT_PKTS, "2 avgcq must fit 32 bits"
        )
        if self.min_q_pkts < 0:
            raise ValueError("min_q must be at least 0")
        check_at_most("min_q", self.min_q_pkts, MAX_TH_PKTS, "min_q * 2^16 must fit 32 bits")
        if self.max_q_pkts is not None and self.max_q_pkts < 1:
            raise ValueError("max_q must be at least 1 packet")
        if self.max_q_pkts is not None:
            check_at_most("max_q", self.max_q_pkts, REGISTER_MAX, "max_q is bit<32>")
        if self.flow_slots < 1 or self.flow_slots & (self.flow_slots - 1):
            raise ValueError("flow_slots must be a power of two")
        if not 0 <= self.slot_base <= FLOW_SLOTS - self.flow_slots:
            raise ValueError(f"flow slots [slot_base, slot_base + flow_slots) exceed {FLOW_SLOTS}")

    @property
    def max_q(self) -> int:
        return self.max_q_pkts if self.max_q_pkts is not None else int(self.red.max_th_pkts)


@dataclass(frozen=True)
class FredTables:
    """What the controller installs: RED's integers, and FRED's."""

    red: RedTables
    min_q: int  # in 2^-16 packets
    max_q: int  # in packets
    slot_base: int
    slot_mask: int
    share_table: tuple[tuple[int, int], ...]  # (nactive, floor(2^16 / nactive))

    @classmethod
    def from_params(cls, params: FredParams) -> "FredTables":
        return cls(
            red=RedTables.from_params(params.red),
            min_q=packets_to_avg(params.min_q_pkts),
            max_q=params.max_q,
            slot_base=params.slot_base,
            slot_mask=params.flow_slots - 1,
            share_table=tuple((n, ONE_PKT // n) for n in range(1, params.flow_slots + 1)),
        )

    def slot(self, flow: FiveTuple) -> int:
        return flow_slot(flow, self.slot_base, self.slot_mask)


@dataclass
class FredQueue(RedQueue):
    """The per-port state of FRED: RED's, nactive, and occupancy and strikes per flow slot.

    Use arrive_flow() and depart_flow(); RED's arrive() and depart() know no flows."""

    fred: FredTables = field(kw_only=True)
    nactive: int = 0
    flow_occupancy: dict[int, int] = field(default_factory=dict)
    strikes: dict[int, int] = field(default_factory=dict)

    def arrive_flow(self, now_us: int, slot: int, draw: Callable[[], int]) -> Decision:
        """One arrival of a packet of the flow in `slot` at time now_us; `draw()` returns
        the data plane's next random value in [0, 2^24), called where random() is."""
        self.update_avg(now_us)
        decision = self._decide_flow(slot, draw)
        if decision is Decision.ENQUEUE and self.occupancy >= self.config.limit_pkts:
            return Decision.DROP_OVERFLOW
        if decision is Decision.ENQUEUE:
            if self.flow_occupancy.get(slot, 0) == 0:
                self.nactive += 1
            self.flow_occupancy[slot] = self.flow_occupancy.get(slot, 0) + 1
            self.occupancy += 1
        return decision

    def depart_flow(self, now_us: int, slot: int) -> None:
        self.depart(now_us)
        # As the program: no count below zero, and a flow left with none is forgotten.
        left = max(self.flow_occupancy.pop(slot, 0) - 1, 0)
        if left:
            self.flow_occupancy[slot] = left
        else:
            self.strikes.pop(slot, None)
            self.nactive = max(self.nactive - 1, 0)

    def avgcq(self) -> int:
        """The average per-flow share in 2^-16 packets, at least one packet."""
        recip = ONE_PKT // self.nactive if self.nactive else ONE_PKT
        return max((self.avg * recip) >> AVG_FRAC_BITS, ONE_PKT)

    def _decide_flow(self, slot: int, draw: Callable[[], int]) -> Decision:
        red, fred = self.config, self.fred
        occupancy_i = self.flow_occupancy.get(slot, 0)
        flow_q = occupancy_i << AVG_FRAC_BITS
        avgcq = self.avgcq()
        max_q = DROP_TAIL_MAX_Q if self.avg >= red.max_th_q16 else fred.max_q
        if (
            occupancy_i >= max_q
            or (self.avg >= red.max_th_q16 and flow_q > 2 * avgcq)
            or (flow_q >= avgcq and self.strikes.get(slot, 0) > 1)
        ):
            self.strikes[slot] = self.strikes.get(slot, 0) + 1
            return Decision.DROP_FLOW
        if self.avg < red.min_th_q16:
            self.count = -1
            return Decision.ENQUEUE
        if self.avg >= red.max_th_q16:
            self.count = -1
            return Decision.DROP_FORCED
        self.count += 1
        if self.count == 0:
            self.q_r = draw()
        elif flow_q >= fred.min_q and flow_q >= avgcq:
            p_b = lookup(red.p_b_table, self.avg)
            assert p_b is not None, "the ramp table covers [min_th, max_th)"
            if self.count * p_b >= self.q_r:
                self.count = 0
                self.q_r = draw()
                return Decision.DROP_EARLY
        return Decision.ENQUEUE


__all__ = [
    "Decision",
    "FiveTuple",
    "FredParams",
    "FredQueue",
    "FredTables",
    "crc16",
    "flow_slot",
]

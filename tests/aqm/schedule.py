"""The traffic manager's departure schedule as BMv2 fixes it, for tests that model it.

A packet admitted at `now` leaves the queue (and egress sees it) at
max(now, previous departure + service): at once if the queue was idle. There is one
FIFO, so departures keep arrival order whatever the packets' classes or flows.
"""

import random
from collections import deque
from typing import Any

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether


class DepartureSchedule:
    def __init__(self, service_us: int) -> None:
        self.service_us = service_us
        self.pending: deque[tuple[Any, ...]] = deque()
        self.last_us = -service_us

    def due(self, now_us: int) -> list[tuple[Any, ...]]:
        """Departures up to and including now_us, oldest first (removed). Each is
        (departure time, *packet) with the `packet` it was admitted with: the arguments
        of the model's depart."""
        departures = []
        while self.pending and self.pending[0][0] <= now_us:
            departures.append(self.pending.popleft())
        return departures

    def admit(self, now_us: int, *packet: object) -> None:
        """Schedule the departure of a packet admitted at now_us; `packet` is what the
        model must be told of it when it leaves besides the time (its class, its flow)."""
        self.last_us = max(now_us, self.last_us + self.service_us)
        self.pending.append((self.last_us, *packet))


def ecn_frames() -> dict[int, bytes]:
    """A UDP frame to port 2 with each ECN codepoint a sender may set: 0 Not-ECT, 1 and 2
    ECT."""

    def frame(ecn: int) -> bytes:
        return bytes(Ether() / IP(dst="10.0.2.1", tos=ecn) / UDP() / (b"x" * 18))

    return {ecn: frame(ecn) for ecn in (0, 1, 2)}


def phased_gaps_us(
    rng: random.Random, packets: int, over_us: int, idle_us: int, longest_phase: int
) -> list[int]:
    """Exponential inter-arrival gaps in phases of up to longest_phase packets: half the
    phases overload (mean over_us), two in five underload (mean 1500 us), one in ten idle
    (mean idle_us)."""
    gaps: list[int] = []
    while len(gaps) < packets:
        phase = rng.random()
        mean = over_us if phase < 0.5 else 1500 if phase < 0.9 else idle_us
        count = rng.randint(50, longest_phase)
        gaps += [max(1, round(rng.expovariate(1 / mean))) for _ in range(count)]
    return gaps[:packets]

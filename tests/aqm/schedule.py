"""The traffic manager's departure schedule as BMv2 fixes it, for tests that model it.

A packet admitted at `now` leaves the queue (and egress sees it) at
max(now, previous departure + service): at once if the queue was idle. There is one
FIFO, so departures keep arrival order whatever the packets' classes or flows.
"""

from collections import deque
from typing import Any


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

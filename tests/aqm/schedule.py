"""The traffic manager's departure schedule as BMv2 fixes it, for tests that model it.

A packet admitted at `now` leaves the queue (and egress sees it) at
max(now, previous departure + service): at once if the queue was idle.
"""

from collections import deque


class DepartureSchedule:
    def __init__(self, service_us: int) -> None:
        self.service_us = service_us
        self.pending: deque[int] = deque()
        self.last_us = -service_us

    def due(self, now_us: int) -> list[int]:
        """Departure times up to and including now_us, oldest first (removed)."""
        times = []
        while self.pending and self.pending[0] <= now_us:
            times.append(self.pending.popleft())
        return times

    def admit(self, now_us: int) -> None:
        self.last_us = max(now_us, self.last_us + self.service_us)
        self.pending.append(self.last_us)

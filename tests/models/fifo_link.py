"""A FIFO link for the models' agreement tests: arrivals from a seeded generator, and a
link that sends one packet every SERVICE_US while its queue holds any, with
BMv2's schedule (a packet arriving at an idle link leaves at once)."""

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

SERVICE_US = 1000  # 1000 packets/s


@dataclass(frozen=True)
class Arrival:
    index: int
    time_us: int
    ect: bool
    u: int  # a random 32-bit number for the arrival, where a discipline draws one


def phased_arrivals(seed: int, packets: int, idle_mean_us: int) -> list[Arrival]:
    """Phases of overload (mean gap 600 us), underload (1500 us) and idleness."""
    rng = random.Random(seed)
    arrivals: list[Arrival] = []
    now_us = 0
    while len(arrivals) < packets:
        phase = rng.random()
        mean = 600 if phase < 0.5 else 1500 if phase < 0.9 else idle_mean_us
        for _ in range(rng.randint(50, 1000)):
            now_us += max(1, round(rng.expovariate(1 / mean)))
            arrivals.append(Arrival(len(arrivals), now_us, rng.random() < 0.5, rng.getrandbits(32)))
    return arrivals[:packets]


class Link:
    """The queue and the link's next free instant. `send(now, queue)` takes what leaves at
    now from the head of the queue (a discipline may drop some first) and returns the
    packet sent, or None if the queue ran empty."""

    def __init__(self, send: Callable[[int, deque[tuple[Arrival, int]]], Arrival | None]) -> None:
        self.queue: deque[tuple[Arrival, int]] = deque()
        self.free_us = 0
        self.send = send

    def serve(self, until_us: int) -> None:
        """Every departure up to and including until_us."""
        while self.queue and self.free_us <= until_us:
            if self.send(self.free_us, self.queue) is None:
                return
            self.free_us += SERVICE_US

    def enqueue(self, arrival: Arrival) -> None:
        if not self.queue:
            self.free_us = max(self.free_us, arrival.time_us)
        self.queue.append((arrival, arrival.time_us))
        self.serve(arrival.time_us)


def agreement(fates: list[str], reference: list[str], dropped: set[str]) -> tuple[float, float]:
    """The share of identical fates, and the difference of the two drop rates."""
    same = sum(a == b for a, b in zip(fates, reference, strict=True)) / len(fates)
    rate = sum(f in dropped for f in fates) / len(fates)
    reference_rate = sum(f in dropped for f in reference) / len(reference)
    return same, rate - reference_rate

"""DropTail as p4src/droptail.p4 computes it: admit while occupancy < limit_pkts, else drop.

The occupancy is the program's own count of packets admitted and not yet departed,
decided at arrival, before the packet joins the queue, and never taken below zero.
"""

from dataclasses import dataclass

from p4aqm.models.fixed_point import REGISTER_MAX, check_at_most


@dataclass
class DropTailQueue:
    limit_pkts: int
    occupancy: int = 0

    def __post_init__(self) -> None:
        if self.limit_pkts < 1:
            raise ValueError("limit_pkts must be at least 1 packet")
        check_at_most("limit_pkts", self.limit_pkts, REGISTER_MAX, "limit_pkts is bit<32>")

    def arrive(self) -> bool:
        """True if the arrival is admitted."""
        if self.occupancy >= self.limit_pkts:
            return False
        self.occupancy += 1
        return True

    def depart(self) -> None:
        # Never below zero, as the program: the control plane may have reset the count.
        self.occupancy = max(self.occupancy - 1, 0)

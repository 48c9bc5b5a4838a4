"""DropTail as p4src/droptail.p4 computes it: admit while qlen < limit, else drop.

The occupancy is the program's own count of packets admitted and not yet departed,
decided at arrival, before the packet joins the queue.
"""

from dataclasses import dataclass


@dataclass
class DropTailQueue:
    limit_pkts: int
    qlen: int = 0

    def arrive(self) -> bool:
        """True if the arrival is admitted."""
        if self.qlen >= self.limit_pkts:
            return False
        self.qlen += 1
        return True

    def depart(self) -> None:
        self.qlen -= 1

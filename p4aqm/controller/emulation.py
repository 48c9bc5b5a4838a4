"""How faithfully a switch emulates its links: how late it handed packets to their ports
(past their scheduled departure or landing), and whether its queue monitor kept up."""

import itertools
import json
import math
from dataclasses import dataclass

from p4aqm.schema import MONITOR_MISSED, MONITOR_OVERRUNS, LeafName

# (bucket bound in ns, packets): a bucket holds the lateness up to its bound.
Buckets = tuple[tuple[int, int], ...]


def lateness_quantile_ns(buckets: Buckets, q: float) -> int:
    """The bound of the bucket holding the `q` quantile (0 < q <= 1); 0 without packets."""
    total = sum(n for _, n in buckets)
    if total == 0:
        return 0
    rank = min(max(math.ceil(q * total), 1), total)
    ordered = sorted(buckets)
    cumulative = itertools.accumulate(n for _, n in ordered)
    return next(bound for (bound, _), seen in zip(ordered, cumulative, strict=True) if seen >= rank)


@dataclass(frozen=True)
class EmulationFidelity:
    """A switch's figures since it started (or, from `since`, over a window)."""

    departures: int  # packets handed to their ports
    lateness_p50_ns: int
    lateness_p99_ns: int
    lateness_max_ns: int
    monitor_overruns: int  # records the monitor's ring dropped, unread
    monitor_missed: int  # sampling periods that got no record
    lateness_buckets: Buckets = ()

    @classmethod
    def of_leaves(cls, leaves: dict[str, int | bytes]) -> "EmulationFidelity":
        """From the gNMI leaves by name (the buckets leaf as its JSON)."""
        pairs = json.loads(leaves[LeafName.LATENESS_BUCKETS])
        return cls(
            departures=int(leaves[LeafName.DEPARTURES]),
            lateness_p50_ns=int(leaves[LeafName.LATENESS_P50_NS]),
            lateness_p99_ns=int(leaves[LeafName.LATENESS_P99_NS]),
            lateness_max_ns=int(leaves[LeafName.LATENESS_MAX_NS]),
            monitor_overruns=int(leaves[MONITOR_OVERRUNS[-1]]),
            monitor_missed=int(leaves[MONITOR_MISSED[-1]]),
            lateness_buckets=tuple((int(b), int(n)) for b, n in pairs),
        )

    def since(self, earlier: "EmulationFidelity") -> "EmulationFidelity":
        """The window from `earlier` to this snapshot: its percentiles from the buckets'
        differences, its max the bound of the highest bucket that grew (the exact max
        is kept only since start). The monitor's counts are since its last start."""
        before = dict(earlier.lateness_buckets)
        window = tuple(
            (bound, n - before.get(bound, 0))
            for bound, n in self.lateness_buckets
            if n > before.get(bound, 0)
        )
        return EmulationFidelity(
            departures=self.departures - earlier.departures,
            lateness_p50_ns=lateness_quantile_ns(window, 0.5),
            lateness_p99_ns=lateness_quantile_ns(window, 0.99),
            lateness_max_ns=min(max((b for b, _ in window), default=0), self.lateness_max_ns),
            monitor_overruns=self.monitor_overruns - earlier.monitor_overruns,
            monitor_missed=self.monitor_missed - earlier.monitor_missed,
            lateness_buckets=window,
        )

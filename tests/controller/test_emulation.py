"""The emulation's fidelity figures over a window: two snapshots' buckets subtracted."""

from p4aqm.controller import EmulationFidelity
from p4aqm.controller.emulation import lateness_quantile_ns


def snapshot(buckets: tuple[tuple[int, int], ...], max_ns: int, missed: int) -> EmulationFidelity:
    departures = sum(n for _, n in buckets)
    p50 = lateness_quantile_ns(buckets, 0.5)
    p99 = lateness_quantile_ns(buckets, 0.99)
    return EmulationFidelity(departures, p50, p99, max_ns, 0, missed, buckets)


def test_quantiles_are_bucket_bounds() -> None:
    buckets = ((0, 50), (1000, 49), (50_000, 1))
    assert lateness_quantile_ns(buckets, 0.5) == 0
    assert lateness_quantile_ns(buckets, 0.99) == 1000
    assert lateness_quantile_ns(buckets, 1.0) == 50_000
    assert lateness_quantile_ns((), 0.5) == 0


def test_a_window_counts_only_what_it_added() -> None:
    earlier = snapshot(((0, 90), (2_000_000, 10)), 2_000_000, missed=3)
    later = snapshot(((0, 190), (1000, 1), (2_000_000, 10)), 2_000_000, missed=4)
    window = later.since(earlier)
    # The 2 ms outliers were all before the window.
    assert window == EmulationFidelity(101, 0, 0, 1000, 0, 1, ((0, 100), (1000, 1)))

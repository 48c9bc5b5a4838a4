"""Congestion events counted from the tracer's congestion states as Web100 counted its
CongestionSignals: an entry into CWR, Recovery or Loss, and a timeout during recovery."""

import math

import pandas as pd

from p4aqm.report.metrics import congestion_events
from p4aqm.schema import Column

OPEN, DISORDER, CWR, RECOVERY, LOSS = range(5)


def trace(*connections: list[int]) -> pd.DataFrame:
    """One connection per list of ca_state samples, 10 ms apart, given out of time order."""
    rows = [
        {"host": "c1", "src": "10.1.1.1", "sport": 40000 + k, "dst": "10.2.1.1",
         "dport": 5201, Column.REALTIME_NS: t * 10_000_000, "ca_state": state}
        for k, states in enumerate(connections)
        for t, state in enumerate(states)
    ]  # fmt: skip
    return pd.DataFrame(rows[::-1])


def test_each_entry_into_a_reduced_window_counts_once() -> None:
    # Recovery lasting three samples is one event; Disorder alone is none.
    assert congestion_events(trace([OPEN, DISORDER, RECOVERY, RECOVERY, RECOVERY, OPEN])) == 1
    assert congestion_events(trace([OPEN, DISORDER, OPEN, DISORDER, OPEN])) == 0
    assert congestion_events(trace([OPEN, CWR, OPEN, RECOVERY, OPEN, LOSS, OPEN])) == 3


def test_a_timeout_during_recovery_is_another_event() -> None:
    assert congestion_events(trace([OPEN, RECOVERY, LOSS, LOSS, OPEN])) == 2
    # Loss to Recovery is the same episode going on, not a new signal.
    assert congestion_events(trace([OPEN, LOSS, RECOVERY, OPEN])) == 1


def test_summed_over_connections_never_joined_across_them() -> None:
    # The first connection ends in Recovery and the second starts Open: no event there.
    assert congestion_events(trace([OPEN, RECOVERY], [OPEN, OPEN, CWR])) == 2


def test_no_trace_is_not_a_count() -> None:
    assert math.isnan(congestion_events(pd.DataFrame()))

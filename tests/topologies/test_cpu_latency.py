"""The CPU latency limit a dumbbell holds while it runs (p4aqm/topology/cpu_latency.py):
held through /dev/cpu_dma_latency, given back on release and when its holder is killed,
and a bad value refused by name."""

import signal
import subprocess
import sys

import pytest

from p4aqm.topology import DumbbellSpec
from p4aqm.topology.cpu_latency import CpuLatencyError, CpuLatencyLimit, current_limit_us

HOLDER = """
from p4aqm.topology.cpu_latency import CpuLatencyLimit
limit = CpuLatencyLimit(0)
limit.hold()
print("held", flush=True)
input()
"""


def test_the_limit_is_in_force_from_hold_to_release() -> None:
    before = current_limit_us()
    assert before > 0, "another process holds the CPUs at 0 µs already: nothing to show"
    limit = CpuLatencyLimit(0)
    limit.hold()
    try:
        assert current_limit_us() == 0
        limit.hold()  # holding twice keeps one hold
    finally:
        limit.release()
    assert current_limit_us() == before
    limit.release()  # released twice: nothing to do


def test_none_holds_nothing() -> None:
    before = current_limit_us()
    limit = CpuLatencyLimit(None)
    limit.hold()
    assert current_limit_us() == before
    limit.release()


def test_a_killed_holder_leaves_no_limit_behind() -> None:
    before = current_limit_us()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert current_limit_us() == 0
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    assert current_limit_us() == before


@pytest.mark.parametrize("bad", [-1, 2_000_000_001, 1.5, True, "0"])
def test_the_spec_refuses_what_is_not_a_limit(bad: object) -> None:
    with pytest.raises(ValueError, match=r"^cpu_latency_us: "):
        DumbbellSpec(cpu_latency_us=bad).check()  # type: ignore[arg-type]
    with pytest.raises(CpuLatencyError, match=r"^cpu_latency_us: "):
        CpuLatencyLimit(bad)  # type: ignore[arg-type]

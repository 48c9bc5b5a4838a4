"""Where a dumbbell's routers run (p4aqm/topology/cpu_placement.py): "auto" shares one
CPU at low rates, the one holding the fewest routers of running topologies; a CPU this
process may not use is refused by name."""

import os
import subprocess

import pytest

from p4aqm.topology import DumbbellSpec, cpu_placement, registry
from p4aqm.topology.cpu_placement import SHARE_UP_TO_BPS, PlacementError, routers_cpu

CPUS = {0, 1}


@pytest.fixture
def two_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_placement, "allowed_cpus", lambda: CPUS)


@pytest.mark.usefixtures("two_cpus")
def test_auto_takes_the_cpu_with_the_fewest_routers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_placement, "routers_per_cpu", lambda: {})
    assert routers_cpu("auto", 10_000_000) == 1, "the highest-numbered among equals"
    monkeypatch.setattr(cpu_placement, "routers_per_cpu", lambda: {1: 2})
    assert routers_cpu("auto", 10_000_000) == 0
    monkeypatch.setattr(cpu_placement, "routers_per_cpu", lambda: {0: 2, 1: 4})
    assert routers_cpu("auto", 10_000_000) == 0


@pytest.mark.usefixtures("two_cpus")
def test_auto_leaves_fast_routers_to_the_scheduler() -> None:
    assert routers_cpu("auto", SHARE_UP_TO_BPS) is not None
    assert routers_cpu("auto", SHARE_UP_TO_BPS + 1) is None
    assert routers_cpu(None, 10_000_000) is None


def test_auto_with_one_cpu_holds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_placement, "allowed_cpus", lambda: {3})
    assert routers_cpu("auto", 10_000_000) is None


@pytest.mark.usefixtures("two_cpus")
def test_a_cpu_the_process_may_not_use_is_refused() -> None:
    assert routers_cpu(1, 10_000_000) == 1
    with pytest.raises(PlacementError, match=r"^routers_cpu: CPU 2 is not one this process"):
        routers_cpu(2, 10_000_000)


@pytest.mark.parametrize("bad", [-1, "any", True, 1.5])
def test_the_spec_refuses_what_is_not_a_cpu(bad: object) -> None:
    with pytest.raises(ValueError, match=r"^routers_cpu: "):
        DumbbellSpec(routers_cpu=bad).check()  # type: ignore[arg-type]


def test_switches_of_running_topologies_are_counted_by_their_cpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cpu = min(os.sched_getaffinity(0))
    pinned = subprocess.Popen(["sleep", "30"])
    os.sched_setaffinity(pinned.pid, {cpu})
    free = subprocess.Popen(["sleep", "30"])
    try:
        me = registry.OwnedProcess.of(os.getpid(), "owner")
        assert me is not None
        owned = [registry.OwnedProcess.of(p.pid, f"p4aqm switch r{p.pid}") for p in (pinned, free)]
        helper = registry.OwnedProcess.of(pinned.pid, "a helper")
        record = registry.TopologyRecord("t", me, "/tmp", processes=[*owned, helper])  # type: ignore[list-item]
        monkeypatch.setattr(registry, "records", lambda: [record])
        if len(os.sched_getaffinity(0)) > 1:
            assert cpu_placement.routers_per_cpu() == {cpu: 1}, "switches held to one CPU only"
    finally:
        for p in (pinned, free):
            p.kill()
            p.wait()

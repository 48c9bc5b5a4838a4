"""A cgroup of its own for each tuning test: the tuner attaches to it, the test's
processes join it, and whatever still runs in it is killed after the test."""

import os
from collections.abc import Iterator

import pytest

from p4aqm.topology.cgroup import Cgroup, p4aqm_root


@pytest.fixture
def cgroup(request: pytest.FixtureRequest) -> Iterator[Cgroup]:
    root = p4aqm_root()
    assert root is not None, "no cgroup v2 on this machine"
    group = Cgroup(root / f"{request.node.name[:40]}-{os.getpid()}").create()
    try:
        yield group
    finally:
        group.kill()
        group.remove()

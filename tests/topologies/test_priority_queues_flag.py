"""A router starts with the priority queues its port's AQM needs (CBQ's classes), and
with the switch's default of one queue per port otherwise."""

import os

import pytest

if os.geteuid() != 0:
    pytest.skip("Mininet nodes need root", allow_module_level=True)
try:
    import mininet.net  # noqa: F401
except ImportError as exc:
    pytest.skip(
        f"Mininet cannot be imported ({exc}): run scripts/setup.sh", allow_module_level=True
    )

from p4aqm.topology.p4switch import P4AqmSwitch  # noqa: E402


@pytest.mark.parametrize(("queues", "flag"), [(1, []), (3, ["--priority-queues", "3"])])
def test_the_switch_gets_its_priority_queues(queues: int, flag: list[str]) -> None:
    switch = P4AqmSwitch(f"p4pq{queues}", priority_queues=queues)
    try:
        args = switch.switch_args()
    finally:
        switch.stop()
    given = args[args.index("--priority-queues") :][:2] if "--priority-queues" in args else []
    assert given == flag

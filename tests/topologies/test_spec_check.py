"""DumbbellSpec.check() on AQM settings built in Python: a typed discipline config is
taken, anything else is refused naming the field, before anything is built."""

import pytest

from p4aqm.controller import RedConfig
from p4aqm.topology import DumbbellSpec


def test_a_typed_aqm_is_taken_and_its_limit_binds_the_depth() -> None:
    red = RedConfig(min_th=30, max_th=90, max_p=0.1, limit_pkts=480)
    DumbbellSpec(right_to_left_aqm=red).check()
    with pytest.raises(ValueError, match=r"right_to_left_depth_pkts: 400 must exceed"):
        DumbbellSpec(right_to_left_aqm=red, right_to_left_depth_pkts=400).check()


def test_a_mapping_in_place_of_a_discipline_config_is_refused_by_field() -> None:
    spec = DumbbellSpec(left_to_right_aqm={"discipline": "red", "min_th": 5})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^left_to_right_aqm: .* is not a discipline's config"):
        spec.check()


@pytest.mark.parametrize("priority", [0, 100])
def test_a_realtime_priority_outside_sched_fifo_s_range_is_refused(priority: int) -> None:
    with pytest.raises(ValueError, match=rf"^router_realtime_priority: {priority} is not 1..99"):
        DumbbellSpec(router_realtime_priority=priority).check()
    DumbbellSpec(router_realtime_priority=None).check()

"""RED's state on the output port (red.p4, and ared.p4, which keeps RED's names), read
back per packet."""

from dataclasses import dataclass

from aqm_switch import OUT_PORT, read_register, signed_count

from p4aqm.switch._dataplane import Dataplane

RED_COUNTERS = tuple(
    f"MyIngress.red_enqueue.{name}"
    for name in ("marks", "early_drops", "forced_drops", "overflow_drops")
)


@dataclass(frozen=True)
class RedState:
    avg: int
    count: int
    q_r: int
    occupancy: int
    idle_since_us: int


def read_state(dp: Dataplane, cell: int = OUT_PORT) -> RedState:
    """The RED core's state of a cell (a port, or one of CBT's classes)."""
    return RedState(
        avg=read_register(dp, "red_avg", cell),
        count=signed_count(read_register(dp, "red_count", cell)),
        q_r=read_register(dp, "red_q_r", cell),
        occupancy=read_register(dp, "aqm_occupancy", cell),
        idle_since_us=read_register(dp, "aqm_idle_since", cell),
    )


def read_counters(dp: Dataplane) -> tuple[int, ...]:
    return tuple(dp.counter_read(name, OUT_PORT)[1] for name in RED_COUNTERS)

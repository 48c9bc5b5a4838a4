"""fred.p4's state on the output port, read back per packet."""

from dataclasses import dataclass

from aqm_switch import OUT_PORT, read_register
from red_switch import RedState
from red_switch import read_state as read_red_state

from p4aqm.switch._dataplane import Dataplane

FRED_COUNTERS = (
    "MyIngress.fred_flow_drops",
    "MyIngress.fred_early_drops",
    "MyIngress.fred_forced_drops",
    "MyIngress.fred_overflow_drops",
)


@dataclass(frozen=True)
class FredState:
    red: RedState
    nactive: int


def read_state(dp: Dataplane) -> FredState:
    return FredState(read_red_state(dp), read_register(dp, "fred_nactive", OUT_PORT))


def read_flow(dp: Dataplane, slot: int) -> tuple[int, int]:
    """(occupancy, strikes) of one flow slot."""
    return (
        read_register(dp, "fred_flow_occupancy", slot),
        read_register(dp, "fred_flow_strikes", slot),
    )


def read_counters(dp: Dataplane) -> tuple[int, ...]:
    return tuple(dp.counter_read(name, OUT_PORT)[1] for name in FRED_COUNTERS)

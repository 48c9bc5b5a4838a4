"""cbt.p4 on the output port: the config the tests run and its state read back."""

from dataclasses import dataclass

from aqm_switch import OUT_PORT, read_register
from red_switch import RedState
from red_switch import read_state as read_cell

from p4aqm.controller.disciplines.cbt import CELLS_PER_PORT, TOTAL_CELL, CbtClassRule, CbtConfig
from p4aqm.models.cbt import CbtDecision, CbtTables, TrafficClass
from p4aqm.switch._dataplane import Dataplane

# The marked class in these tests: UDP with DSCP EF (46), as a multimedia sender marks.
DSCP_EF = 46
IP_PROTO_TCP, IP_PROTO_UDP = 6, 17
MARKED_RULE = CbtClassRule(traffic_class="marked", protocol=IP_PROTO_UDP, dscp=DSCP_EF)

DECISION_COUNTERS = {
    CbtDecision.MARK: "MyIngress.cbt_marks",
    CbtDecision.DROP_EARLY: "MyIngress.cbt_early_drops",
    CbtDecision.DROP_FORCED: "MyIngress.cbt_forced_drops",
    CbtDecision.DROP_THRESHOLD: "MyIngress.cbt_threshold_drops",
    CbtDecision.DROP_OVERFLOW: "MyIngress.cbt_overflow_drops",
}


def cbt_config(**settings: object) -> CbtConfig:
    """CBT as the controller takes it: TCP is the TCP class, UDP with DSCP EF the marked
    class, and everything else unmarked."""
    return CbtConfig(discipline="cbt", classes=[MARKED_RULE], **settings)


def cbt_tables(aqm: CbtConfig) -> CbtTables:
    return CbtTables.from_params(aqm.cbt_params())


def cell(traffic_class: TrafficClass) -> int:
    """The register and counter index of a class on OUT_PORT."""
    return OUT_PORT * CELLS_PER_PORT + traffic_class


TOTAL = OUT_PORT * CELLS_PER_PORT + TOTAL_CELL


@dataclass(frozen=True)
class CbtState:
    occupancy: int  # the port's total
    classes: dict[TrafficClass, RedState]


def read_state(dp: Dataplane) -> CbtState:
    return CbtState(
        occupancy=read_register(dp, "aqm_occupancy", TOTAL),
        classes={c: read_cell(dp, cell(c)) for c in TrafficClass},
    )


def read_counters(dp: Dataplane) -> dict[tuple[CbtDecision, TrafficClass], int]:
    return {
        (decision, c): dp.counter_read(name, cell(c))[1]
        for decision, name in DECISION_COUNTERS.items()
        for c in TrafficClass
    }

"""codel.p4 on our switch against the reference model, bit for bit, over 100,000 packets.

Both see the same arrivals (times and ECN codepoints, from a seeded generator that
alternates overload, underload and idle gaps, so that CoDel enters, leaves and resumes
its dropping state many times) and the same departures: the switch's traffic manager
draining at a fixed rate in virtual time, which the test steps to every departure. Each
departure's sojourn time and the packets it leaves behind are the schedule's; the
decision (from the program's counters) and CoDel's registers after every departure, and
the ingress limit's decision after every arrival, must equal the model's.
"""

import random
from collections.abc import Callable

import pytest
from aqm_switch import OUT_PORT, aqm_dataplane, read_register
from schedule import DepartureSchedule, ecn_frames, phased_gaps_us

from p4aqm.controller.disciplines import CodelConfig
from p4aqm.models.codel import CodelDecision, CodelQueue, CodelTables
from p4aqm.switch._dataplane import Dataplane
from programs import CompiledProgram

PACKETS = 100_000
SERVICE_US = 1000  # the bottleneck drains 1000 packets/s
COUNTERS = ("MyEgress.marks", "MyEgress.drops", "MyIngress.overflow_drops")
STATE = (
    "codel_first_above_time",
    "codel_dropping",
    "codel_count",
    "codel_lastcount",
    "codel_drop_next",
    "codel_sojourn_us",
    "aqm_occupancy",
)


@pytest.fixture(scope="module")
def codel_program(p4src_program: Callable[[str], CompiledProgram]) -> CompiledProgram:
    return p4src_program("codel")


def model_state(model: CodelQueue) -> tuple[int, ...]:
    return (
        model.first_above_time_us,
        int(model.dropping),
        model.count,
        model.lastcount,
        model.drop_next_us,
        model.sojourn_us,
        model.occupancy,
    )


class Lockstep:
    """The switch and the model, compared after every event."""

    def __init__(self, dp: Dataplane, model: CodelQueue) -> None:
        self.dp = dp
        self.model = model
        self.schedule = DepartureSchedule(SERVICE_US)
        self.counters = self.read_counters()
        self.seen: dict[CodelDecision | str, int] = {}
        self.highest_count = 0

    def read_counters(self) -> tuple[int, ...]:
        return tuple(self.dp.counter_read(name, OUT_PORT)[1] for name in COUNTERS)

    def changed(self) -> list[int]:
        after = self.read_counters()
        moved = [i for i, (b, a) in enumerate(zip(self.counters, after, strict=True)) if a != b]
        self.counters = after
        return moved

    def check_state(self, what: str) -> None:
        state = tuple(read_register(self.dp, name, OUT_PORT) for name in STATE)
        assert state == model_state(self.model), what

    def departures(self, now_us: int) -> None:
        due = self.schedule.due(now_us)
        for i, (depart_us, arrived_us, ect) in enumerate(due):
            self.dp.advance_time(depart_us - self.dp.now_us())
            left = len(self.schedule.pending) + len(due) - i - 1
            was_dropping = self.model.dropping
            decision = self.model.depart(depart_us, depart_us - arrived_us, left, ect)
            moved = self.changed()
            expected = {CodelDecision.MARK: [0], CodelDecision.DROP: [1]}.get(decision, [])
            assert moved == expected, f"departure at {depart_us} us: {decision}"
            self.check_state(f"after the departure at {depart_us} us")
            self.seen[decision] = self.seen.get(decision, 0) + 1
            self.highest_count = max(self.highest_count, self.model.count)
            if decision is not CodelDecision.PASS and not was_dropping and self.model.count > 1:
                self.seen["resumed"] = self.seen.get("resumed", 0) + 1

    def arrival(self, now_us: int, ecn: int, frame: bytes) -> None:
        self.dp.inject(1, frame)
        admitted = self.model.arrive()
        assert self.changed() == ([] if admitted else [2]), f"arrival at {now_us} us"
        if admitted:
            self.schedule.admit(now_us, now_us, ecn != 0)
        self.departures(now_us)  # an idle queue: it leaves at once
        self.check_state(f"after the arrival at {now_us} us")


def run_lockstep(
    program: CompiledProgram,
    aqm: CodelConfig,
    packets: int,
    prepare: Callable[[Dataplane, CodelQueue], None] | None = None,
) -> Lockstep:
    """`packets` arrivals; prepare(dp, model), if given, first sets both to a state."""
    dp = aqm_dataplane(program, aqm, rate_pps=1e6 / SERVICE_US, seed=7)
    model = CodelQueue(CodelTables.from_params(aqm.params()))
    if prepare is not None:
        prepare(dp, model)
    run = Lockstep(dp, model)
    rng = random.Random(11)
    kinds = ecn_frames()
    now_us = 0
    for gap in phased_gaps_us(rng, packets, 600, 200_000, 800):
        now_us += gap
        run.departures(now_us)
        dp.advance_time(now_us - dp.now_us())
        dp.take_output()
        ecn = rng.choice((0, 1, 2))
        run.arrival(now_us, ecn, kinds[ecn])
    return run


@pytest.mark.parametrize(
    "aqm",
    [
        CodelConfig(target_us=5000, interval_us=100_000, limit_pkts=200),
        CodelConfig(target_us=3000, interval_us=50_000, limit_pkts=200, ecn=True),
    ],
    ids=["codel", "codel-ecn"],
)
def test_program_matches_model(codel_program: CompiledProgram, aqm: CodelConfig) -> None:
    run = run_lockstep(codel_program, aqm, PACKETS)
    seen = run.seen
    # The workload must have visited every branch: drops, resumed counts, marks with ECN.
    assert seen.get(CodelDecision.DROP, 0) > 100
    assert seen.get("resumed", 0) >= 10
    if aqm.ecn:
        assert seen.get(CodelDecision.MARK, 0) > 100

"""pie.p4 on our switch against the reference model, bit for bit, over 100,000 packets.

Both see the same arrivals (times and ECN codepoints, from a seeded generator that
alternates overload, underload and idleness, so that the drop probability rises through
every scaling band, decays, and the burst allowance is spent and restored), the same
departures (the traffic manager draining at a fixed rate in virtual time; the test steps
to each, as the program's qdelay is the last departure's sojourn), and the same random
numbers: the model's draw() returns the u the program kept in pie_u. The decision of
every arrival (from the program's counters) and PIE's registers after every event must
equal the model's.
"""

import random
from collections.abc import Callable

import pytest
from aqm_switch import OUT_PORT, aqm_dataplane, read_register
from schedule import DepartureSchedule, ecn_frames, phased_gaps_us

from p4aqm.controller.disciplines import PieConfig
from p4aqm.models.pie import PieDecision, PieQueue, PieTables, prob
from p4aqm.switch._dataplane import Dataplane
from programs import CompiledProgram

PACKETS = 100_000
SERVICE_US = 1000  # the bottleneck drains 1000 packets/s
COUNTERS = ("MyIngress.marks", "MyIngress.early_drops", "MyIngress.overflow_drops")
DECISION_OF_COUNTER = (PieDecision.MARK, PieDecision.DROP_EARLY, PieDecision.DROP_OVERFLOW)
STATE = (
    "pie_drop_prob",
    "pie_qdelay_us",
    "pie_qdelay_old_us",
    "pie_burst_allowance_us",
    "pie_next_update_us",
    "aqm_occupancy",
)


@pytest.fixture(scope="module")
def pie_program(p4src_program: Callable[[str], CompiledProgram]) -> CompiledProgram:
    return p4src_program("pie")


def model_state(model: PieQueue) -> tuple[int, ...]:
    return (
        model.drop_prob,
        model.qdelay_us,
        model.qdelay_old_us,
        model.burst_allowance_us,
        model.next_update_us,
        model.occupancy,
    )


class Lockstep:
    """The switch and the model, compared after every event."""

    def __init__(self, dp: Dataplane, model: PieQueue) -> None:
        self.dp = dp
        self.model = model
        self.schedule = DepartureSchedule(SERVICE_US)
        self.counters = self.read_counters()
        self.seen: dict[PieDecision, int] = dict.fromkeys(PieDecision, 0)
        self.highest_prob = 0

    def read_counters(self) -> tuple[int, ...]:
        return tuple(self.dp.counter_read(name, OUT_PORT)[1] for name in COUNTERS)

    def check_state(self, what: str) -> None:
        state = tuple(read_register(self.dp, name, OUT_PORT) for name in STATE)
        assert state == model_state(self.model), what

    def departures(self, now_us: int) -> None:
        due = self.schedule.due(now_us)
        for i, (depart_us, arrived_us) in enumerate(due):
            self.dp.advance_time(depart_us - self.dp.now_us())
            left = len(self.schedule.pending) + len(due) - i - 1
            self.model.depart(depart_us - arrived_us, left)
            self.check_state(f"after the departure at {depart_us} us")

    def arrival(self, now_us: int, ect: bool, frame: bytes) -> None:
        self.dp.inject(1, frame)
        u = read_register(self.dp, "pie_u", OUT_PORT)
        decision = self.model.arrive(now_us, ect, lambda: u)
        after = self.read_counters()
        pairs = zip(DECISION_OF_COUNTER, self.counters, after, strict=True)
        changed = [kind for kind, before, now in pairs if now != before]
        self.counters = after
        assert changed == ([] if decision is PieDecision.ENQUEUE else [decision]), now_us
        if decision in (PieDecision.ENQUEUE, PieDecision.MARK):
            self.schedule.admit(now_us, now_us)
        self.departures(now_us)  # an idle queue: it leaves at once
        self.check_state(f"after the arrival at {now_us} us")
        self.seen[decision] += 1
        self.highest_prob = max(self.highest_prob, self.model.drop_prob)


def run_lockstep(
    program: CompiledProgram,
    aqm: PieConfig,
    packets: int,
    prepare: Callable[[Dataplane, PieQueue], None] | None = None,
) -> Lockstep:
    """`packets` arrivals; prepare(dp, model), if given, first sets both to a state."""
    dp = aqm_dataplane(program, aqm, rate_pps=1e6 / SERVICE_US, seed=7)
    model = PieQueue(PieTables.from_params(aqm.params()))
    if prepare is not None:
        prepare(dp, model)
    run = Lockstep(dp, model)
    rng = random.Random(13)
    kinds = ecn_frames()
    now_us = 0
    for gap in phased_gaps_us(rng, packets, 500, 300_000, 1500):
        now_us += gap
        run.departures(now_us)
        dp.advance_time(now_us - dp.now_us())
        dp.take_output()
        ecn = rng.choice((0, 1, 2))
        run.arrival(now_us, ecn != 0, kinds[ecn])
    return run


@pytest.mark.parametrize(
    "aqm",
    [
        PieConfig(limit_pkts=200),
        PieConfig(
            target_us=5000, t_update_us=10_000, max_burst_us=50_000, limit_pkts=150, ecn=True
        ),
    ],
    ids=["pie", "pie-ecn"],
)
def test_program_matches_model(pie_program: CompiledProgram, aqm: PieConfig) -> None:
    run = run_lockstep(pie_program, aqm, PACKETS)
    # The workload must have visited every region: early drops, past the 10 % band where
    # the 2 % cap applies, and marks with ECN.
    assert run.seen[PieDecision.DROP_EARLY] > 100
    assert run.highest_prob > prob(0.1)
    if aqm.ecn:
        assert run.seen[PieDecision.MARK] > 100

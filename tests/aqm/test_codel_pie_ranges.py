"""CoDel's and PIE's ranges at their boundaries on the program: the largest values a
config accepts run bit-exactly against the model, with the state held where the
arithmetic is widest. (Past the bounds the configs are refused, naming the field:
tests/controller/test_codel_pie_config.py.)"""

from collections.abc import Callable

from aqm_switch import OUT_PORT
from test_codel_exact import run_lockstep as codel_lockstep
from test_pie_exact import run_lockstep as pie_lockstep

from p4aqm.controller.disciplines import CodelConfig, PieConfig
from p4aqm.models.codel import CodelDecision, CodelQueue
from p4aqm.models.fixed_point import REGISTER_MAX
from p4aqm.models.pie import MAX_GAIN_PER_S, PROB_MAX, PieDecision, PieQueue
from p4aqm.switch._dataplane import Dataplane
from programs import CompiledProgram

Programs = Callable[[str], CompiledProgram]
PACKETS = 5000


def hold(dp: Dataplane, name: str, value: int, width_bytes: int = 4) -> None:
    dp.register_write(name, OUT_PORT, value.to_bytes(width_bytes, "big"))


def test_codel_at_its_largest_count(p4src_program: Programs) -> None:
    """count resumed at 2^32 - 2 (the last drop_next held in the future), the control law
    from the table's last bins, and count saturating at 2^32 - 1."""

    def prepare(dp: Dataplane, model: CodelQueue) -> None:
        hold(dp, "codel_count", REGISTER_MAX - 1)
        hold(dp, "codel_drop_next", 1 << 47, 6)
        model.count, model.drop_next_us = REGISTER_MAX - 1, 1 << 47

    aqm = CodelConfig(target_us=1000, interval_us=100_000, limit_pkts=200)
    run = codel_lockstep(p4src_program("codel"), aqm, PACKETS, prepare)
    assert run.seen.get(CodelDecision.DROP, 0) > 10
    assert run.highest_count == REGISTER_MAX


def test_codel_at_its_largest_interval_and_target(p4src_program: Programs) -> None:
    """interval 2^32 - 1 us: first_above_time more than 2^32 us ahead, in 48 bits; and a
    target of 2^32 - 1 us is never reached."""
    for target_us in (1, REGISTER_MAX):
        aqm = CodelConfig(target_us=target_us, interval_us=REGISTER_MAX, limit_pkts=200)
        run = codel_lockstep(p4src_program("codel"), aqm, PACKETS)
        assert set(run.seen) == {CodelDecision.PASS}
        assert (run.model.first_above_time_us > REGISTER_MAX) == (target_us == 1)


def test_pie_at_its_largest_gains(p4src_program: Programs) -> None:
    """alpha = beta = 16/s: with qdelay_old held at 2^32 - 1 us the first step is the
    widest fall (2^58 before the shift); then the probability rises to 1 and is held there."""

    def prepare(dp: Dataplane, model: PieQueue) -> None:
        hold(dp, "pie_qdelay_old_us", REGISTER_MAX)
        model.qdelay_old_us = REGISTER_MAX

    aqm = PieConfig(
        target_us=1, t_update_us=1000, alpha=MAX_GAIN_PER_S, beta=MAX_GAIN_PER_S, limit_pkts=200
    )
    run = pie_lockstep(p4src_program("pie"), aqm, PACKETS, prepare)
    assert run.highest_prob == PROB_MAX
    assert run.seen[PieDecision.DROP_EARLY] > 100


def test_pie_at_its_largest_times(p4src_program: Programs) -> None:
    """target, t_update and max_burst 2^32 - 1 us: next_update 2^32 us ahead in 48 bits,
    the burst allowance never spent; only the limit drops."""
    aqm = PieConfig(
        target_us=REGISTER_MAX,
        t_update_us=REGISTER_MAX,
        max_burst_us=REGISTER_MAX,
        limit_pkts=50,
    )
    run = pie_lockstep(p4src_program("pie"), aqm, PACKETS)
    assert run.model.burst_allowance_us == REGISTER_MAX
    assert run.seen[PieDecision.DROP_EARLY] == 0 and run.seen[PieDecision.DROP_OVERFLOW] > 0

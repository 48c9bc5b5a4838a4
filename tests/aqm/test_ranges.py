"""Every range check of p4aqm/models/fixed_point.py at its boundary: the largest value a
config accepts runs bit-exactly against the model on the program, with the state held
where the arithmetic is widest, and the next value is refused with a message naming the
field, the value and the largest allowed."""

from collections.abc import Callable

import pytest
from aqm_switch import IN_PORT, OUT_PORT, aqm_dataplane, read_register
from cbt_switch import DSCP_EF, cbt_config, cbt_tables, cell
from pydantic import ValidationError
from red_switch import read_state
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import Ether
from schedule import DepartureSchedule

from p4aqm.controller.disciplines import AredConfig, DropTailConfig, FredConfig, RedConfig
from p4aqm.models.ared import AredQueue, AredTables
from p4aqm.models.cbt import CbtDecision, CbtQueue, TrafficClass
from p4aqm.models.droptail import DropTailQueue
from p4aqm.models.fixed_point import (
    COUNT_NONE,
    MAX_LIMIT_PKTS,
    MAX_TH_GENTLE_PKTS,
    MAX_TH_PKTS,
    MAX_TIME_US,
    MAX_W_SHIFT,
    REGISTER_MAX,
    packets_to_avg,
)
from p4aqm.models.fred import FRED_MAX_LIMIT_PKTS, FiveTuple, FredQueue, FredTables
from p4aqm.models.red import RedQueue, RedTables
from p4aqm.switch._dataplane import Dataplane
from programs import CompiledProgram

Programs = Callable[[str], CompiledProgram]
PACKETS = 400
SERVICE_US = 100  # departures interleave with arrivals 30 us apart
GAP_US = 30
SMALLEST_W_Q = 2.0**-MAX_W_SHIFT


def frame(ecn: int = 0, dscp: int = 0, tcp: bool = False, sport: int = 5000) -> bytes:
    ip = IP(src="10.0.1.1", dst="10.0.2.1", tos=dscp << 2 | ecn)
    l4 = TCP(sport=sport, dport=80) if tcp else UDP(sport=sport, dport=5001)
    return bytes(Ether() / ip / l4 / (b"x" * 18))


def hold(dp: Dataplane, name: str, index: int, value: int, width_bytes: int = 4) -> None:
    dp.register_write(name, index, value.to_bytes(width_bytes, "big"))


def run(
    dp: Dataplane,
    arrive: Callable[[int, int, Callable[[], int]], object],
    depart: Callable[[int, object], None],
    admitted: Callable[[object], bool],
    check: Callable[[int], None],
    q_r: Callable[[], int],
    kinds: int,
) -> list[object]:
    """PACKETS arrivals of `kinds` alternating kinds, the model stepped with the program.
    arrive(now, kind, draw) injects the packet and gives the model's decision, draw()
    reading the q_r the program kept; each admitted packet departs on the traffic
    manager's schedule; check(index) compares the state after each packet."""
    schedule = DepartureSchedule(SERVICE_US)
    decisions = []
    now_us = 0
    for index in range(PACKETS):
        now_us += GAP_US
        dp.advance_time(now_us - dp.now_us())
        dp.take_output()
        for departure in schedule.due(now_us):
            depart(*departure)
        kind = index % kinds
        decision = arrive(now_us, kind, q_r)
        decisions.append(decision)
        if admitted(decision):
            schedule.admit(now_us, kind)
            for departure in schedule.due(now_us):
                depart(*departure)
        check(index)
    return decisions


def red_case(dp: Dataplane, model: RedQueue, occupancy: int, avg: int) -> list[object]:
    """RED (or ARED) held at `occupancy` and `avg`, then run against the model."""
    hold(dp, "aqm_occupancy", OUT_PORT, occupancy)
    hold(dp, "red_avg", OUT_PORT, avg)
    hold(dp, "red_count", OUT_PORT, COUNT_NONE)  # the model starts off the ramp, at -1
    model.occupancy, model.avg = occupancy, avg
    frames = [frame(ecn=0), frame(ecn=2)]

    def arrive(now_us: int, kind: int, draw: Callable[[], int]) -> object:
        dp.inject(IN_PORT, frames[kind])
        return model.arrive(now_us, kind == 1, draw)

    def check(index: int) -> None:
        state = read_state(dp)
        expected = (model.avg, model.count, model.q_r, model.occupancy, model.idle_since_us)
        assert (state.avg, state.count, state.q_r, state.occupancy, state.idle_since_us) == (
            expected
        ), f"packet {index}"

    return run(
        dp,
        arrive,
        lambda now_us, _: model.depart(now_us),
        lambda d: d.name in ("ENQUEUE", "MARK"),
        check,
        lambda: read_register(dp, "red_q_r", OUT_PORT),
        kinds=2,
    )


def red_tables_and_dp(program: CompiledProgram, aqm: RedConfig) -> tuple[Dataplane, RedQueue]:
    dp = aqm_dataplane(program, aqm, rate_pps=1e6 / SERVICE_US, seed=5)
    return dp, RedQueue(RedTables.from_params(aqm.params()))


# ---- RED: limit_pkts, max_th (with and without gentle), w_q ---------------------------


def test_red_at_its_largest_limit_and_max_th(p4src_program: Programs) -> None:
    """occupancy << 16 and max_th << 16 at the top of 32 bits, and the smallest w_q."""
    aqm = RedConfig(
        discipline="red",
        min_th=MAX_TH_PKTS - 40,
        max_th=MAX_TH_PKTS,
        max_p=0.5,
        w_q=SMALLEST_W_Q,
        limit_pkts=MAX_LIMIT_PKTS,
        ecn=True,
    )
    dp, model = red_tables_and_dp(p4src_program("red"), aqm)
    # On the ramp, the queue one packet short of the limit: marks, early drops, overflows.
    decisions = red_case(dp, model, MAX_LIMIT_PKTS - 1, packets_to_avg(MAX_TH_PKTS - 20))
    assert {d.name for d in decisions} >= {"MARK", "DROP_EARLY", "DROP_OVERFLOW"}


def test_red_gentle_at_its_largest_max_th(p4src_program: Programs) -> None:
    aqm = RedConfig(
        discipline="red",
        min_th=MAX_TH_GENTLE_PKTS - 100,
        max_th=MAX_TH_GENTLE_PKTS,
        max_p=0.1,
        w_q=1 / 64,
        limit_pkts=MAX_LIMIT_PKTS,
        gentle=True,
    )
    dp, model = red_tables_and_dp(p4src_program("red"), aqm)
    ramp_end = 2 * packets_to_avg(MAX_TH_GENTLE_PKTS)
    # Just below the end of gentle's ramp, the queue full: the average crosses it.
    decisions = red_case(dp, model, MAX_LIMIT_PKTS, ramp_end - 3 * (1 << 16))
    assert {d.name for d in decisions} >= {"DROP_EARLY", "DROP_FORCED"}


@pytest.mark.parametrize(
    ("discipline", "change", "message"),
    [
        (
            "red",
            {"limit_pkts": 65536},
            "limit_pkts = 65536 is too large: the largest allowed is 65535",
        ),
        ("red", {"max_th": 65536}, "max_th = 65536 is too large: the largest allowed is 65535"),
        (
            "red",
            {"max_th": 32768, "gentle": True},
            "max_th = 32768 is too large: the largest allowed is 32767",
        ),
        ("red", {"w_q": SMALLEST_W_Q / 2}, "w_q = 2.32831e-10 is too small"),
        ("ared", {"limit_pkts": 65536}, "limit_pkts = 65536 is too large"),
        ("ared", {"max_th": 32768}, "max_th = 32768 is too large: the largest allowed is 32767"),
    ],
)
def test_red_past_its_ranges_is_refused(discipline: str, change: dict, message: str) -> None:
    model = {"red": RedConfig, "ared": AredConfig}[discipline]
    values = {"discipline": discipline, "min_th": 5, "max_th": 15, "max_p": 0.1, **change}
    with pytest.raises(ValidationError, match=message):
        model(**values)


# ---- ARED: interval ------------------------------------------------------------------


def test_ared_at_its_largest_interval_and_max_th(p4src_program: Programs) -> None:
    interval_s = MAX_TIME_US / 1e6
    aqm = AredConfig(
        discipline="ared",
        min_th=MAX_TH_GENTLE_PKTS - 100,
        max_th=MAX_TH_GENTLE_PKTS,
        w_q=1 / 2,
        limit_pkts=MAX_LIMIT_PKTS,
        interval_s=interval_s,
    )
    program = p4src_program("ared")
    dp = aqm_dataplane(program, aqm, rate_pps=1e6 / SERVICE_US, seed=5)
    tables = AredTables.from_params(aqm.params())
    assert tables.interval_us == MAX_TIME_US
    model = AredQueue.of(tables)
    ramp_end = 2 * packets_to_avg(MAX_TH_GENTLE_PKTS)
    red_case(dp, model, MAX_LIMIT_PKTS, ramp_end - 3 * (1 << 16))
    # now + interval wraps in bit<48>, in the model as in the program.
    next_adapt = read_register(dp, "ared_next_adapt", OUT_PORT)
    assert (read_register(dp, "ared_max_p", OUT_PORT), next_adapt) == (
        model.max_p,
        model.next_adapt_us,
    )
    with pytest.raises(ValidationError, match=r"interval \(us\) = .* the largest allowed is"):
        AredConfig(discipline="ared", min_th=5, max_th=15, interval_s=(MAX_TIME_US + 1) / 1e6)


# ---- CBT: class thresholds and the port's limit ----------------------------------------


def test_cbt_at_its_largest_thresholds_and_limit(p4src_program: Programs) -> None:
    largest = {"marked_th": MAX_TH_PKTS, "unmarked_th": MAX_TH_PKTS}
    aqm = cbt_config(
        min_th=5, max_th=15, max_p=0.1, w_q=1 / 16, limit_pkts=MAX_LIMIT_PKTS, **largest
    )
    dp = aqm_dataplane(p4src_program("cbt"), aqm, rate_pps=1e6 / SERVICE_US, seed=5)
    model = CbtQueue(cbt_tables(aqm))
    total = OUT_PORT * 4 + 3
    hold(dp, "aqm_occupancy", total, MAX_LIMIT_PKTS - 1)
    model.occupancy = MAX_LIMIT_PKTS - 1
    classes = (TrafficClass.MARKED, TrafficClass.UNMARKED)
    for c in classes:
        # A class average above its threshold (it falls below with the arrivals), and an
        # occupancy as high as the port's.
        hold(dp, "aqm_occupancy", cell(c), MAX_LIMIT_PKTS - 1)
        hold(dp, "red_avg", cell(c), REGISTER_MAX)
        model.classes[c].occupancy = MAX_LIMIT_PKTS - 1
        model.classes[c].avg = REGISTER_MAX
    frames = [frame(dscp=DSCP_EF), frame()]

    def arrive(now_us: int, kind: int, draw: Callable[[], int]) -> object:
        dp.inject(IN_PORT, frames[kind])
        return model.arrive(now_us, classes[kind], False, draw)

    def check(index: int) -> None:
        assert read_register(dp, "aqm_occupancy", total) == model.occupancy, index
        for c in classes:
            state = read_state(dp, cell(c))
            queue = model.classes[c]
            assert (state.avg, state.occupancy) == (queue.avg, queue.occupancy), (index, c)

    decisions = run(
        dp,
        arrive,
        lambda now_us, kind: model.depart(now_us, classes[kind]),
        lambda d: d in (CbtDecision.ENQUEUE, CbtDecision.MARK),
        check,
        lambda: 0,
        kinds=2,
    )
    assert {CbtDecision.DROP_THRESHOLD, CbtDecision.DROP_OVERFLOW} <= set(decisions)
    for field in ("marked_th", "unmarked_th"):
        with pytest.raises(ValidationError, match=f"{field} = 65536 is too large"):
            cbt_config(min_th=5, max_th=15, max_p=0.1, **{**largest, field: MAX_TH_PKTS + 1})


# ---- FRED: limit, min_q, max_q ---------------------------------------------------------


def test_fred_at_its_largest_limit_min_q_and_max_q(p4src_program: Programs) -> None:
    aqm = FredConfig(
        discipline="fred",
        min_th=FRED_MAX_LIMIT_PKTS - 200,
        max_th=FRED_MAX_LIMIT_PKTS - 100,
        max_p=0.5,
        w_q=2.0**-20,
        limit_pkts=FRED_MAX_LIMIT_PKTS,
        min_q=MAX_TH_PKTS,
        max_q=REGISTER_MAX,
        flow_slots=4,
    )
    dp = aqm_dataplane(p4src_program("fred"), aqm, rate_pps=1e6 / SERVICE_US, seed=5)
    tables = FredTables.from_params(aqm.params())
    model = FredQueue(tables.red, fred=tables)
    sports = (5000, 5001)
    slots = [tables.slot(FiveTuple(0x0A000101, 0x0A000201, 17, s, 5001)) for s in sports]
    assert len(set(slots)) == 2
    # The port one packet short of its limit, its average held low (w_q is tiny) so that
    # RED admits: the limit decides.
    held, avg = FRED_MAX_LIMIT_PKTS - 1, packets_to_avg(100)
    hold(dp, "aqm_occupancy", OUT_PORT, held)
    hold(dp, "red_avg", OUT_PORT, avg)
    hold(dp, "fred_nactive", OUT_PORT, 2)
    hold(dp, "red_count", OUT_PORT, COUNT_NONE)
    model.occupancy, model.avg, model.nactive = held, avg, 2
    for slot, flow_held in zip(slots, (held - 10, 10), strict=True):
        hold(dp, "fred_flow_occupancy", slot, flow_held)
        model.flow_occupancy[slot] = flow_held
    frames = [frame(sport=s) for s in sports]

    def arrive(now_us: int, kind: int, draw: Callable[[], int]) -> object:
        dp.inject(IN_PORT, frames[kind])
        return model.arrive_flow(now_us, slots[kind], draw)

    def check(index: int) -> None:
        state = read_state(dp)
        assert (state.avg, state.count, state.q_r, state.occupancy) == (
            model.avg,
            model.count,
            model.q_r,
            model.occupancy,
        ), index
        assert read_register(dp, "fred_nactive", OUT_PORT) == model.nactive, index
        for slot in slots:
            got = read_register(dp, "fred_flow_occupancy", slot)
            assert got == model.flow_occupancy.get(slot, 0), (index, slot)

    decisions = run(
        dp,
        arrive,
        lambda now_us, kind: model.depart_flow(now_us, slots[kind]),
        lambda d: d.name == "ENQUEUE",
        check,
        lambda: read_register(dp, "red_q_r", OUT_PORT),
        kinds=2,
    )
    assert {d.name for d in decisions} >= {"ENQUEUE", "DROP_OVERFLOW"}
    base = {"discipline": "fred", "min_th": 5, "max_th": 15, "max_p": 0.1}
    for change, field, largest in (
        ({"limit_pkts": FRED_MAX_LIMIT_PKTS + 1}, "limit_pkts", FRED_MAX_LIMIT_PKTS),
        ({"min_q": MAX_TH_PKTS + 1}, "min_q", MAX_TH_PKTS),
        ({"max_q": REGISTER_MAX + 1}, "max_q", REGISTER_MAX),
    ):
        with pytest.raises(ValidationError, match=f"{field} = .* largest allowed is {largest}"):
            FredConfig(**base, **change)


# ---- DropTail: limit -------------------------------------------------------------------


def test_droptail_at_its_largest_limit(p4src_program: Programs) -> None:
    aqm = DropTailConfig(discipline="droptail", limit_pkts=REGISTER_MAX)
    dp = aqm_dataplane(p4src_program("droptail"), aqm, rate_pps=1e6 / SERVICE_US, seed=5)
    model = DropTailQueue(REGISTER_MAX, occupancy=REGISTER_MAX - 3)
    hold(dp, "aqm_occupancy", OUT_PORT, REGISTER_MAX - 3)
    udp = frame()

    def arrive(now_us: int, kind: int, draw: Callable[[], int]) -> object:
        dp.inject(IN_PORT, udp)
        return model.arrive()

    def check(index: int) -> None:
        assert read_register(dp, "aqm_occupancy", OUT_PORT) == model.occupancy, index

    decisions = run(
        dp, arrive, lambda now_us, kind: model.depart(), bool, check, lambda: 0, kinds=1
    )
    assert True in decisions and False in decisions
    with pytest.raises(ValidationError, match="less than or equal to 4294967295"):
        DropTailConfig(discipline="droptail", limit_pkts=REGISTER_MAX + 1)

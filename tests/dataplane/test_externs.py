"""Registers, counters, meters, digests, multicast and clones through
fixtures/externs.p4 (see its header comment for what each op does)."""

import struct

import pytest

from p4aqm.switch._dataplane import Dataplane

OP = struct.Struct("!BHBHB")
GREEN, YELLOW, RED = 0, 1, 2
FWD = "XIngress.fwd"


def op(code: int, arg: int = 0, size: int = 100) -> bytes:
    head = OP.pack(code, arg, 0xFF, 0, 0xFF)
    return head + bytes(size - len(head))


def fields(pkt: bytes) -> dict[str, int]:
    code, arg, color, rid, itype = OP.unpack(pkt[: OP.size])
    return {"op": code, "arg": arg, "color": color, "rid": rid, "itype": itype}


@pytest.fixture
def dp(externs_json: bytes) -> Dataplane:
    d = Dataplane(cpu_port=64, virtual_time=True)
    for p in (1, 2, 3, 4):
        d.add_memory_port(p)
    d.load_pipeline(externs_json)
    return d


def forward(d: Dataplane, code: int, port: int = 2) -> int:
    return d.table_add(
        FWD, [("exact", bytes([code]))], "XIngress.to_port", [port.to_bytes(2, "big")], 0
    )


def test_registers_and_counters(dp: Dataplane) -> None:
    forward(dp, 0)
    dp.inject(1, op(0, arg=0x1234, size=100))
    dp.inject(1, op(0, arg=0x0042, size=60))
    dp.inject(3, op(0, arg=7))
    assert dp.register_read("XIngress.last_arg", 1) == b"\x00\x42"
    assert dp.register_read("XIngress.last_arg", 3) == b"\x00\x07"
    assert dp.counter_read("XIngress.pkts", 1) == (160, 2)
    assert dp.counter_read("XIngress.pkts", 2) == (0, 0)
    dp.register_write("XIngress.last_arg", 5, b"\xff\xff\xff")  # truncated to 16 bits
    assert dp.register_read("XIngress.last_arg", 5) == b"\xff\xff"
    dp.counter_write("XIngress.pkts", 1, 10, 1)
    assert dp.counter_read("XIngress.pkts", 1) == (10, 1)
    with pytest.raises(ValueError, match="index 512 out of range"):
        dp.register_read("XIngress.last_arg", 512)
    with pytest.raises(KeyError, match="nope"):
        dp.counter_read("nope", 0)
    with pytest.raises(ValueError, match="direct counter"):
        dp.counter_read("XIngress.fwd_hits", 0)


def test_direct_counter_counts_hits_of_its_entry(dp: Dataplane) -> None:
    h0 = forward(dp, 0)
    h6 = forward(dp, 6)
    for _ in range(3):
        dp.inject(1, op(0, size=80))
    dp.inject(1, op(6, size=90))
    dp.inject(1, op(9))  # miss: no entry counts it
    assert dp.direct_counter_read(FWD, h0) == (240, 3)
    assert dp.direct_counter_read(FWD, h6) == (90, 1)
    dp.direct_counter_write(FWD, h0, 0, 0)
    assert dp.direct_counter_read(FWD, h0) == (0, 0)
    dp.table_delete(FWD, h6)
    with pytest.raises(KeyError, match="no entry"):
        dp.direct_counter_read(FWD, h6)
    assert dp.direct_counter_read(FWD, forward(dp, 6)) == (0, 0)  # a new entry starts at 0


def test_meter_two_rates_three_colors(dp: Dataplane) -> None:
    forward(dp, 1)
    assert dp.meter_get("XIngress.m", 0) is None
    dp.inject(1, op(1))
    assert fields(dp.take_output()[0][1])["color"] == GREEN  # unconfigured: green
    # 10 packets/s committed with a burst of 2, 20/s peak with a burst of 3.
    dp.meter_set("XIngress.m", 0, 10, 2, 20, 3)
    assert dp.meter_get("XIngress.m", 0) == (10, 2, 20, 3)
    for _ in range(4):
        dp.inject(1, op(1))
    assert [fields(p)["color"] for _, p in dp.take_output()] == [GREEN, GREEN, YELLOW, RED]
    dp.advance_time(100_000)  # 100 ms: one committed and two peak tokens back
    for _ in range(3):
        dp.inject(1, op(1))
    assert [fields(p)["color"] for _, p in dp.take_output()] == [GREEN, YELLOW, RED]
    with pytest.raises(ValueError, match="pir"):
        dp.meter_set("XIngress.m", 0, 10, 2, 5, 3)
    dp.meter_reset("XIngress.m", 0)  # unconfigured again: every packet green
    assert dp.meter_get("XIngress.m", 0) is None
    for _ in range(4):
        dp.inject(1, op(1))
    assert [fields(p)["color"] for _, p in dp.take_output()] == [GREEN] * 4


def test_direct_meter_colors_by_bytes(dp: Dataplane) -> None:
    h = forward(dp, 0)
    dp.direct_meter_set(FWD, h, 1000, 150, 2000, 250)
    for _ in range(3):
        dp.inject(1, op(0, size=100))
    assert [fields(p)["color"] for _, p in dp.take_output()] == [GREEN, YELLOW, RED]
    with pytest.raises(KeyError, match="no entry 99"):
        dp.direct_meter_set(FWD, 99, 1, 1, 1, 1)
    dp.direct_meter_reset(FWD, h)
    assert dp.direct_meter_get(FWD, h) is None
    for _ in range(3):
        dp.inject(1, op(0, size=100))
    assert [fields(p)["color"] for _, p in dp.take_output()] == [GREEN] * 3


def test_digest(dp: Dataplane) -> None:
    forward(dp, 2)
    dp.inject(3, op(2, arg=0xBEEF))
    assert dp.digests(1.0) == [("learn_t", [b"\x00\x03", b"\xbe\xef"])]
    assert dp.digests(0.0) == []


def test_multicast_replicas_carry_egress_rid(dp: Dataplane) -> None:
    dp.mc_group_set(7, [(2, 10), (3, 11), (4, 12)])
    dp.inject(1, op(3, arg=7))
    got = sorted((p, fields(pkt)["rid"], fields(pkt)["itype"]) for p, pkt in dp.take_output())
    assert got == [(2, 10, 5), (3, 11, 5), (4, 12, 5)]
    dp.mc_group_delete(7)
    dp.inject(1, op(3, arg=7))
    assert dp.take_output() == []
    with pytest.raises(KeyError):
        dp.mc_group_delete(7)
    with pytest.raises(ValueError, match="out of range"):
        dp.mc_group_set(0, [])


def test_clone_ingress_and_egress(dp: Dataplane) -> None:
    forward(dp, 4)
    forward(dp, 5)
    dp.clone_session_set(9, [(4, 0)])
    dp.inject(1, op(4, arg=9))
    out = sorted((p, fields(pkt)["itype"]) for p, pkt in dp.take_output())
    assert out == [(2, 0), (4, 1)]  # original, then the ingress clone
    dp.inject(1, op(5, arg=9))
    out = sorted((p, fields(pkt)["itype"]) for p, pkt in dp.take_output())
    assert out == [(2, 0), (4, 2)]  # original, then the egress clone
    dp.clone_session_set(9, [(4, 0)], packet_length_bytes=20)
    dp.inject(1, op(4, arg=9, size=100))
    assert sorted(len(pkt) for _, pkt in dp.take_output()) == [20, 100]
    dp.clone_session_delete(9)
    dp.inject(1, op(4, arg=9))
    assert [p for p, _ in dp.take_output()] == [2]


def test_packet_in_to_cpu_port(dp: Dataplane) -> None:
    forward(dp, 0, port=64)
    dp.inject(1, op(0, size=64))
    assert dp.take_output() == []
    [pkt] = dp.packet_in(1.0)
    assert len(pkt) == 64

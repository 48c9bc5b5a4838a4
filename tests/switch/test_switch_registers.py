"""RegisterEntry over gRPC: reads (one cell, wildcards) and writes, checked against P4Info."""

from typing import Any

import grpc
import pytest
from finsy.proto import p4d, p4r
from switch_helpers import Client, Program, modify, write_errors

REGISTER = "MyIngress.last_length"  # bit<32>[16]; ingress writes packet_length at ingress_port


def _entry(externs: Program, index: int | None = None, value: bytes | None = None) -> p4r.Entity:
    entry = p4r.RegisterEntry(register_id=externs.id_of("registers", REGISTER))
    if index is not None:
        entry.index.index = index
    if value is not None:
        entry.data.CopyFrom(p4d.P4Data(bitstring=value))
    return p4r.Entity(register_entry=entry)


def _values(entities: list[p4r.Entity]) -> dict[int, bytes]:
    return {e.register_entry.index.index: e.register_entry.data.bitstring for e in entities}


def test_write_then_read_one_cell(externs_client: Client, externs: Program) -> None:
    # Padded to the field's byte width on the way in, canonical on the way out.
    externs_client.write(modify(_entry(externs, 3, b"\x00\x00\x12\x34")))
    [entity] = externs_client.read(_entry(externs, 3))
    assert entity.register_entry.register_id == externs.id_of("registers", REGISTER)
    assert _values([entity]) == {3: b"\x12\x34"}


def test_wildcard_index_reads_every_cell(externs_client: Client, externs: Program) -> None:
    externs_client.write(modify(_entry(externs, 15, b"\xff\xff\xff\xff")))
    values = _values(externs_client.read(_entry(externs)))
    assert list(values) == list(range(16))
    assert values[15] == b"\xff\xff\xff\xff"
    assert values[0] == b"\x00"
    # register_id 0: every register of the program.
    every = externs_client.read(p4r.Entity(register_entry=p4r.RegisterEntry()))
    assert len(every) == 16


def test_wildcard_write_sets_every_cell(externs_client: Client, externs: Program) -> None:
    externs_client.write(modify(_entry(externs, None, b"\x07")))
    assert set(_values(externs_client.read(_entry(externs))).values()) == {b"\x07"}


def test_the_program_sees_and_sets_the_cells(
    externs_client: Client, externs: Program, cpu_dataplane: Any
) -> None:
    frame = bytes(14) + b"payload"
    cpu_dataplane.inject(2, frame)
    [entity] = externs_client.read(_entry(externs, 2))
    assert int.from_bytes(entity.register_entry.data.bitstring, "big") == len(frame)


@pytest.mark.parametrize(
    ("entity", "code", "message"),
    [
        (lambda x: _entry(x, 1, b"\x01\x00\x00\x00\x00"), "OUT_OF_RANGE", "fit in 32 bits"),
        (lambda x: _entry(x, 16, b"\x01"), "OUT_OF_RANGE", "index 16 is not in 0..15"),
        (lambda x: _entry(x, -1, b"\x01"), "OUT_OF_RANGE", "index -1"),
        (lambda x: _entry(x, 1, b""), "INVALID_ARGUMENT", "empty bytestring"),
        (lambda x: _entry(x, 1), "INVALID_ARGUMENT", "got no data"),
        (
            lambda x: p4r.Entity(
                register_entry=p4r.RegisterEntry(
                    register_id=x.id_of("registers", REGISTER), data=p4d.P4Data(bool=True)
                )
            ),
            "INVALID_ARGUMENT",
            "got bool",
        ),
        (
            lambda x: p4r.Entity(register_entry=p4r.RegisterEntry(register_id=0x16000001)),
            "NOT_FOUND",
            "no register with id",
        ),
    ],
)
def test_bad_writes(
    externs_client: Client, externs: Program, entity: Any, code: str, message: str
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        externs_client.write(modify(entity(externs)))
    [(status, text)] = write_errors(info.value)
    assert status.name == code
    assert message in text


def test_registers_are_only_modified(externs_client: Client, externs: Program) -> None:
    entity = _entry(externs, 1, b"\x01")
    with pytest.raises(grpc.RpcError) as info:
        externs_client.write(
            p4r.Update(type=p4r.Update.INSERT, entity=entity),
            p4r.Update(type=p4r.Update.DELETE, entity=entity),
        )
    errors = write_errors(info.value)
    assert [c for c, _ in errors] == [grpc.StatusCode.INVALID_ARGUMENT] * 2
    assert "can only be MODIFY'd" in errors[0][1]


def test_bad_reads(externs_client: Client, externs: Program) -> None:
    with pytest.raises(grpc.RpcError) as info:
        externs_client.read(_entry(externs, 99))
    assert info.value.code() == grpc.StatusCode.OUT_OF_RANGE
    with pytest.raises(grpc.RpcError) as info:
        externs_client.read(p4r.Entity(register_entry=p4r.RegisterEntry(index={"index": 1})))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "needs a register_id" in info.value.details()

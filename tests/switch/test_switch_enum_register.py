"""A register whose cells are a serializable enum: P4Info gives its type as the enum (as
p4c does), and the server takes the enum's underlying width from type_info, so its
cells are read and written over P4Runtime as bitstrings."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from finsy.proto import p4d, p4r
from switch_helpers import Client, Program, modify, output_of, primary_with

PROGRAM = Path(__file__).resolve().parents[1] / "conformance" / "register_serializable_enum.p4"
REGISTER = "MyIngress.kinds"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Program:
    return Program.compile(PROGRAM, tmp_path_factory.mktemp("enum_register"))


@pytest.fixture
def client(server_port: int, program: Program) -> Iterator[Client]:
    yield from primary_with(server_port, program)


def _cell(program: Program, index: int, value: bytes | None = None) -> p4r.Entity:
    entry = p4r.RegisterEntry(register_id=program.id_of("registers", REGISTER))
    entry.index.index = index
    if value is not None:
        entry.data.CopyFrom(p4d.P4Data(bitstring=value))
    return p4r.Entity(register_entry=entry)


def test_p4info_types_the_register_by_its_enum(program: Program) -> None:
    [register] = program.p4info.registers
    assert register.type_spec.serializable_enum.name == "EtherKind"
    enum = program.p4info.type_info.serializable_enums["EtherKind"]
    assert enum.underlying_type.bitwidth == 16


def test_cells_are_written_and_read_as_bits(
    client: Client, program: Program, dataplane: Any
) -> None:
    client.write(modify(_cell(program, 0, b"\x08\x06")))
    [entity] = client.read(_cell(program, 0))
    assert entity.register_entry.data.bitstring == b"\x08\x06"
    dataplane.inject(0, bytes.fromhex("000800ffff"))
    assert output_of(dataplane) == [(1, bytes.fromhex("0008000806"))]

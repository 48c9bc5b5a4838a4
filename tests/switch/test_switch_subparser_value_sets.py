"""A value set declared in a sub-parser (p4c's issue1955): each instance of the
sub-parser has its own, named `MyParser.<instance>.kinds` as p4c names it, and the
members written over P4Runtime steer only that instance's select."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from finsy.proto import p4r
from switch_helpers import Client, Program, modify, output_of, primary_with

PROGRAM = Path(__file__).resolve().parent / "programs" / "subparser_value_set.p4"
FIRST = "MyParser.first.kinds"
SECOND = "MyParser.second.kinds"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Program:
    return Program.compile(PROGRAM, tmp_path_factory.mktemp("subparser_value_set"))


@pytest.fixture
def client(server_port: int, program: Program) -> Iterator[Client]:
    yield from primary_with(server_port, program)


def _kinds(value_set_id: int, *kinds: int) -> p4r.Update:
    members = [
        p4r.ValueSetMember(
            match=[p4r.FieldMatch(field_id=1, exact=p4r.FieldMatch.Exact(value=bytes([k])))]
        )
        for k in kinds
    ]
    return modify(
        p4r.Entity(value_set_entry=p4r.ValueSetEntry(value_set_id=value_set_id, members=members))
    )


def _port_of(dataplane: Any, frame: bytes) -> int:
    dataplane.inject(1, frame)
    [(port, out)] = output_of(dataplane)
    assert out == frame
    return port


def test_one_value_set_per_instance(program: Program) -> None:
    names = [v.preamble.name for v in program.p4info.value_sets]
    assert names == [FIRST, SECOND]


def test_each_instance_selects_on_its_own_set(
    client: Client, program: Program, dataplane: Any
) -> None:
    # tag 07 then tag 09, each followed by a body byte when its set holds the tag.
    assert _port_of(dataplane, bytes.fromhex("07aa09bb")) == 1
    client.write(_kinds(program.id_of("value_sets", FIRST), 0x07))
    # first parses a body (aa); second's tag is then 09, not in its empty set.
    assert _port_of(dataplane, bytes.fromhex("07aa09bb")) == 2
    client.write(_kinds(program.id_of("value_sets", SECOND), 0x09))
    assert _port_of(dataplane, bytes.fromhex("07aa09bb")) == 3
    # 09 is in second's set only: first takes no body, so second reads aa as its tag.
    assert _port_of(dataplane, bytes.fromhex("09aa")) == 1
    assert _port_of(dataplane, bytes.fromhex("0709aa")) == 2

"""One action bound to different l-values by different tables (`actions = { put(hdr.h.b); }`
in one, `put(hdr.h.c)` in another): P4Info names it once, the BMv2 JSON holds a copy per
binding, and an entry written over P4Runtime runs the copy of the table it is in."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from finsy.proto import p4r
from switch_helpers import Client, Program, insert, output_of, primary_with

PROGRAM = Path(__file__).resolve().parents[1] / "conformance" / "table_action_bound_per_table.p4"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Program:
    return Program.compile(PROGRAM, tmp_path_factory.mktemp("bound_actions"))


@pytest.fixture
def client(server_port: int, program: Program) -> Iterator[Client]:
    yield from primary_with(server_port, program)


def _put(program: Program, table: str, key: bytes, value: bytes) -> p4r.TableEntry:
    entry = p4r.TableEntry(table_id=program.table_id(table))
    entry.match.add(field_id=1, exact=p4r.FieldMatch.Exact(value=key))
    entry.action.action.action_id = program.action_id("MyIngress.put")
    entry.action.action.params.add(param_id=1, value=value)
    return entry


def test_p4info_names_the_action_once(program: Program) -> None:
    assert [a.preamble.name for a in program.p4info.actions].count("MyIngress.put") == 1


def test_each_table_runs_its_own_binding(client: Client, program: Program, dataplane: Any) -> None:
    client.write(
        insert(_put(program, "MyIngress.t1", b"\x01", b"\x11")),
        insert(_put(program, "MyIngress.t2", b"\x01", b"\x22")),
        insert(_put(program, "MyIngress.t3", b"\x07", b"\x33")),
    )
    dataplane.inject(0, bytes.fromhex("0100000007000800"))
    assert output_of(dataplane) == [(1, bytes.fromhex("0111220007000833"))]

"""A table's `const entries` read back over P4Runtime, as the spec asks and PI returns
them from BMv2: don't-care fields left out, BMv2's priorities (lower wins) inverted
around INT32_MAX, and each entry tied to the dataplane's entry for its direct counter."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from finsy.proto import p4r
from switch_helpers import Client, Program, insert, primary_with, write_errors

from p4aqm.switch.runtime.const_entries import const_entries
from p4aqm.switch.runtime.errors import P4RuntimeError
from p4aqm.switch.runtime.pipeline import MatchFieldInfo

PROGRAM = Path(__file__).resolve().parent / "programs" / "const_entries.p4"
TABLE = "ProbeIngress.classify"
INT32_MAX = 2**31 - 1


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Program:
    return Program.compile(PROGRAM, tmp_path_factory.mktemp("const_entries"))


@pytest.fixture
def client(server_port: int, program: Program) -> Iterator[Client]:
    yield from primary_with(server_port, program)


def _entry(program: Program, priority: int, action: str, *params: bytes) -> p4r.TableEntry:
    entry = p4r.TableEntry(table_id=program.table_id(TABLE), priority=priority)
    entry.action.action.action_id = program.action_id(action)
    for i, value in enumerate(params, start=1):
        entry.action.action.params.add(param_id=i, value=value)
    return entry


def _exact(field_id: int, value: bytes) -> p4r.FieldMatch:
    return p4r.FieldMatch(field_id=field_id, exact=p4r.FieldMatch.Exact(value=value))


def test_const_entries_read_back_in_p4runtime_form(client: Client, program: Program) -> None:
    first = _entry(program, INT32_MAX - 1, "ProbeIngress.to_port", b"\x02")
    first.match.extend(
        [
            _exact(1, b"\x01"),
            p4r.FieldMatch(
                field_id=2, ternary=p4r.FieldMatch.Ternary(value=b"\x0a\x00", mask=b"\xff\x00")
            ),
            p4r.FieldMatch(field_id=3, range=p4r.FieldMatch.Range(low=b"\x01", high=b"\x09")),
            p4r.FieldMatch(field_id=4, optional=p4r.FieldMatch.Optional(value=b"\x07")),
        ]
    )
    second = _entry(program, INT32_MAX - 2, "ProbeIngress.to_port", b"\x03")
    second.match.append(_exact(1, b"\x01"))
    third = _entry(program, INT32_MAX - 3, "ProbeIngress.drop")
    third.match.extend(
        [
            _exact(1, b"\x02"),
            p4r.FieldMatch(
                field_id=2, ternary=p4r.FieldMatch.Ternary(value=b"\x01", mask=b"\xff\xff")
            ),
        ]
    )
    query = p4r.Entity(table_entry=p4r.TableEntry(table_id=program.table_id(TABLE)))
    entries = [e.table_entry for e in client.read(query)]
    assert sorted(entries, key=lambda e: -e.priority) == [first, second, third]

    # A read by key and priority finds one, as for any entry.
    by_key = p4r.TableEntry()
    by_key.CopyFrom(second)
    by_key.ClearField("action")
    [found] = client.read(p4r.Entity(table_entry=by_key))
    assert found.table_entry == second


def test_a_const_entry_has_its_direct_counter(
    client: Client, program: Program, dataplane: Any
) -> None:
    # dst 1, tag 0x0b00: misses the first entry (tag), hits the second.
    dataplane.inject(1, bytes([1, 0x0B, 0x00, 5, 7]))
    [(port, _)] = dataplane.take_output()
    assert port == 3
    query = p4r.Entity(
        direct_counter_entry=p4r.DirectCounterEntry(
            table_entry=p4r.TableEntry(table_id=program.table_id(TABLE))
        )
    )
    counts = {
        e.direct_counter_entry.table_entry.priority: e.direct_counter_entry.data.packet_count
        for e in client.read(query)
    }
    assert counts == {INT32_MAX - 1: 0, INT32_MAX - 2: 1, INT32_MAX - 3: 0}


def test_a_const_table_refuses_writes(client: Client, program: Program) -> None:
    entry = _entry(program, 5, "ProbeIngress.drop")
    entry.match.append(_exact(1, b"\x09"))
    with pytest.raises(grpc.RpcError) as info:
        client.write(insert(entry))
    [(code, message)] = write_errors(info.value)
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert "const" in message


def test_a_malformed_entry_is_named() -> None:
    field = MatchFieldInfo(1, "hdr.probe.dst", 8, "exact")
    bad = {"entries": [{"match_key": [{"match_type": "exact", "key": "0xZZ"}]}]}
    with pytest.raises(P4RuntimeError) as info:
        const_entries(7, "t", (field,), False, bad, lambda _: (1, ()))
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "table 't' const entry 0: malformed" in info.value.message

"""Value sets whose struct fields say how they match, `@match(ternary)` and kin (p4c's
pvs-struct-3-bmv2): the P4Info gives each field its match type, the server takes the
pipeline, and a member is written with each field's own kind of FieldMatch. The dataplane
matches members exactly (as BMv2's parse_vset_add, which takes values only), so a match
naming one value is held and one naming more is UNIMPLEMENTED, saying which field."""

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from finsy.proto import p4i, p4r
from switch_helpers import Client, Program, modify, primary_with, write_errors

SOURCE = """#include <core.p4>
#include <v1model.p4>
header tag_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct h_t { tag_t tag; }
struct m_t { bit<8> hit; }
struct key_t {
    @match(ternary) bit<8> a;
    @match(lpm)     bit<8> b;
    @match(range)   bit<8> c;
    @match(optional) bit<8> d;
}
parser P(packet_in p, out h_t h, inout m_t m, inout standard_metadata_t s) {
    value_set<key_t>(4) keys;
    state start {
        p.extract(h.tag);
        transition select(h.tag.a, h.tag.b, h.tag.c, h.tag.d) { keys: member; default: accept; }
    }
    state member { m.hit = 1; transition accept; }
}
control V(inout h_t h, inout m_t m) { apply { } }
control I(inout h_t h, inout m_t m, inout standard_metadata_t s) {
    apply { if (m.hit == 1) { s.egress_spec = 1; } else { s.egress_spec = 3; } }
}
control E(inout h_t h, inout m_t m, inout standard_metadata_t s) { apply { } }
control C(inout h_t h, inout m_t m) { apply { } }
control D(packet_out p, in h_t h) { apply { p.emit(h.tag); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Program:
    folder = tmp_path_factory.mktemp("value_set_match_types")
    source = folder / "keys.p4"
    source.write_text(SOURCE)
    return Program.compile(source, folder)


@pytest.fixture
def client(server_port: int, program: Program) -> Iterator[Client]:
    yield from primary_with(server_port, program)


def _single(a: int, b: int, c: int, d: int) -> list[p4r.FieldMatch]:
    """One value per field, each in its field's kind of FieldMatch."""
    return [
        p4r.FieldMatch(field_id=1, ternary={"value": bytes([a]), "mask": b"\xff"}),
        p4r.FieldMatch(field_id=2, lpm={"value": bytes([b]), "prefix_len": 8}),
        p4r.FieldMatch(field_id=3, range={"low": bytes([c]), "high": bytes([c])}),
        p4r.FieldMatch(field_id=4, optional={"value": bytes([d])}),
    ]


def _write(client: Client, program: Program, *members: list[p4r.FieldMatch]) -> None:
    entry = p4r.ValueSetEntry(
        value_set_id=program.id_of("value_sets", "P.keys"),
        members=[p4r.ValueSetMember(match=m) for m in members],
    )
    client.write(modify(p4r.Entity(value_set_entry=entry)))


def _port(dataplane: Any, a: int, b: int, c: int, d: int) -> int:
    """1 when the tag's four bytes are a member of the set, else 3."""
    frame = bytes([a, b, c, d]) + b"payload"
    dataplane.inject(2, frame)
    [(port, out)] = dataplane.take_output()
    assert out == frame
    return port


def test_p4info_gives_each_field_its_match_type(program: Program) -> None:
    [value_set] = program.p4info.value_sets
    assert [(m.name, m.match_type) for m in value_set.match] == [
        ("a", p4i.MatchField.TERNARY),
        ("b", p4i.MatchField.LPM),
        ("c", p4i.MatchField.RANGE),
        ("d", p4i.MatchField.OPTIONAL),
    ]


def test_members_naming_one_value_are_held_and_read_back(
    client: Client, program: Program, dataplane: Any
) -> None:
    assert _port(dataplane, 1, 2, 3, 4) == 3
    _write(client, program, _single(1, 2, 3, 4), _single(0xA, 0xB, 0xC, 0xD))
    assert _port(dataplane, 1, 2, 3, 4) == 1
    assert _port(dataplane, 0xA, 0xB, 0xC, 0xD) == 1
    assert _port(dataplane, 1, 2, 3, 5) == 3
    query = p4r.ValueSetEntry(value_set_id=program.id_of("value_sets", "P.keys"))
    [entity] = client.read(p4r.Entity(value_set_entry=query))
    members = [list(m.match) for m in entity.value_set_entry.members]
    # Each field read back in its own kind, canonical (leading zeros dropped).
    assert members == [_single(1, 2, 3, 4), _single(0xA, 0xB, 0xC, 0xD)]


def _error(client: Client, program: Program, member: list[p4r.FieldMatch]) -> tuple[Any, str]:
    with pytest.raises(grpc.RpcError) as info:
        _write(client, program, member)
    [error] = write_errors(info.value)
    return error


@pytest.mark.parametrize(
    ("field_index", "replacement", "code", "message"),
    [
        (
            0,
            p4r.FieldMatch(field_id=1, ternary={"value": b"\x01", "mask": b"\x0f"}),
            "UNIMPLEMENTED",
            "field 'a': this ternary match names more than one value",
        ),
        (
            1,
            p4r.FieldMatch(field_id=2, lpm={"value": b"\x02", "prefix_len": 7}),
            "UNIMPLEMENTED",
            "field 'b': this lpm match names more than one value",
        ),
        (
            2,
            p4r.FieldMatch(field_id=3, range={"low": b"\x01", "high": b"\x05"}),
            "UNIMPLEMENTED",
            "field 'c': this range match names more than one value",
        ),
        (
            0,
            p4r.FieldMatch(field_id=1, exact={"value": b"\x01"}),
            "INVALID_ARGUMENT",
            "field 'a': is a ternary match, got exact",
        ),
        (0, None, "UNIMPLEMENTED", "field 'a' left out is a wildcard"),
    ],
)
def test_matches_of_more_than_one_value_are_refused(
    client: Client,
    program: Program,
    field_index: int,
    replacement: p4r.FieldMatch | None,
    code: str,
    message: str,
) -> None:
    member = _single(1, 2, 3, 4)
    if replacement is None:
        del member[field_index]
    else:
        member[field_index] = replacement
    got_code, text = _error(client, program, member)
    assert got_code == grpc.StatusCode[code]
    assert message in text

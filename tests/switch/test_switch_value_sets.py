"""ValueSetEntry over gRPC: MODIFY replaces a parser value set's members, reads return
them field by field, and the parser's choice follows what was written.

The program is hand-written BMv2 JSON and P4Info in p4c's shape. Its parser extracts
h = x(4) y(12) z(8) and selects on (h.x, h.z): a member of `p.pair` (a struct value set
of x and z, 12 bits concatenated) goes to port 1, anything else to port 3. `p.word` is a
bit<16> value set that no transition uses.
"""

import json
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from finsy.proto import p4i, p4r
from google.protobuf import text_format
from switch_helpers import Client, Program, modify, primary_with, write_errors
from value_set_json import DEFAULT, value_set_program

from programs import compile_program

PAIR = "p.pair"
WORD = "p.word"

P4INFO = """
pkg_info { arch: "v1model" }
value_sets {
  preamble { id: 56000001 name: "p.pair" alias: "pair" }
  match { id: 1 name: "x" bitwidth: 4 match_type: EXACT }
  match { id: 2 name: "z" bitwidth: 8 match_type: EXACT }
  size: 4
}
value_sets {
  preamble { id: 56000002 name: "p.word" alias: "word" }
  match { id: 1 bitwidth: 16 match_type: EXACT }
  size: 2
}
"""


def _bmv2_json() -> bytes:
    """(h.x, h.z) a member of `p.pair` goes to port 1, anything else to port 3."""
    transitions = [
        {"type": "parse_vset", "value": PAIR, "mask": None, "next_state": "member"},
        {**DEFAULT, "next_state": "other"},
    ]
    vsets = [
        {"name": PAIR, "id": 0, "compressed_bitwidth": 12, "max_size": 4},
        {"name": WORD, "id": 1, "compressed_bitwidth": 16, "max_size": 2},
    ]
    program = value_set_program(vsets, transitions, {"member": 1, "other": 3})
    return json.dumps(program).encode()


PROGRAM = Program(text_format.Parse(P4INFO, p4i.P4Info()), _bmv2_json())
PAIR_ID = PROGRAM.id_of("value_sets", PAIR)
WORD_ID = PROGRAM.id_of("value_sets", WORD)


@pytest.fixture
def client(server_port: int) -> Iterator[Client]:
    yield from primary_with(server_port, PROGRAM)


def _exact(field_id: int, value: bytes) -> p4r.FieldMatch:
    return p4r.FieldMatch(field_id=field_id, exact=p4r.FieldMatch.Exact(value=value))


def _pair(x: bytes, z: bytes) -> p4r.ValueSetMember:
    return p4r.ValueSetMember(match=[_exact(1, x), _exact(2, z)])


def _entity(value_set_id: int, *members: p4r.ValueSetMember) -> p4r.Entity:
    return p4r.Entity(
        value_set_entry=p4r.ValueSetEntry(value_set_id=value_set_id, members=list(members))
    )


def _members(entity: p4r.Entity) -> list[list[tuple[int, bytes]]]:
    return [
        [(fm.field_id, fm.exact.value) for fm in member.match]
        for member in entity.value_set_entry.members
    ]


def _port_of(dataplane: Any, x: int, z: int) -> int:
    frame = bytes([x << 4 | 0x1, 0x23, z]) + b"payload"
    dataplane.inject(2, frame)
    [(port, out)] = dataplane.take_output()
    assert out == frame
    return port


def _write_error(client: Client, update: p4r.Update) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        client.write(update)
    [error] = write_errors(info.value)
    return error


def test_modify_then_read(client: Client) -> None:
    # Fields may come in any order; reads return them in field id order.
    members = [
        _pair(b"\x01", b"\xab"),
        p4r.ValueSetMember(match=[_exact(2, b"\x00"), _exact(1, b"\x0f")]),
    ]
    client.write(modify(_entity(PAIR_ID, *members)))
    [entity] = client.read(_entity(PAIR_ID))
    assert entity.value_set_entry.value_set_id == PAIR_ID
    assert _members(entity) == [[(1, b"\x01"), (2, b"\xab")], [(1, b"\x0f"), (2, b"\x00")]]
    # MODIFY replaces the whole list; an empty list clears it.
    client.write(modify(_entity(PAIR_ID, _pair(b"\x02", b"\x02"))))
    assert _members(client.read(_entity(PAIR_ID))[0]) == [[(1, b"\x02"), (2, b"\x02")]]
    client.write(modify(_entity(PAIR_ID)))
    assert _members(client.read(_entity(PAIR_ID))[0]) == []


def test_wildcard_read_returns_every_set(client: Client) -> None:
    # Padded to the field's byte width on the way in, canonical on the way out.
    client.write(modify(_entity(WORD_ID, p4r.ValueSetMember(match=[_exact(1, b"\x00\x7f")]))))
    entities = client.read(_entity(0))
    assert [e.value_set_entry.value_set_id for e in entities] == [PAIR_ID, WORD_ID]
    assert _members(entities[0]) == []
    assert _members(entities[1]) == [[(1, b"\x7f")]]


def test_forwarding_follows_the_members(client: Client, dataplane: Any) -> None:
    assert _port_of(dataplane, 0x1, 0xAB) == 3
    client.write(modify(_entity(PAIR_ID, _pair(b"\x01", b"\xab"), _pair(b"\x0f", b"\x00"))))
    assert _port_of(dataplane, 0x1, 0xAB) == 1
    assert _port_of(dataplane, 0xF, 0x00) == 1
    assert _port_of(dataplane, 0x1, 0xAC) == 3
    client.write(modify(_entity(PAIR_ID, _pair(b"\x01", b"\xac"))))
    assert _port_of(dataplane, 0x1, 0xAB) == 3
    assert _port_of(dataplane, 0x1, 0xAC) == 1


@pytest.mark.parametrize("update_type", [p4r.Update.INSERT, p4r.Update.DELETE])
def test_only_modify_is_allowed(client: Client, update_type: int) -> None:
    update = p4r.Update(type=update_type, entity=_entity(PAIR_ID, _pair(b"\x01", b"\x01")))
    code, text = _write_error(client, update)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "replaced by MODIFY" in text


def test_unknown_value_set(client: Client) -> None:
    code, text = _write_error(client, modify(_entity(0x03FFFFFF)))
    assert code == grpc.StatusCode.NOT_FOUND
    assert "no value set with id 67108863" in text
    with pytest.raises(grpc.RpcError) as info:
        client.read(_entity(0x03FFFFFF))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    code, text = _write_error(client, modify(_entity(0)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT


def _ternary_x() -> p4r.ValueSetMember:
    x = p4r.FieldMatch(field_id=1, ternary=p4r.FieldMatch.Ternary(value=b"\x01", mask=b"\x0f"))
    return p4r.ValueSetMember(match=[x, _exact(2, b"\x01")])


@pytest.mark.parametrize(
    ("member", "code", "message"),
    [
        (_ternary_x, "INVALID_ARGUMENT", "member 1 field 'x': is an exact match, got ternary"),
        (
            lambda: p4r.ValueSetMember(match=[_exact(1, b"\x01"), _exact(3, b"\x01")]),
            "INVALID_ARGUMENT",
            "member 1: no match field with id 3",
        ),
        (
            lambda: p4r.ValueSetMember(match=[_exact(1, b"\x01"), _exact(1, b"\x01")]),
            "INVALID_ARGUMENT",
            "member 1: match field 'x' given twice",
        ),
        (
            lambda: p4r.ValueSetMember(match=[_exact(1, b"\x01")]),
            "INVALID_ARGUMENT",
            "member 1: missing match field(s) z",
        ),
        (lambda: _pair(b"\x01\x01", b"\x01"), "OUT_OF_RANGE", "value 0x101 does not fit"),
        (lambda: _pair(b"\x01", b""), "INVALID_ARGUMENT", "field 'z': empty bytestring"),
        # As for table keys (codec.py): in the field's bytes but above its bitwidth.
        (lambda: _pair(b"\x10", b"\x01"), "OUT_OF_RANGE", "value 0x10 does not fit in 4 bits"),
    ],
)
def test_bad_member(
    client: Client, member: Callable[[], p4r.ValueSetMember], code: str, message: str
) -> None:
    client.write(modify(_entity(PAIR_ID, _pair(b"\x05", b"\x05"))))
    got_code, text = _write_error(
        client, modify(_entity(PAIR_ID, _pair(b"\x01", b"\x01"), member()))
    )
    assert got_code == grpc.StatusCode[code]
    assert f"value set '{PAIR}'" in text
    assert message in text
    # A refused write changes nothing.
    assert _members(client.read(_entity(PAIR_ID))[0]) == [[(1, b"\x05"), (2, b"\x05")]]


def test_more_members_than_size(client: Client) -> None:
    members = [_pair(bytes([i]), b"\x00") for i in range(5)]
    code, text = _write_error(client, modify(_entity(PAIR_ID, *members)))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert f"value set '{PAIR}' holds at most 4 members, got 5" in text
    client.write(modify(_entity(PAIR_ID, *members[:4])))
    assert len(_members(client.read(_entity(PAIR_ID))[0])) == 4


def test_p4info_and_json_must_agree_on_the_width(server_port: int) -> None:
    p4info = text_format.Parse(
        P4INFO.replace("bitwidth: 8 match_type", "bitwidth: 12 match_type", 1), p4i.P4Info()
    )
    client = Client(server_port, election_id=10)
    try:
        client.become_primary()
        with pytest.raises(grpc.RpcError) as info:
            client.set_pipeline(Program(p4info, PROGRAM.device_config).config())
    finally:
        client.close()
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert f"value set '{PAIR}' is 16 bits in P4Info but 12 bits (compressed_bitwidth)" in (
        info.value.details() or ""
    )


# The same over our compiler's output: names, ids and widths must agree end to end.
COMPILED = """#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> kind; bit<8> len; }
header opt_t { bit<8> v; }
struct h_t { eth_t eth; tag_t tag; opt_t opt; }
struct m_t { }
struct pair_t { bit<8> kind; bit<8> len; }
parser P(packet_in p, out h_t h, inout m_t m, inout standard_metadata_t s) {
    value_set<bit<16>>(4) custom_types;
    value_set<pair_t>(2) pairs;
    state start {
        p.extract(h.eth);
        transition select(h.eth.type) { custom_types: parse_tag; default: accept; }
    }
    state parse_tag {
        p.extract(h.tag);
        transition select(h.tag.kind, h.tag.len) { pairs: parse_opt; default: accept; }
    }
    state parse_opt { p.extract(h.opt); transition accept; }
}
control V(inout h_t h, inout m_t m) { apply { } }
control I(inout h_t h, inout m_t m, inout standard_metadata_t s) {
    apply {
        if (h.opt.isValid()) { s.egress_spec = 1; }
        else if (h.tag.isValid()) { s.egress_spec = 2; }
        else { s.egress_spec = 3; }
    }
}
control E(inout h_t h, inout m_t m, inout standard_metadata_t s) { apply { } }
control C(inout h_t h, inout m_t m) { apply { } }
control D(packet_out p, in h_t h) { apply { p.emit(h.eth); p.emit(h.tag); p.emit(h.opt); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _compiled_port(dataplane: Any, eth_type: int, kind: int, length: int) -> int:
    """The port out: 1 if both sets matched, 2 if only custom_types did, else 3."""
    frame = bytes(12) + eth_type.to_bytes(2, "big") + bytes([kind, length, 0x77])
    dataplane.inject(2, frame)
    [(port, _)] = dataplane.take_output()
    return port


def test_compiled_program_value_sets(server_port: int, dataplane: Any, tmp_path: Any) -> None:
    source = tmp_path / "vs.p4"
    source.write_text(COMPILED)
    compiled = compile_program(source, tmp_path)
    program = Program.load(compiled.p4info_path, compiled.json_path)
    client = Client(server_port, election_id=10)
    try:
        client.become_primary()
        client.set_pipeline(program.config())
        types_id = program.id_of("value_sets", "P.custom_types")
        pairs_id = program.id_of("value_sets", "P.pairs")
        assert _compiled_port(dataplane, 0x88B5, 1, 2) == 3
        client.write(modify(_entity(types_id, p4r.ValueSetMember(match=[_exact(1, b"\x88\xb5")]))))
        assert _compiled_port(dataplane, 0x88B5, 1, 2) == 2
        client.write(modify(_entity(pairs_id, _pair(b"\x01", b"\x02"))))
        assert _compiled_port(dataplane, 0x88B5, 1, 2) == 1
        assert _compiled_port(dataplane, 0x88B5, 2, 1) == 2
        assert _compiled_port(dataplane, 0x0800, 1, 2) == 3
    finally:
        client.close()

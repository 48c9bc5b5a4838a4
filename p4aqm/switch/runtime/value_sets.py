"""ValueSetEntry: the members of the program's parser value sets (`value_set<T>(size)`).

A member is one FieldMatch per field of T (a bit<W> has one field, id 1; a struct one
per field, ids 1..n), of the field's match type: exact unless the struct field says
`@match(kind)`, as p4c's pvs-struct-3-bmv2 does. The dataplane holds each member as the
fields' values concatenated in id order, which is how the parser's select key is
compared with it: like BMv2's parse_vset_add, which takes values only, it matches
members exactly. So a member of a ternary, lpm, range or optional field must still
name one value (a full mask or prefix, a range of one); a wildcard or a wider match is
UNIMPLEMENTED, naming the field.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import grpc
from finsy.proto import p4i, p4r

from p4aqm.switch.runtime.codec import decode_uint, encode_uint
from p4aqm.switch.runtime.errors import (
    P4RuntimeError,
    call_dataplane,
    invalid,
    not_found,
    unimplemented,
)
from p4aqm.switch.runtime.field_matches import field_match

# P4Info match types, by the name of the FieldMatch member that carries each.
_MATCH_TYPES = {
    p4i.MatchField.UNSPECIFIED: "exact",
    p4i.MatchField.EXACT: "exact",
    p4i.MatchField.LPM: "lpm",
    p4i.MatchField.TERNARY: "ternary",
    p4i.MatchField.RANGE: "range",
    p4i.MatchField.OPTIONAL: "optional",
}

_EXACT_ONLY = (
    "the dataplane matches value set members exactly, as BMv2's parse_vset_add takes values only"
)


class ValueSetApi(Protocol):
    def value_set_set(self, name: str, members: list[bytes]) -> None: ...

    def value_set_get(self, name: str) -> list[bytes]: ...


@dataclass(frozen=True)
class ValueSetField:
    id: int
    name: str
    bitwidth: int
    match_type: str  # exact, lpm, ternary, range, optional, or P4Info's other_match_type


@dataclass(frozen=True)
class ValueSetInfo:
    id: int
    name: str
    # In id order: the order in which the dataplane concatenates a member's values.
    fields: tuple[ValueSetField, ...]
    size: int

    @property
    def bitwidth(self) -> int:
        return sum(f.bitwidth for f in self.fields)


def index_value_sets(
    p4info: p4i.P4Info, parse_vsets: list[dict[str, Any]]
) -> dict[int, ValueSetInfo]:
    """The P4Info value sets by id, each checked against its BMv2 JSON `parse_vsets`
    entry: a member the client builds must be exactly as wide as the dataplane's."""
    json_widths = {v.get("name"): v.get("compressed_bitwidth") for v in parse_vsets}
    result: dict[int, ValueSetInfo] = {}
    for value_set in p4info.value_sets:
        name = value_set.preamble.name
        if value_set.preamble.id in result:
            raise invalid(f"P4Info: duplicate value set id {value_set.preamble.id}")
        matches = sorted(value_set.match, key=lambda m: m.id)
        if len({m.id for m in matches}) != len(matches):
            raise invalid(f"P4Info: value set '{name}' has duplicate match field ids")
        for m in matches:
            if m.bitwidth <= 0:
                raise invalid(f"P4Info: value set '{name}' field '{m.name}' has no bitwidth")
        info = ValueSetInfo(
            id=value_set.preamble.id,
            name=name,
            fields=tuple(ValueSetField(m.id, m.name, m.bitwidth, _match_type(m)) for m in matches),
            size=value_set.size,
        )
        if name not in json_widths:
            raise invalid(f"P4Info value set '{name}' is not in the BMv2 JSON")
        if json_widths[name] != info.bitwidth:
            raise invalid(
                f"value set '{name}' is {info.bitwidth} bits in P4Info but "
                f"{json_widths[name]} bits (compressed_bitwidth) in the BMv2 JSON"
            )
        result[info.id] = info
    return result


class ValueSets:
    """Writes replace a set's members (MODIFY only, as P4Runtime requires); reads return
    them from the dataplane, in the order they were written."""

    def __init__(self, dataplane: ValueSetApi, value_sets: dict[int, ValueSetInfo]) -> None:
        self._dp = dataplane
        self._sets = value_sets

    def write(self, update_type: int, entry: p4r.ValueSetEntry) -> None:
        if update_type != p4r.Update.MODIFY:
            name = p4r.Update.Type.Name(update_type) if update_type in (1, 2, 3) else update_type
            raise invalid(
                f"value set: update type {name}; a value set's members are replaced by MODIFY"
            )
        if entry.value_set_id == 0:
            raise invalid("value set write: value_set_id 0 (all value sets) cannot be written")
        info = self._info(entry.value_set_id)
        if info.size > 0 and len(entry.members) > info.size:
            raise P4RuntimeError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"value set '{info.name}' holds at most {info.size} members, "
                f"got {len(entry.members)}",
            )
        members = [_member(info, i, m) for i, m in enumerate(entry.members)]
        call_dataplane(self._dp.value_set_set, info.name, members)

    def read(self, query: p4r.ValueSetEntry) -> Iterator[p4r.ValueSetEntry]:
        if query.value_set_id == 0:
            sets = list(self._sets.values())
        else:
            sets = [self._info(query.value_set_id)]
        for info in sets:
            members = call_dataplane(self._dp.value_set_get, info.name)
            yield p4r.ValueSetEntry(
                value_set_id=info.id,
                members=[_fields(info, int.from_bytes(m, "big")) for m in members],
            )

    def _info(self, value_set_id: int) -> ValueSetInfo:
        try:
            return self._sets[value_set_id]
        except KeyError:
            raise not_found(f"no value set with id {value_set_id} in the P4Info") from None


def _match_type(m: p4i.MatchField) -> str:
    if m.other_match_type:
        return m.other_match_type
    return _MATCH_TYPES.get(m.match_type, p4i.MatchField.MatchType.Name(m.match_type))


def _member(info: ValueSetInfo, index: int, member: p4r.ValueSetMember) -> bytes:
    """The member's field values concatenated in id order, as the dataplane's bytes."""
    what = f"value set '{info.name}' member {index}"
    by_id = {f.id: f for f in info.fields}
    given: dict[int, int] = {}
    for fm in member.match:
        field = by_id.get(fm.field_id)
        if field is None:
            raise invalid(f"{what}: no match field with id {fm.field_id}")
        if fm.field_id in given:
            raise invalid(f"{what}: match field '{field.name}' given twice")
        given[fm.field_id] = _single_value(field, fm, f"{what} field '{field.name}'")
    missing = [f for f in info.fields if f.id not in given]
    if any(f.match_type == "exact" for f in missing):
        names = ", ".join(f.name for f in missing)
        raise invalid(f"{what}: missing match field(s) {names}")
    if missing:
        raise unimplemented(
            f"{what}: field '{missing[0].name}' left out is a wildcard; {_EXACT_ONLY}"
        )
    value = 0
    for field in info.fields:
        value = value << field.bitwidth | given[field.id]
    return value.to_bytes((info.bitwidth + 7) // 8, "big")


def _single_value(field: ValueSetField, fm: p4r.FieldMatch, what: str) -> int:
    """The one value a field's FieldMatch names, checked as a table's would be; a match
    of more than one value cannot be held (see the module's docstring)."""
    kind = fm.WhichOneof("field_match_type")
    if field.match_type not in set(_MATCH_TYPES.values()):
        raise unimplemented(f"{what}: match type '{field.match_type}' is not supported")
    if kind != field.match_type:
        article = "an" if field.match_type[0] in "aeioul" else "a"
        raise invalid(f"{what}: is {article} {field.match_type} match, got {kind}")
    _, key = field_match(field.match_type, field.bitwidth, fm, what)
    full = encode_uint((1 << field.bitwidth) - 1)
    match key:
        case ("lpm", _, prefix_len):
            single = prefix_len == field.bitwidth
        case ("ternary", _, mask):
            single = mask == full
        case ("range", low, high):
            single = low == high
        case _:
            single = True
    if not single:
        raise unimplemented(
            f"{what}: this {field.match_type} match names more than one value; {_EXACT_ONLY}"
        )
    return decode_uint(key[1], field.bitwidth, what)


def _fields(info: ValueSetInfo, value: int) -> p4r.ValueSetMember:
    """A dataplane member split back into its fields, each in the canonical form of its
    match type naming that one value."""
    matches = []
    shift = info.bitwidth
    for field in info.fields:
        shift -= field.bitwidth
        part = encode_uint(value >> shift & ((1 << field.bitwidth) - 1))
        match = {
            "lpm": {"lpm": {"value": part, "prefix_len": field.bitwidth}},
            "ternary": {"ternary": {"value": part, "mask": encode_uint((1 << field.bitwidth) - 1)}},
            "range": {"range": {"low": part, "high": part}},
            "optional": {"optional": {"value": part}},
        }.get(field.match_type, {"exact": {"value": part}})
        matches.append(p4r.FieldMatch(field_id=field.id, **match))
    return p4r.ValueSetMember(match=matches)

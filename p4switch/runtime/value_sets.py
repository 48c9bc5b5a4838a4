"""ValueSetEntry: the members of the program's parser value sets (`value_set<T>(size)`).

A member is one exact FieldMatch per field of T (a bit<W> has one field, id 1; a struct
one per field, ids 1..n). The dataplane holds each member as the fields' values
concatenated in id order, which is how the parser's select key is compared with it.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import grpc
from finsy.proto import p4i, p4r

from p4switch.runtime.codec import decode_uint, encode_uint
from p4switch.runtime.errors import P4RuntimeError, call_dataplane, invalid, not_found


class ValueSetApi(Protocol):
    def value_set_set(self, name: str, members: list[bytes]) -> None: ...

    def value_set_get(self, name: str) -> list[bytes]: ...


@dataclass(frozen=True)
class ValueSetField:
    id: int
    name: str
    bitwidth: int


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
            if m.match_type not in (p4i.MatchField.UNSPECIFIED, p4i.MatchField.EXACT):
                kind = m.other_match_type or p4i.MatchField.MatchType.Name(m.match_type)
                raise invalid(
                    f"value set '{name}' field '{m.name}': match type {kind} is not supported "
                    "(the dataplane matches value sets exactly)"
                )
            if m.bitwidth <= 0:
                raise invalid(f"P4Info: value set '{name}' field '{m.name}' has no bitwidth")
        info = ValueSetInfo(
            id=value_set.preamble.id,
            name=name,
            fields=tuple(ValueSetField(m.id, m.name, m.bitwidth) for m in matches),
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
        kind = fm.WhichOneof("field_match_type")
        if kind != "exact":
            raise invalid(f"{what} field '{field.name}': is an exact match, got {kind}")
        given[fm.field_id] = decode_uint(
            fm.exact.value, field.bitwidth, f"{what} field '{field.name}'"
        )
    missing = [f.name for f in info.fields if f.id not in given]
    if missing:
        raise invalid(f"{what}: missing match field(s) {', '.join(missing)}")
    value = 0
    for field in info.fields:
        value = value << field.bitwidth | given[field.id]
    return value.to_bytes((info.bitwidth + 7) // 8, "big")


def _fields(info: ValueSetInfo, value: int) -> p4r.ValueSetMember:
    """A dataplane member split back into its fields, each in canonical form."""
    matches = []
    shift = info.bitwidth
    for field in info.fields:
        shift -= field.bitwidth
        part = value >> shift & ((1 << field.bitwidth) - 1)
        matches.append(p4r.FieldMatch(field_id=field.id, exact={"value": encode_uint(part)}))
    return p4r.ValueSetMember(match=matches)

"""A table's `const entries` as P4Runtime reads them back, built from the BMv2 JSON's
`entries` (the dataplane installs them when it loads the JSON).

PI reads them from BMv2 and answers in P4Runtime form: don't-care fields left out, and
BMv2's priority (lower wins) inverted around INT32_MAX, the pivot PI's bmv2 target uses
both ways, so that higher wins as P4Runtime has it.
"""

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from finsy.proto import p4r

from p4aqm.switch.runtime.codec import encode_uint
from p4aqm.switch.runtime.errors import invalid

# PI's BM_MAX_PRIORITY: P4Runtime priority = this - BMv2 priority.
BM_MAX_PRIORITY = 2**31 - 1


class Field(Protocol):
    """A match field as the pipeline describes it (pipeline.MatchFieldInfo)."""

    @property
    def id(self) -> int: ...
    @property
    def bitwidth(self) -> int: ...
    @property
    def match_type(self) -> str: ...


class Param(Protocol):
    @property
    def id(self) -> int: ...


def const_entries(
    table_id: int,
    table_name: str,
    fields: Sequence[Field],
    needs_priority: bool,
    json_table: dict[str, Any],
    action_of: Callable[[Any], tuple[int, Sequence[Param]] | None],
) -> tuple[p4r.TableEntry, ...]:
    """The entries of `json_table` ("entries"), `fields` in BMv2 key order, with each
    JSON action id mapped by `action_of` to its P4Info action id and parameters."""
    entries = []
    for i, e in enumerate(json_table.get("entries") or ()):
        what = f"table '{table_name}' const entry {i}"
        try:
            entries.append(_entry(table_id, fields, needs_priority, e, action_of, what))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise invalid(f"{what}: malformed in the BMv2 JSON ({exc!r})") from None
    return tuple(entries)


def _entry(
    table_id: int,
    fields: Sequence[Field],
    needs_priority: bool,
    e: dict[str, Any],
    action_of: Callable[[Any], tuple[int, Sequence[Param]] | None],
    what: str,
) -> p4r.TableEntry:
    keys = e.get("match_key") or []
    if len(keys) != len(fields):
        raise invalid(f"{what}: {len(keys)} match keys for {len(fields)} fields")
    entry = p4r.TableEntry(table_id=table_id)
    for field, key in zip(fields, keys, strict=True):
        match = _field_match(field, key, what)
        if match is not None:
            entry.match.append(match)
    action_entry = e.get("action_entry") or {}
    found = action_of(action_entry.get("action_id"))
    if found is None:
        raise invalid(f"{what}: its action is not in the P4Info")
    action_id, params = found
    data = action_entry.get("action_data") or []
    if len(data) != len(params):
        raise invalid(f"{what}: {len(data)} action arguments for {len(params)} parameters")
    entry.action.action.action_id = action_id
    for param, value in zip(params, data, strict=True):
        entry.action.action.params.add(param_id=param.id, value=encode_uint(_int(value)))
    if needs_priority:
        entry.priority = BM_MAX_PRIORITY - int(e.get("priority", 0))
    return entry


def _int(hexstr: Any) -> int:
    return int(str(hexstr), 16)


def _field_match(field: Field, key: dict[str, Any], what: str) -> p4r.FieldMatch | None:
    """The FieldMatch of one JSON match key, or None for a don't-care (P4Runtime omits it)."""
    full = (1 << field.bitwidth) - 1
    kind = field.match_type
    match = p4r.FieldMatch(field_id=field.id)
    if kind == "exact":
        match.exact.value = encode_uint(_int(key["key"]))
    elif kind == "lpm":
        prefix = int(key["prefix_length"])
        if prefix == 0:
            return None
        match.lpm.value = encode_uint(_int(key["key"]))
        match.lpm.prefix_len = prefix
    elif kind in ("ternary", "optional"):
        # BMv2 has no optional match: p4c writes an optional key as a ternary one.
        mask = _int(key["mask"]) & full
        if mask == 0:
            return None
        if kind == "ternary":
            match.ternary.value = encode_uint(_int(key["key"]) & mask)
            match.ternary.mask = encode_uint(mask)
        else:
            match.optional.value = encode_uint(_int(key["key"]))
    elif kind == "range":
        low, high = _int(key["start"]), _int(key["end"])
        if (low, high) == (0, full):
            return None
        match.range.low = encode_uint(low)
        match.range.high = encode_uint(high)
    else:
        raise invalid(f"{what}: match type {kind} has no P4Runtime form")
    return match

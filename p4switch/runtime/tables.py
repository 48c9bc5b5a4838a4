"""Table entries: P4Runtime TableEntry messages checked, stored and applied to the dataplane.

The store is the source of truth for reads: the dataplane only returns handles, so every
entry written is kept here in canonical form, keyed by its match key and priority (two
entries with the same key and priority are the same entry for P4Runtime).
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

import grpc
from finsy.proto import p4i, p4r

from p4switch.runtime.codec import canonical, decode_uint, encode_uint, is_canonical
from p4switch.runtime.errors import (
    P4RuntimeError,
    call_dataplane,
    invalid,
    not_found,
)
from p4switch.runtime.pipeline import ActionInfo, Pipeline, TableInfo

# A match key: (field id, serialized canonical FieldMatch) per field that is not a wildcard.
MatchKey = tuple[tuple[int, bytes], ...]


# TableEntry fields a stored entry never keeps: direct resources live in their own
# stores, and the hit time is the switch's to report.
_NOT_STORED = ("counter_data", "meter_config", "meter_counter_data", "time_since_last_hit")


class TableApi(Protocol):
    def table_add(
        self,
        table: str,
        keys: list[tuple],
        action: str,
        action_data: list[bytes],
        priority: int,
    ) -> int: ...

    def table_modify(
        self, table: str, handle: int, action: str, action_data: list[bytes]
    ) -> None: ...

    def table_delete(self, table: str, handle: int) -> None: ...

    def table_set_default(self, table: str, action: str, action_data: list[bytes]) -> None: ...

    def table_clear(self, table: str) -> None: ...


@dataclass
class StoredEntry:
    handle: int
    entry: p4r.TableEntry


class TableStore:
    """The entries of every table of one pipeline, mirrored into the dataplane."""

    def __init__(self, dataplane: TableApi, pipeline: Pipeline) -> None:
        self._dp = dataplane
        self._pipeline = pipeline
        self._entries: dict[int, dict[tuple[int, MatchKey], StoredEntry]] = {
            table_id: {} for table_id in pipeline.tables
        }
        self._defaults = {t.id: self._initial_default(t) for t in pipeline.tables.values()}

    @property
    def pipeline(self) -> Pipeline:
        return self._pipeline

    # -- writes ------------------------------------------------------------------------

    def write(self, update_type: int, entry: p4r.TableEntry) -> None:
        """Apply one INSERT, MODIFY or DELETE; raise P4RuntimeError if it is refused.
        The entry's direct counter and meter fields are table_entries.py's concern."""
        table = self._pipeline.table(entry.table_id)
        if table.is_const:
            raise P4RuntimeError(
                grpc.StatusCode.PERMISSION_DENIED, f"table '{table.name}' is const"
            )
        if entry.idle_timeout_ns:
            raise invalid(f"table '{table.name}' does not support idle timeouts")
        if entry.is_default_action:
            self._write_default(update_type, table, entry)
        elif update_type == p4r.Update.INSERT:
            self._insert(table, entry)
        elif update_type == p4r.Update.MODIFY:
            self._modify(table, entry)
        elif update_type == p4r.Update.DELETE:
            self._delete(table, entry)
        else:
            raise invalid(f"update type {update_type} is not INSERT, MODIFY or DELETE")

    def _insert(self, table: TableInfo, entry: p4r.TableEntry) -> None:
        matches, key = self._match(table, entry.match)
        _check_priority(table, entry.priority)
        entries = self._entries[table.id]
        if (entry.priority, key) in entries:
            raise P4RuntimeError(
                grpc.StatusCode.ALREADY_EXISTS,
                f"table '{table.name}' already has an entry with this match key and priority",
            )
        if table.size and len(entries) >= table.size:
            raise P4RuntimeError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"table '{table.name}' is full ({table.size} entries)",
            )
        action, args, action_msg = self._action(table, entry, default=False)
        handle = call_dataplane(
            self._dp.table_add,
            table.name,
            [m[1] for m in matches],
            action.name,
            args,
            entry.priority,
        )
        canonical_match = [m[0] for m in matches if m[0] is not None]
        if action_msg is entry.action and all(
            a is b for a, b in zip(canonical_match, entry.match, strict=False)
        ):
            # The request is canonical already, as most clients send it: one C-level copy
            # instead of rebuilding it field by field (a large share of an insert's time).
            stored = p4r.TableEntry()
            stored.CopyFrom(entry)
            for name in _NOT_STORED:
                stored.ClearField(name)
        else:
            stored = p4r.TableEntry(
                table_id=table.id,
                match=canonical_match,
                action=action_msg,
                priority=entry.priority,
                controller_metadata=entry.controller_metadata,
                metadata=entry.metadata,
            )
        entries[(entry.priority, key)] = StoredEntry(handle, stored)

    def _modify(self, table: TableInfo, entry: p4r.TableEntry) -> None:
        _, stored = self._find(table, entry)
        action, args, action_msg = self._action(table, entry, default=False)
        call_dataplane(self._dp.table_modify, table.name, stored.handle, action.name, args)
        stored.entry.action.CopyFrom(action_msg)
        stored.entry.controller_metadata = entry.controller_metadata
        stored.entry.metadata = entry.metadata

    def _delete(self, table: TableInfo, entry: p4r.TableEntry) -> None:
        key, stored = self._find(table, entry)
        call_dataplane(self._dp.table_delete, table.name, stored.handle)
        del self._entries[table.id][key]

    def _find(
        self, table: TableInfo, entry: p4r.TableEntry
    ) -> tuple[tuple[int, MatchKey], StoredEntry]:
        _, match_key = self._match(table, entry.match)
        _check_priority(table, entry.priority)
        key = (entry.priority, match_key)
        stored = self._entries[table.id].get(key)
        if stored is None:
            raise not_found(f"table '{table.name}' has no entry with this match key and priority")
        return key, stored

    def _write_default(self, update_type: int, table: TableInfo, entry: p4r.TableEntry) -> None:
        if update_type != p4r.Update.MODIFY:
            raise invalid(f"table '{table.name}': the default entry can only be modified")
        if entry.match or entry.priority:
            raise invalid(f"table '{table.name}': the default entry has no match or priority")
        if table.const_default_action_id:
            raise P4RuntimeError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"table '{table.name}' has a const default action",
            )
        if entry.HasField("action"):
            action, args, action_msg = self._action(table, entry, default=True)
            new_default = p4r.TableEntry(
                table_id=table.id, action=action_msg, is_default_action=True
            )
        elif table.initial_default is not None:
            # MODIFY without an action restores the program's default action.
            new_default = self._initial_default(table)
            action = self._pipeline.action(table.initial_default[0])
            args = list(table.initial_default[1])
        else:
            raise invalid(f"table '{table.name}': no initial default action to restore")
        call_dataplane(self._dp.table_set_default, table.name, action.name, args)
        self._defaults[table.id] = new_default

    def _initial_default(self, table: TableInfo) -> p4r.TableEntry:
        entry = p4r.TableEntry(table_id=table.id, is_default_action=True)
        if table.initial_default is not None:
            action_id, args = table.initial_default
            entry.action.action.action_id = action_id
            for param, value in zip(self._pipeline.action(action_id).params, args, strict=True):
                entry.action.action.params.add(param_id=param.id, value=value)
        return entry

    # -- reads -------------------------------------------------------------------------

    def read(self, query: p4r.TableEntry) -> Iterator[p4r.TableEntry]:
        """The stored entries that `query` selects (P4Runtime wildcard read rules)."""
        if query.is_default_action:
            for table in self._tables(query):
                yield _copy(self._defaults[table.id])
            return
        for _, stored in self.select(query):
            yield _copy(stored.entry)

    def select(self, query: p4r.TableEntry) -> Iterator[tuple[TableInfo, StoredEntry]]:
        """The stored (non-default) entries that `query` selects, with their tables."""
        for table in self._tables(query):
            key = self._match(table, query.match)[1] if query.match else None
            for (priority, entry_key), stored in self._entries[table.id].items():
                if key is not None and entry_key != key:
                    continue
                if query.priority and priority != query.priority:
                    continue
                yield table, stored

    def find(self, entry: p4r.TableEntry) -> tuple[TableInfo, StoredEntry]:
        """The one stored entry with `entry`'s match key and priority, or NOT_FOUND."""
        table = self._pipeline.table(entry.table_id)
        return table, self._find(table, entry)[1]

    def _tables(self, query: p4r.TableEntry) -> list[TableInfo]:
        if query.table_id == 0:
            if query.match or query.priority:
                raise invalid("a read of all tables (table_id 0) cannot filter on match fields")
            return list(self._pipeline.tables.values())
        return [self._pipeline.table(query.table_id)]

    # -- checks and translation --------------------------------------------------------

    def _match(
        self, table: TableInfo, match: list[p4r.FieldMatch]
    ) -> tuple[list[tuple[p4r.FieldMatch | None, tuple]], MatchKey]:
        """Per field in dataplane order, (canonical FieldMatch or None, dataplane key tuple),
        and the store key."""
        given: dict[int, p4r.FieldMatch] = {}
        for fm in match:
            if fm.field_id not in table.fields_by_id:
                raise invalid(f"table '{table.name}' has no match field with id {fm.field_id}")
            if fm.field_id in given:
                raise invalid(f"table '{table.name}': match field id {fm.field_id} given twice")
            given[fm.field_id] = fm
        result = []
        for field in table.fields:
            fm = given.get(field.id)
            what = f"table '{table.name}' field '{field.name}'"
            kind = fm.WhichOneof("field_match_type") if fm is not None else None
            if fm is not None and kind != field.match_type:
                raise invalid(f"{what}: is a {field.match_type} match, got {kind}")
            result.append(_field_match(field.match_type, field.bitwidth, fm, what))
        key = tuple((m.field_id, m.SerializeToString(deterministic=True)) for m, _ in result if m)
        return result, key

    def _action(
        self, table: TableInfo, entry: p4r.TableEntry, default: bool
    ) -> tuple[ActionInfo, list[bytes], p4r.TableAction]:
        kind = entry.action.WhichOneof("type") if entry.HasField("action") else None
        if kind is None:
            raise invalid(f"table '{table.name}': the entry has no action")
        if kind != "action":
            raise invalid(f"table '{table.name}' has no action profile, got {kind}")
        msg = entry.action.action
        scope = table.action_scopes.get(msg.action_id)
        if scope is None:
            raise invalid(f"table '{table.name}' has no action with id {msg.action_id}")
        action = self._pipeline.action(msg.action_id)
        if default and scope == p4i.ActionRef.TABLE_ONLY:
            raise invalid(f"action '{action.name}' cannot be the default of '{table.name}'")
        if not default and scope == p4i.ActionRef.DEFAULT_ONLY:
            raise invalid(f"action '{action.name}' is only a default action of '{table.name}'")
        given: dict[int, bytes] = {}
        params = [(p.param_id, p.value) for p in msg.params]
        for param_id, value in params:
            info = action.param(param_id)
            if info is None:
                raise invalid(f"action '{action.name}' has no parameter with id {param_id}")
            if param_id in given:
                raise invalid(f"action '{action.name}': parameter '{info.name}' given twice")
            if is_canonical(value, info.bitwidth):
                given[param_id] = value
            else:
                what = f"action '{action.name}' parameter '{info.name}'"
                given[param_id] = canonical(value, info.bitwidth, what)
        missing = [p.name for p in action.params if p.id not in given]
        if missing:
            raise invalid(f"action '{action.name}': missing parameter(s) {', '.join(missing)}")
        args = [given[p.id] for p in action.params]
        if params == list(zip((p.id for p in action.params), args, strict=True)):
            return action, args, entry.action  # canonical and in order already
        # Filled in place: about half the cost of nested constructor calls.
        action_msg = p4r.TableAction()
        canonical_action = action_msg.action
        canonical_action.action_id = action.id
        for p, value in zip(action.params, args, strict=True):
            canonical_action.params.add(param_id=p.id, value=value)
        return action, args, action_msg


def _field_match(
    match_type: str, bitwidth: int, fm: p4r.FieldMatch | None, what: str
) -> tuple[p4r.FieldMatch | None, tuple]:
    """One field: its canonical FieldMatch (None for a wildcard) and its dataplane key.

    P4Runtime requires don't-care fields to be omitted, so a zero prefix length, a zero
    mask or a full range is refused rather than silently taken as a wildcard.
    """
    full = (1 << bitwidth) - 1
    if fm is None:
        if match_type == "exact":
            raise invalid(f"{what}: exact match field is missing")
        wildcard = {
            "lpm": ("lpm", b"\x00", 0),
            "ternary": ("ternary", b"\x00", b"\x00"),
            "optional": ("ternary", b"\x00", b"\x00"),
            "range": ("range", b"\x00", encode_uint(full)),
        }
        return None, wildcard[match_type]
    if match_type == "exact":
        value = fm.exact.value
        if is_canonical(value, bitwidth):
            return fm, ("exact", value)
        value = canonical(value, bitwidth, what)
        return p4r.FieldMatch(field_id=fm.field_id, exact={"value": value}), ("exact", value)
    if match_type == "lpm":
        plen = fm.lpm.prefix_len
        if not 0 < plen <= bitwidth:
            raise invalid(
                f"{what}: prefix length {plen} is not in 1..{bitwidth} "
                "(omit the field for a wildcard)"
            )
        number = decode_uint(fm.lpm.value, bitwidth, what)
        if number & (full >> plen):
            raise invalid(f"{what}: value has bits set beyond the /{plen} prefix")
        value = encode_uint(number)
        if value == fm.lpm.value:
            return fm, ("lpm", value, plen)
        return (
            p4r.FieldMatch(field_id=fm.field_id, lpm={"value": value, "prefix_len": plen}),
            ("lpm", value, plen),
        )
    if match_type == "ternary":
        number = decode_uint(fm.ternary.value, bitwidth, what)
        mask = decode_uint(fm.ternary.mask, bitwidth, f"{what} mask")
        if mask == 0:
            raise invalid(f"{what}: mask is zero (omit the field for a wildcard)")
        if number & ~mask:
            raise invalid(f"{what}: value has bits set outside the mask")
        value, mask_bytes = encode_uint(number), encode_uint(mask)
        if (value, mask_bytes) == (fm.ternary.value, fm.ternary.mask):
            return fm, ("ternary", value, mask_bytes)
        return (
            p4r.FieldMatch(field_id=fm.field_id, ternary={"value": value, "mask": mask_bytes}),
            ("ternary", value, mask_bytes),
        )
    if match_type == "range":
        low = decode_uint(fm.range.low, bitwidth, f"{what} low")
        high = decode_uint(fm.range.high, bitwidth, f"{what} high")
        if low > high:
            raise invalid(f"{what}: range low {low:#x} is above high {high:#x}")
        if low == 0 and high == full:
            raise invalid(f"{what}: full range (omit the field for a wildcard)")
        low_b, high_b = encode_uint(low), encode_uint(high)
        if (low_b, high_b) == (fm.range.low, fm.range.high):
            return fm, ("range", low_b, high_b)
        return (
            p4r.FieldMatch(field_id=fm.field_id, range={"low": low_b, "high": high_b}),
            ("range", low_b, high_b),
        )
    value = canonical(fm.optional.value, bitwidth, what)
    if value == fm.optional.value:
        return fm, ("ternary", value, encode_uint(full))
    return (
        p4r.FieldMatch(field_id=fm.field_id, optional={"value": value}),
        ("ternary", value, encode_uint(full)),
    )


def _check_priority(table: TableInfo, priority: int) -> None:
    if table.needs_priority and priority <= 0:
        raise invalid(
            f"table '{table.name}' has ternary, range or optional fields: "
            "entries need a priority > 0"
        )
    if not table.needs_priority and priority != 0:
        raise invalid(
            f"table '{table.name}' has no ternary, range or optional field: priority must be 0"
        )


def _copy(entry: p4r.TableEntry) -> p4r.TableEntry:
    """A copy for a reader, so that later writes do not change what was read."""
    result = p4r.TableEntry()
    result.CopyFrom(entry)
    return result

"""TableEntry: P4Runtime table entries checked, stored and applied to the dataplane, with
their direct resources: the counter_data and meter_config fields, which set the entry's
direct counter and meter on a write and are filled in on a read that asks for them
(P4Runtime returns them only when the read request sets the field).

The store is the source of truth for reads: the dataplane only returns handles, so every
entry written is kept here in canonical form, keyed by its match key and priority (two
entries with the same key and priority are the same entry for P4Runtime).
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

import grpc
from finsy.proto import p4i, p4r

from p4aqm.switch.runtime.action_data import action_arguments
from p4aqm.switch.runtime.action_profiles import ActionProfileApi, ActionProfiles, EntryTarget
from p4aqm.switch.runtime.counters import DirectCounterApi
from p4aqm.switch.runtime.errors import (
    P4RuntimeError,
    call_dataplane,
    invalid,
    not_found,
    unimplemented,
)
from p4aqm.switch.runtime.field_matches import field_match
from p4aqm.switch.runtime.meters import DirectMeterApi, checked_rates, meter_config
from p4aqm.switch.runtime.pipeline import ActionInfo, Pipeline, TableInfo

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

    def table_entry_idle_ns(self, table: str, handle: int) -> int: ...

    def table_add_indirect(
        self, table: str, keys: list[tuple], group: bool, target: int, priority: int
    ) -> int: ...

    def table_modify_indirect(self, table: str, handle: int, group: bool, target: int) -> None: ...


class TableEntryApi(TableApi, ActionProfileApi, DirectCounterApi, DirectMeterApi, Protocol):
    """The dataplane methods behind TableEntry, its direct counter and its direct meter."""


@dataclass
class StoredEntry:
    handle: int
    entry: p4r.TableEntry
    # In a table with an action profile: the member or group the entry points to.
    target: EntryTarget | None = None


class TableEntries:
    """The entries of every table of one pipeline, mirrored into the dataplane."""

    def __init__(
        self, dataplane: TableEntryApi, pipeline: Pipeline, profiles: ActionProfiles
    ) -> None:
        self._dp = dataplane
        self._pipeline = pipeline
        self._profiles = profiles
        self._resources = pipeline.resources
        self._entries: dict[int, dict[tuple[int, MatchKey], StoredEntry]] = {
            table_id: {} for table_id in pipeline.tables
        }
        self._defaults = {t.id: self._initial_default(t) for t in pipeline.tables.values()}
        for table in pipeline.tables.values():
            self._store_const_entries(table)

    def _store_const_entries(self, table: TableInfo) -> None:
        """The entries the dataplane installed from the JSON, with the handles it gave
        them: in order, from 0 (it refuses a JSON that repeats an entry, as BMv2 does)."""
        entries = self._entries[table.id]
        for handle, entry in enumerate(table.const_entries):
            entries[(entry.priority, self._match(table, entry.match)[1])] = StoredEntry(
                handle, entry
            )

    @property
    def pipeline(self) -> Pipeline:
        return self._pipeline

    # -- writes ------------------------------------------------------------------------

    def write(self, update_type: int, entry: p4r.TableEntry) -> None:
        if entry.HasField("meter_counter_data"):
            raise unimplemented("TableEntry.meter_counter_data (per-color counts) is not supported")
        has_counter, has_meter = entry.HasField("counter_data"), entry.HasField("meter_config")
        if not (has_counter or has_meter) or update_type == p4r.Update.DELETE:
            # P4Runtime ignores the direct resources of a deleted entry.
            self._write_without_direct(update_type, _without_direct(entry))
            return
        table = self._pipeline.table(entry.table_id)
        if entry.is_default_action:
            raise invalid(f"table '{table.name}': the default entry has no direct resources")
        if has_counter:
            self._resources.direct_counter_of(table.id, table.name)
            counts = (entry.counter_data.byte_count, entry.counter_data.packet_count)
            if min(counts) < 0:
                raise invalid(f"table '{table.name}': negative counter_data")
        if has_meter:
            meter = self._resources.direct_meter_of(table.id, table.name)
            rates = checked_rates(entry.meter_config, f"direct meter '{meter.name}'")
        plain = _without_direct(entry)
        self._write_without_direct(update_type, plain)
        _, stored = self.find(plain)
        if has_counter:
            call_dataplane(self._dp.direct_counter_write, table.name, stored.handle, *counts)
        if has_meter:
            call_dataplane(self._dp.direct_meter_set, table.name, stored.handle, *rates)

    def _write_without_direct(self, update_type: int, entry: p4r.TableEntry) -> None:
        """Apply one INSERT, MODIFY or DELETE of an entry without direct resources; raise
        P4RuntimeError if it is refused."""
        table = self._pipeline.table(entry.table_id)
        if table.is_const:
            raise P4RuntimeError(
                grpc.StatusCode.PERMISSION_DENIED, f"table '{table.name}' is const"
            )
        if entry.idle_timeout_ns and not table.supports_idle_timeout:
            raise invalid(f"table '{table.name}' does not support idle timeouts")
        if entry.idle_timeout_ns < 0:
            raise invalid(f"table '{table.name}': negative idle_timeout_ns")
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
        canonical_match = [m[0] for m in matches if m[0] is not None]
        keys = [m[1] for m in matches]
        target = None
        if table.implementation_id:
            target, action_msg, handle = self._profiles.point(
                table,
                entry.action,
                lambda t: call_dataplane(
                    self._dp.table_add_indirect,
                    table.name,
                    keys,
                    t.is_group,
                    t.handle,
                    entry.priority,
                ),
            )
        else:
            action, args, action_msg = self._action(table, entry, default=False)
            handle = call_dataplane(
                self._dp.table_add, table.name, keys, action.name, args, entry.priority
            )
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
                idle_timeout_ns=entry.idle_timeout_ns,
            )
        entries[(entry.priority, key)] = StoredEntry(handle, stored, target)

    def _modify(self, table: TableInfo, entry: p4r.TableEntry) -> None:
        _, stored = self._find(table, entry)
        if stored.target is not None:
            target, action_msg, _ = self._profiles.point(
                table,
                entry.action,
                lambda t: call_dataplane(
                    self._dp.table_modify_indirect, table.name, stored.handle, t.is_group, t.handle
                ),
            )
            self._profiles.release(stored.target)
            stored.target = target
        else:
            action, args, action_msg = self._action(table, entry, default=False)
            call_dataplane(self._dp.table_modify, table.name, stored.handle, action.name, args)
        stored.entry.action.CopyFrom(action_msg)
        stored.entry.controller_metadata = entry.controller_metadata
        stored.entry.metadata = entry.metadata
        stored.entry.idle_timeout_ns = entry.idle_timeout_ns

    def _delete(self, table: TableInfo, entry: p4r.TableEntry) -> None:
        key, stored = self._find(table, entry)
        call_dataplane(self._dp.table_delete, table.name, stored.handle)
        if stored.target is not None:
            self._profiles.release(stored.target)
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
        if table.implementation_id:
            raise unimplemented(
                f"table '{table.name}' has an action profile: its default entry cannot change"
            )
        if entry.HasField("action"):
            action, args, action_msg = self._action(table, entry, default=True)
            # The client's cookies are kept and read back, as PI keeps them; a reset
            # (no action) clears them.
            new_default = p4r.TableEntry(
                table_id=table.id,
                action=action_msg,
                is_default_action=True,
                controller_metadata=entry.controller_metadata,
                metadata=entry.metadata,
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
        want_counter, want_meter = query.HasField("counter_data"), query.HasField("meter_config")
        want_hit_time = query.HasField("time_since_last_hit")
        plain = _without_direct(query)
        if not (want_counter or want_meter or want_hit_time) or query.is_default_action:
            yield from self._read_without_direct(plain)
            return
        for table, stored in self.select(plain):
            entry = self._with_direct(table, stored, want_counter, want_meter)
            if want_hit_time and table.supports_idle_timeout:
                idle_ns = call_dataplane(self._dp.table_entry_idle_ns, table.name, stored.handle)
                entry.time_since_last_hit.elapsed_ns = idle_ns
            yield entry

    def _with_direct(
        self, table: TableInfo, stored: StoredEntry, want_counter: bool, want_meter: bool
    ) -> p4r.TableEntry:
        entry = p4r.TableEntry()
        entry.CopyFrom(stored.entry)
        with_counter = any(c.table_id == table.id for c in self._resources.direct_counters.values())
        with_meter = any(m.table_id == table.id for m in self._resources.direct_meters.values())
        if want_counter and with_counter:
            counts = call_dataplane(self._dp.direct_counter_read, table.name, stored.handle)
            entry.counter_data.CopyFrom(
                p4r.CounterData(byte_count=counts[0], packet_count=counts[1])
            )
        if want_meter and with_meter:
            rates = call_dataplane(self._dp.direct_meter_get, table.name, stored.handle)
            if rates is not None:
                entry.meter_config.CopyFrom(meter_config(rates))
        return entry

    def _read_without_direct(self, query: p4r.TableEntry) -> Iterator[p4r.TableEntry]:
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
            result.append(field_match(field.match_type, field.bitwidth, fm, what))
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
        args, as_given = action_arguments(action, msg)
        if as_given:
            return action, args, entry.action  # canonical and in order already
        # Filled in place: about half the cost of nested constructor calls.
        action_msg = p4r.TableAction()
        canonical_action = action_msg.action
        canonical_action.action_id = action.id
        for p, value in zip(action.params, args, strict=True):
            canonical_action.params.add(param_id=p.id, value=value)
        return action, args, action_msg


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


def _without_direct(entry: p4r.TableEntry) -> p4r.TableEntry:
    plain = p4r.TableEntry()
    plain.CopyFrom(entry)
    plain.ClearField("counter_data")
    plain.ClearField("meter_config")
    return plain

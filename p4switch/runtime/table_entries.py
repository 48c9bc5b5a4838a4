"""TableEntry with its direct resources: the counter_data and meter_config fields, which
set the entry's direct counter and meter on a write and are filled in on a read that
asks for them (P4Runtime returns them only when the read request sets the field)."""

from collections.abc import Iterator
from typing import Protocol

from finsy.proto import p4r

from p4switch.runtime.counters import DirectCounterApi
from p4switch.runtime.errors import call_dataplane, invalid, unimplemented
from p4switch.runtime.meters import DirectMeterApi, meter_config, meter_rates
from p4switch.runtime.pipeline import TableInfo
from p4switch.runtime.tables import StoredEntry, TableStore


class DirectApi(DirectCounterApi, DirectMeterApi, Protocol):
    pass


def _without_direct(entry: p4r.TableEntry) -> p4r.TableEntry:
    plain = p4r.TableEntry()
    plain.CopyFrom(entry)
    plain.ClearField("counter_data")
    plain.ClearField("meter_config")
    return plain


class TableEntries:
    def __init__(self, dataplane: DirectApi, tables: TableStore) -> None:
        self._dp = dataplane
        self._tables = tables
        self._resources = tables.pipeline.resources

    def write(self, update_type: int, entry: p4r.TableEntry) -> None:
        if entry.HasField("meter_counter_data"):
            raise unimplemented("TableEntry.meter_counter_data (per-color counts) is not supported")
        has_counter, has_meter = entry.HasField("counter_data"), entry.HasField("meter_config")
        if not (has_counter or has_meter) or update_type == p4r.Update.DELETE:
            # P4Runtime ignores the direct resources of a deleted entry.
            self._tables.write(update_type, _without_direct(entry))
            return
        table = self._tables.pipeline.table(entry.table_id)
        if entry.is_default_action:
            raise invalid(f"table '{table.name}': the default entry has no direct resources")
        if has_counter:
            self._resources.direct_counter_of(table.id, table.name)
            counts = (entry.counter_data.byte_count, entry.counter_data.packet_count)
            if min(counts) < 0:
                raise invalid(f"table '{table.name}': negative counter_data")
        if has_meter:
            meter = self._resources.direct_meter_of(table.id, table.name)
            rates = meter_rates(True, entry.meter_config, f"direct meter '{meter.name}'")
        plain = _without_direct(entry)
        self._tables.write(update_type, plain)
        _, stored = self._tables.find(plain)
        if has_counter:
            call_dataplane(self._dp.direct_counter_write, table.name, stored.handle, *counts)
        if has_meter:
            call_dataplane(self._dp.direct_meter_set, table.name, stored.handle, *rates)

    def read(self, query: p4r.TableEntry) -> Iterator[p4r.TableEntry]:
        want_counter, want_meter = query.HasField("counter_data"), query.HasField("meter_config")
        plain = _without_direct(query)
        if not (want_counter or want_meter) or query.is_default_action:
            yield from self._tables.read(plain)
            return
        for table, stored in self._tables.select(plain):
            yield self._with_direct(table, stored, want_counter, want_meter)

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

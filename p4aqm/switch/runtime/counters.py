"""CounterEntry and DirectCounterEntry: packet and byte counts, read and reset/set."""

from collections.abc import Iterator
from typing import Protocol

from finsy.proto import p4r

from p4aqm.switch.runtime.entry_lookup import EntryLookup
from p4aqm.switch.runtime.errors import call_dataplane, invalid
from p4aqm.switch.runtime.indexes import cells, check_modify
from p4aqm.switch.runtime.resources import Resources


class CounterApi(Protocol):
    def counter_read(self, name: str, index: int) -> tuple[int, int]: ...

    def counter_write(self, name: str, index: int, byte_count: int, packet_count: int) -> None: ...


class DirectCounterApi(Protocol):
    def direct_counter_read(self, table: str, handle: int) -> tuple[int, int]: ...

    def direct_counter_write(
        self, table: str, handle: int, byte_count: int, packet_count: int
    ) -> None: ...


def _counts(data: p4r.CounterData, what: str) -> tuple[int, int]:
    if data.byte_count < 0 or data.packet_count < 0:
        raise invalid(f"{what}: byte_count and packet_count must not be negative")
    return data.byte_count, data.packet_count


def _data(counts: tuple[int, int]) -> p4r.CounterData:
    return p4r.CounterData(byte_count=counts[0], packet_count=counts[1])


class Counters:
    def __init__(self, dataplane: CounterApi, resources: Resources) -> None:
        self._dp = dataplane
        self._resources = resources

    def write(self, update_type: int, entry: p4r.CounterEntry) -> None:
        check_modify(update_type, "counter")
        if entry.counter_id == 0:
            raise invalid("counter write: counter_id 0 (all counters) cannot be written")
        counter = self._resources.counter(entry.counter_id)
        counts = _counts(entry.data, f"counter '{counter.name}'")
        for index in cells(counter, entry.HasField("index"), entry.index.index, "counter"):
            call_dataplane(self._dp.counter_write, counter.name, index, *counts)

    def read(self, query: p4r.CounterEntry) -> Iterator[p4r.CounterEntry]:
        if query.counter_id == 0:
            if query.HasField("index"):
                raise invalid("counter read: an index needs a counter_id")
            counters = list(self._resources.counters.values())
        else:
            counters = [self._resources.counter(query.counter_id)]
        for counter in counters:
            for index in cells(counter, query.HasField("index"), query.index.index, "counter"):
                counts = call_dataplane(self._dp.counter_read, counter.name, index)
                yield p4r.CounterEntry(
                    counter_id=counter.id, index=p4r.Index(index=index), data=_data(counts)
                )


class DirectCounters:
    """The counters attached to table entries, addressed by the entry's match key."""

    def __init__(self, dataplane: DirectCounterApi, table_entries: EntryLookup) -> None:
        self._dp = dataplane
        self._table_entries = table_entries
        self._resources = table_entries.pipeline.resources

    def write(self, update_type: int, entry: p4r.DirectCounterEntry) -> None:
        check_modify(update_type, "direct counter")
        table, stored = self._table_entries.find(entry.table_entry)
        counter = self._resources.direct_counter_of(table.id, table.name)
        counts = _counts(entry.data, f"direct counter '{counter.name}'")
        call_dataplane(self._dp.direct_counter_write, table.name, stored.handle, *counts)

    def read(self, query: p4r.DirectCounterEntry) -> Iterator[p4r.DirectCounterEntry]:
        if query.table_entry.is_default_action:
            raise invalid("direct counter read: default entries have no direct counter")
        with_counters = {c.table_id for c in self._resources.direct_counters.values()}
        if query.table_entry.table_id:
            table = self._table_entries.pipeline.table(query.table_entry.table_id)
            self._resources.direct_counter_of(table.id, table.name)
        for table, stored in self._table_entries.select(query.table_entry):
            if table.id not in with_counters:
                continue
            counts = call_dataplane(self._dp.direct_counter_read, table.name, stored.handle)
            yield p4r.DirectCounterEntry(table_entry=stored.entry, data=_data(counts))

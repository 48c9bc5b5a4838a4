"""P4Runtime idle timeouts. An entry written with `idle_timeout_ns` in a table whose
P4Info says NOTIFY_CONTROL (v1model's `support_timeout = true`) is reported to the
primary client in an IdleTimeoutNotification once no packet has hit it for that long
(since its insertion, if never). It is reported once; a hit re-arms it. The entry stays
until the client deletes it, as P4Runtime leaves that to the controller."""

from collections.abc import Iterator

from finsy.proto import p4r

from p4aqm.switch.runtime.errors import call_dataplane
from p4aqm.switch.runtime.pipeline import TableInfo
from p4aqm.switch.runtime.table_entries import StoredEntry, TableApi, TableEntries

# How often the entries are checked: a notification comes at most this late.
SWEEP_INTERVAL_S = 0.05


class IdleTimeouts:
    def __init__(self, dataplane: TableApi, table_entries: TableEntries) -> None:
        self._dp = dataplane
        self._entries = table_entries
        # (table id, handle) of the entries reported and not hit since.
        self._reported: set[tuple[int, int]] = set()

    def expired(self) -> list[p4r.TableEntry]:
        """The entries that became idle for their timeout since the last call, each with
        its time_since_last_hit."""
        newly: list[p4r.TableEntry] = []
        aging: set[tuple[int, int]] = set()
        for table, stored in self._aging_entries():
            timeout_ns = stored.entry.idle_timeout_ns
            if not timeout_ns:
                continue
            key = (table.id, stored.handle)
            aging.add(key)
            idle_ns = call_dataplane(self._dp.table_entry_idle_ns, table.name, stored.handle)
            if idle_ns < timeout_ns:
                self._reported.discard(key)
            elif key not in self._reported:
                self._reported.add(key)
                entry = p4r.TableEntry()
                entry.CopyFrom(stored.entry)
                entry.time_since_last_hit.elapsed_ns = idle_ns
                newly.append(entry)
        # A deleted entry's handle may come back for a new entry.
        self._reported &= aging
        return newly

    def _aging_entries(self) -> Iterator[tuple[TableInfo, StoredEntry]]:
        """The entries of the tables that support idle timeouts; the other tables are
        not walked, however many entries they hold."""
        for table in self._entries.pipeline.tables.values():
            if table.supports_idle_timeout:
                yield from self._entries.select(p4r.TableEntry(table_id=table.id))

"""What direct counters and meters need of the table entries: to look an entry up by its
match key.  A protocol rather than TableEntries itself, because table_entries.py imports
counters.py and meters.py (for their dataplane APIs), and they must not import it back."""

from collections.abc import Iterator
from typing import Protocol

from finsy.proto import p4r

from p4aqm.switch.runtime.pipeline import Pipeline, TableInfo


class FoundEntry(Protocol):
    """A stored table entry: its dataplane handle and its canonical form."""

    @property
    def handle(self) -> int: ...

    @property
    def entry(self) -> p4r.TableEntry: ...


class EntryLookup(Protocol):
    @property
    def pipeline(self) -> Pipeline: ...

    def find(self, entry: p4r.TableEntry) -> tuple[TableInfo, FoundEntry]:
        """The one stored entry with `entry`'s match key and priority, or NOT_FOUND."""
        ...

    def select(self, query: p4r.TableEntry) -> Iterator[tuple[TableInfo, FoundEntry]]:
        """The stored (non-default) entries that `query` selects, with their tables."""
        ...

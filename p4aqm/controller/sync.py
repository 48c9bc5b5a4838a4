"""Making the switch's tables equal to the config, by difference: the controller's retune.

The first run pushes the pipeline (finsy pushes it when the switch's cookie differs);
every later run with the same program only writes what changed, in place: a changed
action is a MODIFY, a new entry an INSERT, an entry no longer in the config a DELETE.
Nothing is cleared, so packets keep flowing through a retune: while the entries change,
a packet sees the old or the new entry, or for a moment no entry of a range being
replaced (RED's tables then default to no early drop), never a missing route.
"""

import finsy as fy
from finsy.proto import p4r


def _canonical(value: bytes) -> bytes:
    """P4Runtime's canonical bytestring: no leading zero bytes, at least one byte."""
    return value.lstrip(b"\x00") or b"\x00"


def _match_key(entry: p4r.TableEntry) -> tuple:
    fields = []
    for match in sorted(entry.match, key=lambda m: m.field_id):
        kind = match.WhichOneof("field_match_type")
        parts = getattr(match, kind)
        values = tuple(_canonical(v) if isinstance(v, bytes) else v for _, v in parts.ListFields())
        fields.append((match.field_id, kind, values))
    return (entry.table_id, tuple(fields), entry.priority)


def _action_key(entry: p4r.TableEntry) -> tuple:
    action = entry.action.action
    params = tuple(sorted((p.param_id, _canonical(p.value)) for p in action.params))
    return (action.action_id, params)


async def sync_tables(switch: fy.Switch, desired: list[fy.P4TableEntry]) -> tuple[int, int, int]:
    """Write the differences between the switch's entries and `desired`; return
    (inserted, modified, deleted). The config is the whole state of every table the
    control plane can write: an entry it does not name is deleted."""
    schema = switch.p4info
    wanted = {}
    for entry in desired:
        encoded = entry.encode_entry(schema)
        wanted[_match_key(encoded)] = (entry, encoded)
    tables = {table.name for table in schema.tables if not table.is_const}
    present: dict[tuple, tuple[fy.P4TableEntry, p4r.TableEntry]] = {}
    for table in sorted(tables):
        async for entry in switch.read(fy.P4TableEntry(table)):
            encoded = entry.encode_entry(schema)
            present[_match_key(encoded)] = (entry, encoded)

    inserts = [+entry for key, (entry, _) in wanted.items() if key not in present]
    modifies = [
        ~entry
        for key, (entry, encoded) in wanted.items()
        if key in present and _action_key(present[key][1]) != _action_key(encoded)
    ]
    deletes = [-entry for key, (entry, _) in present.items() if key not in wanted]
    # New and changed entries first, so a replaced range is covered as long as possible.
    updates = [*inserts, *modifies, *deletes]
    if updates:
        await switch.write(updates)
    return len(inserts), len(modifies), len(deletes)

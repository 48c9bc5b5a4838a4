"""P4Info IDs as p4c assigns them (P4Runtime spec section 6.3, p4c's p4RuntimeSymbolTable).

id = (resource-type prefix << 24) | (hash of the fully qualified name & 0xFFFFFF), the
hash being Jenkins' one-at-a-time.  Explicit `@id`s are reserved first; then the other
names, in sorted order, take their hash, moving to the next free value on a collision.
Using the same scheme as p4c means that controllers written against p4c's P4Info see the
same IDs from our compiler.
"""

from __future__ import annotations

from enum import IntEnum


class Prefix(IntEnum):
    ACTION = 0x01
    TABLE = 0x02
    VALUE_SET = 0x03
    CONTROLLER_HEADER = 0x04
    ACTION_PROFILE = 0x11
    COUNTER = 0x12
    DIRECT_COUNTER = 0x13
    METER = 0x14
    DIRECT_METER = 0x15
    REGISTER = 0x16
    DIGEST = 0x17


_MASK24 = 0xFFFFFF
_MASK32 = 0xFFFFFFFF


def jenkins_one_at_a_time(data: bytes) -> int:
    h = 0
    for c in data:
        h = (h + c) & _MASK32
        h = (h + (h << 10)) & _MASK32
        h ^= h >> 6
    h = (h + (h << 3)) & _MASK32
    h ^= h >> 11
    h = (h + (h << 15)) & _MASK32
    return h


def assign_ids(
    prefix: Prefix, names: list[str], explicit: dict[str, int] | None = None
) -> dict[str, int]:
    """IDs for all `names` of one resource type; `explicit` holds their `@id` values."""
    explicit = explicit or {}
    taken: set[int] = set()
    result: dict[str, int] = {}
    for name, value in explicit.items():
        ident = (prefix << 24) | (value & _MASK24)
        if ident in taken:
            raise ValueError(f"@id {value} of '{name}' is used twice")
        taken.add(ident)
        result[name] = ident
    for name in sorted(set(names) - set(explicit)):
        low = jenkins_one_at_a_time(name.encode()) & _MASK24
        while (prefix << 24) | low in taken:
            low = (low + 1) & _MASK24
        ident = (prefix << 24) | low
        taken.add(ident)
        result[name] = ident
    return result

"""Every program in p4src/ compiles, and its P4Info IDs are the ones p4c's hash gives.

The hash is written out here again from its definition (REFERENCE.md section 2, whose
check values test_ids.py verifies), so the compiler is checked against the definition,
not against itself.
"""

from pathlib import Path

import pytest
from finsy.proto import p4i
from google.protobuf import text_format

from programs import P4SRC, compile_program

PREFIXES = {
    "tables": 0x02,
    "actions": 0x01,
    "registers": 0x16,
    "counters": 0x12,
    "meters": 0x14,
    "direct_counters": 0x13,
    "direct_meters": 0x15,
}


def one_at_a_time(name: str) -> int:
    h = 0
    for c in name.encode():
        h = (h + c) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    return (h + (h << 15)) & 0xFFFFFFFF


@pytest.mark.parametrize("source", sorted(P4SRC.glob("*.p4")), ids=lambda p: p.stem)
def test_ids_follow_p4c(source: Path, tmp_path: Path) -> None:
    program = compile_program(source, tmp_path)
    p4info = text_format.Parse(program.p4info_path.read_text(), p4i.P4Info())
    checked = 0
    for kind, prefix in PREFIXES.items():
        objects = list(getattr(p4info, kind))
        natural = {
            o.preamble.name: (prefix << 24) | (one_at_a_time(o.preamble.name) & 0xFFFFFF)
            for o in objects
        }
        # A hash collision moves the later name on, so only distinct hashes are fixed.
        distinct = [n for n, i in natural.items() if list(natural.values()).count(i) == 1]
        for obj in objects:
            if obj.preamble.name in distinct:
                assert obj.preamble.id == natural[obj.preamble.name], obj.preamble.name
                checked += 1
    assert checked >= 3

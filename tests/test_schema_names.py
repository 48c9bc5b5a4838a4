"""Only p4aqm/schema.py spells the switch's gNMI paths and the monitor files' column names;
every other module of p4aqm/ and scripts/ takes them from it, so that a name changes in
one place and a copy cannot drift.

Each string constant (the literal parts of f-strings too; not docstrings, which explain)
is refused when it holds a gNMI path of ours (from "/p4aqm/", or a keyed element of one),
equals a hyphenated gNMI leaf, or equals a monitor column or a column name of earlier
files (LEGACY_COLUMNS). ALLOWED lists the texts that are also ordinary names of other
things, with why.
"""

from __future__ import annotations

import ast
from pathlib import Path

from p4aqm.schema import LEGACY_COLUMNS, Column, LeafName

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["p4aqm", "scripts"]
SCHEMA = Path("p4aqm/schema.py")
PATH_MARKS = ("port[id=", "queue[id=", "register[name=", "counter[name=")

# text -> why it is not a column there; (file, text) -> why, for one file only.
ALLOWED: dict[str | tuple[str, str], str] = {
    "port": "an old column (now egress_port), but also a gNMI path element, a route's and"
    " a manifest host's key, a P4 field (meta.port), P4Runtime's Replica.port, STF's word",
    "queue": "an old column (now qid), but also a gNMI path element and a port's config"
    " section (queue: rate_bps, ...)",
    # The schema gave the occupancy the name qdepth so that depth is the capacity alone.
    "depth_pkts": "an old column (now qdepth_pkts), and the queue's capacity: the config"
    " field of the depth-pkts leaf, field_name(LeafName.DEPTH_PKTS)",
    "depth_bytes": "an old column (now qdepth_bytes), and the queue's capacity: the config"
    " field of the depth-bytes leaf, field_name(LeafName.DEPTH_BYTES)",
    ("p4aqm/switch/runtime/replication.py", "egress_port"): "P4Runtime's Replica.egress_port"
    " (a oneof case the server reads), not a column",
}


def _names() -> dict[str, str]:
    """Each refused text, and what it is."""
    names = {str(c): "a monitor column" for c in Column}
    names |= {old: f"an old monitor column (now {new})" for old, new in LEGACY_COLUMNS.items()}
    names |= {str(leaf): "a gNMI leaf" for leaf in LeafName if "-" in leaf}
    return names


NAMES = _names()


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _refused(text: str, filename: str) -> str | None:
    """What text spells, if it is refused in filename."""
    if text in ALLOWED or (filename, text) in ALLOWED:
        return None
    if text.startswith("/p4aqm/") or any(mark in text for mark in PATH_MARKS):
        return "a gNMI path"
    return NAMES.get(text)


def spelled(source: str, filename: str) -> list[str]:
    """`file:line: 'text' is WHAT` for each refused string constant of a module."""
    tree = ast.parse(source, filename)
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and (what := _refused(node.value, filename))
        ):
            found.append((node.lineno, f"{filename}:{node.lineno}: {node.value!r} is {what}"))
    return [text for _, text in sorted(found)]


def test_only_the_schema_spells_paths_and_columns() -> None:
    paths = sorted(p for folder in SOURCES for p in (ROOT / folder).rglob("*.py"))
    assert paths, f"no Python files under {SOURCES}"
    found = []
    for path in paths:
        name = path.relative_to(ROOT)
        if name != SCHEMA:
            found += spelled(path.read_text(), str(name))
    assert not found, "spelled outside p4aqm/schema.py (take the name from it):\n" + "\n".join(
        found
    )


PLANTED = '''"""Docs may say qdepth_pkts and /p4aqm/ports/port[id=1]."""

COLUMN = "qdepth_pkts"


def f(port: int) -> str:
    """Nor is a function's docstring read: marks_delta."""
    old = ("tm_drops", "port")
    return f"/p4aqm/ports/port[id={port}]/state/" + "tm-drops"
'''


def test_a_planted_name_is_reported() -> None:
    assert spelled(PLANTED, "planted.py") == [
        "planted.py:3: 'qdepth_pkts' is a monitor column",
        "planted.py:8: 'tm_drops' is an old monitor column (now tm_drops_delta)",
        "planted.py:9: '/p4aqm/ports/port[id=' is a gNMI path",
        "planted.py:9: 'tm-drops' is a gNMI leaf",
    ]
    # Allowed by its text, or in the one file that may spell it.
    assert spelled('KIND = "egress_port"\n', "p4aqm/switch/runtime/replication.py") == []
    assert spelled('KIND = "egress_port"\n', "other.py") == [
        "other.py:1: 'egress_port' is a monitor column"
    ]

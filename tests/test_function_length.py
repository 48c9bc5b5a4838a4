"""No function of the project's Python (p4aqm/ and scripts/) over 80 lines, its `def`
line to its last line.  There is no exemption: a function that long is split into named
helpers."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["p4aqm", "scripts"]
MAX_LINES = 80


def long_functions(source: str, filename: str) -> list[str]:
    """`file:line name (N lines)` for each function (nested ones too) over the limit."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        assert node.end_lineno is not None
        length = node.end_lineno - node.lineno + 1
        if length > MAX_LINES:
            found.append(f"{filename}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_over_the_limit() -> None:
    paths = sorted(p for folder in SOURCES for p in (ROOT / folder).rglob("*.py"))
    assert paths, f"no Python files under {SOURCES}"
    found = [
        f for path in paths for f in long_functions(path.read_text(), str(path.relative_to(ROOT)))
    ]
    assert not found, f"functions over {MAX_LINES} lines:\n" + "\n".join(found)


def _function(body_lines: int) -> str:
    return "def f() -> None:\n" + "    x = 0\n" * body_lines


def test_a_long_function_is_reported() -> None:
    assert long_functions(_function(MAX_LINES - 1), "ok.py") == []
    assert long_functions(_function(MAX_LINES), "long.py") == ["long.py:1 f (81 lines)"]
    # A comment giving a reason does not exempt it.
    reason = "def f() -> None:\n    # Long because it reads best in one place.\n"
    assert long_functions(reason + "    x = 0\n" * MAX_LINES, "why.py") == ["why.py:1 f (82 lines)"]


def test_a_long_method_or_nested_function_is_reported() -> None:
    method = "class C:\n    def m(self) -> None:\n" + "        x = 0\n" * MAX_LINES
    assert long_functions(method, "m.py") == ["m.py:2 m (81 lines)"]
    nested = "def outer() -> None:\n    def inner() -> None:\n" + "        x = 0\n" * MAX_LINES
    assert long_functions(nested, "n.py") == ["n.py:1 outer (82 lines)", "n.py:2 inner (81 lines)"]

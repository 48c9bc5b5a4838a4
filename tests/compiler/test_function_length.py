"""No function of the compiler over 120 lines (its `def` line to its last line), unless
a comment right under the `def` or its docstring says why: `# Long because ...`."""

from __future__ import annotations

import ast
from pathlib import Path

COMPILER = Path(__file__).resolve().parents[2] / "p4compiler"
MAX_LINES = 120
JUSTIFICATION = "# Long because"


def _justified(fn: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> bool:
    """Whether a `# Long because` comment stands between the `def` (or its docstring)
    and the first statement of the body."""
    body = fn.body
    has_docstring = (
        isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )
    if has_docstring:
        start = body[0].end_lineno
        end = body[1].lineno if len(body) > 1 else fn.end_lineno
    else:
        start, end = fn.lineno, body[0].lineno
    assert start is not None and end is not None
    # Line numbers are 1-based: lines[start] is the line after `start`.
    return any(line.strip().startswith(JUSTIFICATION) for line in lines[start : end - 1])


def long_functions(source: str, filename: str) -> list[str]:
    """`file:line name (N lines)` for each function over the limit without a reason."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        assert node.end_lineno is not None
        length = node.end_lineno - node.lineno + 1
        if length > MAX_LINES and not _justified(node, lines):
            found.append(f"{filename}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_compiler_function_over_the_limit() -> None:
    found = [
        f
        for path in sorted(COMPILER.rglob("*.py"))
        for f in long_functions(path.read_text(), str(path.relative_to(COMPILER.parent)))
    ]
    assert not found, "functions over 120 lines without '# Long because':\n" + "\n".join(found)


def _function(body_lines: int, head: str = "") -> str:
    return "def f() -> None:\n" + head + "    x = 0\n" * body_lines


def test_a_long_function_is_reported() -> None:
    assert long_functions(_function(MAX_LINES - 1), "ok.py") == []
    assert long_functions(_function(MAX_LINES), "long.py") == ["long.py:1 f (121 lines)"]


def test_a_reason_under_the_def_or_docstring_is_accepted() -> None:
    reason = "    # Long because one table of cases reads best in one place.\n"
    assert long_functions(_function(MAX_LINES, reason), "long.py") == []
    doc = '    """Doc."""\n' + reason
    assert long_functions(_function(MAX_LINES, doc), "long.py") == []
    # A comment further down the body is not a reason given at the head.
    late = "def f() -> None:\n" + "    x = 0\n" * 60 + reason + "    x = 0\n" * 60
    assert long_functions(late, "late.py") == ["late.py:1 f (122 lines)"]

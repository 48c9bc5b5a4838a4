"""Extern function calls in the deparser become its BMv2 "primitives", as p4c's
DeparserConverter makes them; statements BMv2 cannot run there are refused."""

from __future__ import annotations

import json
from pathlib import Path

from compiler_helpers import CompileText

PROGRAM = Path(__file__).resolve().parents[2] / "tests/conformance/deparser_calls.p4"


def test_calls_are_the_deparser_primitives(compile_text: CompileText) -> None:
    result = compile_text(PROGRAM.read_text())
    assert result.status == 0, result.err
    (deparser,) = json.loads(result.json_path.read_text())["deparsers"]
    # The emit after `return` is dropped, as p4c drops it.
    assert deparser["order"] == ["h"]
    assert [p["op"] for p in deparser["primitives"]] == ["log_msg", "truncate"]
    fmt, values = deparser["primitives"][0]["parameters"]
    assert fmt == {"type": "string", "value": "deparsing a={} b={}"}
    assert [v["value"] for v in values["value"]] == [["h", "a"], ["h", "b"]]


def test_other_statements_are_refused(compile_text: CompileText) -> None:
    text = PROGRAM.read_text().replace(
        "        pk.emit(hdr.h);\n", "        if (hdr.h.a == 1) { pk.emit(hdr.h); }\n", 1
    )
    result = compile_text(text)
    assert result.status != 0
    assert "only packet.emit() and extern function calls are supported in the deparser" in (
        result.err
    )
    assert "prog.p4:" in result.err

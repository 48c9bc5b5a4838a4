"""Table key names as p4c's front end makes them (TableKeyNames): the same name in the
BMv2 JSON key and the P4Info match field, `$valid$` for isValid(), a constant in its
written base, and p4c's error for a key it cannot name."""

from __future__ import annotations

import json
from pathlib import Path

from compiler_helpers import CompileText
from finsy.proto import p4i
from google.protobuf import text_format

REPO = Path(__file__).resolve().parents[2]
PROGRAM = REPO / "tests/conformance/table_key_names.p4"

EXPECTED = {
    "MyIngress.by_validity": ["hdr.u.o.$valid$", "hdr.u.$valid$", "hdr.st[0].$valid$"],
    "MyIngress.by_parts": ["hdr.h.f & 0xff0", "hdr.h.f[3:0]", "meta.renamed_m"],
}


def test_key_names_in_json_and_p4info(compile_text: CompileText) -> None:
    result = compile_text(PROGRAM.read_text())
    assert result.status == 0, result.err
    bmv2 = json.loads(result.json_path.read_text())
    json_names = {
        t["name"]: [k["name"] for k in t["key"]] for p in bmv2["pipelines"] for t in p["tables"]
    }
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    info_names = {t.preamble.name: [m.name for m in t.match_fields] for t in info.tables}
    for table, names in EXPECTED.items():
        assert json_names[table] == names
        assert info_names[table] == names


def _program(key: str, name: str = "") -> str:
    text = PROGRAM.read_text()
    return text.replace(
        "            meta.m          : exact;", f"            {key} : exact {name};"
    )


def test_a_complex_key_needs_a_name(compile_text: CompileText) -> None:
    result = compile_text(_program("hdr.h.f + 1"))
    assert result.status != 0
    assert "Complex key expression requires a @name annotation" in result.err
    assert "prog.p4:" in result.err


def test_a_named_complex_key_takes_its_name(compile_text: CompileText) -> None:
    result = compile_text(_program("hdr.h.f + 1", '@name("f_plus_1")'))
    assert result.status == 0, result.err
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    parts = next(t for t in info.tables if t.preamble.name == "MyIngress.by_parts")
    assert [m.name for m in parts.match_fields][-1] == "f_plus_1"


def test_constants_keep_their_base(compile_text: CompileText) -> None:
    result = compile_text(_program("hdr.h.f & 0b1010").replace("0xFF0", "4080"))
    assert result.status == 0, result.err
    bmv2 = json.loads(result.json_path.read_text())
    table = next(
        t for p in bmv2["pipelines"] for t in p["tables"] if t["name"].endswith("by_parts")
    )
    assert [k["name"] for k in table["key"]] == [
        "hdr.h.f & 4080",
        "hdr.h.f[3:0]",
        "hdr.h.f & 0b1010",
    ]

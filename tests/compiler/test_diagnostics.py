"""Malformed programs give `file:line:col: error:`, the line and a caret; never a traceback."""

import re
from pathlib import Path

import pytest
from compiler_helpers import CompileText

from p4aqm.compiler.cli import main

HEADER = "#include <core.p4>\n#include <v1model.p4>\n"
TAIL = """
parser P(packet_in p, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { p.extract(hdr.h); transition accept; }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out p, in hs hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
TYPES = "header h_t { bit<8> a; bit<16> b; }\nstruct hs { h_t h; }\nstruct meta_t { bit<8> x; }\n"


def ingress(body: str, locals_: str = "") -> str:
    return (
        HEADER
        + TYPES
        + "control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {\n"
        + locals_
        + "    apply {\n"
        + body
        + "\n    }\n}\n"
        + TAIL
    )


ENUMS = "enum bit<8> E1 { A = 1 }\nenum bit<8> E2 { B = 1 }\nenum P { Q }\n"


def with_enums(program: str) -> str:
    """`program` with three enums declared after its types (three lines more)."""
    return program.replace(TYPES, TYPES + ENUMS, 1)


def with_generic(program: str) -> str:
    """`program` with a generic struct G<T> declared after its types (one line more)."""
    return program.replace(TYPES, TYPES + "struct G<T> { T f; }\n", 1)


CASES = [
    # (program, line, col, message fragment)
    (HEADER + "header h_t { bit<8> a }\n", 3, 23, "expected ';'"),
    (HEADER + "const bit<8> X = 1 $ 2;\n", 3, 20, "unexpected character"),
    (ingress("        m.x = undefined_thing;"), 8, 15, "'undefined_thing' is not declared"),
    (ingress("        m.x = hdr.h.b;"), 8, 15, "expected a value of type bit<8>, found bit<16>"),
    (ingress("        hdr.h.c = 1;"), 8, 9, "has no field 'c'"),
    (
        ingress(
            "        t.apply();", "    table t { key = { m.x: fuzzy; } actions = { NoAction; } }\n"
        ),
        7,
        28,
        "'fuzzy' is not a match kind",
    ),
    (HEADER + "header_union u_t { bit<8> a; }\n", 3, 20, "a header union can only hold headers"),
    (ingress("        if (m.x) { }"), 8, 13, "expected a value of type bool"),
    (HEADER + "#include <missing.p4>\n", 3, 10, "missing.p4"),
    (ingress("        m.x = 8w256;"), 8, 15, "does not fit"),
    # A package of its own named V1Switch (p4c's issue1205-bmv2) is not v1model's.
    (
        "#include <core.p4>\nparser P();\ncontrol C();\npackage V1Switch(P p, C c);\n"
        "parser MyP() { state start { transition accept; } }\n"
        "control MyC() { apply { } }\nV1Switch(MyP(), MyC()) main;\n",
        4,
        9,
        "V1Switch takes v1model's six blocks",
    ),
    # Only a serializable enum is implicitly its underlying type, and two enums stay apart.
    (with_enums(ingress("        m.x = P.Q;")), 11, 15, "expected a value of type bit<8>"),
    (
        with_enums(ingress("        if (E1.A == E2.B) { }")),
        11,
        13,
        "operands have different types: enum E1 and enum E2",
    ),
    # An extern passed to a control must have the parameter's type arguments.
    (
        ingress("        s.apply(r);", "    register<bit<16>>(4) r;\n    Sub() s;\n").replace(
            TYPES, TYPES + "control Sub(register<bit<8>> cells) { apply { } }\n", 1
        ),
        11,
        17,
        "expected a value of type extern register<bit<8>>, found extern register<bit<16>>",
    ),
    # A generic struct takes as many type arguments as it declares, and always some.
    (with_generic(ingress("", "    G<bit<8>, bit<8>> g;\n")), 8, 5, "'G' takes 1 type argument"),
    (with_generic(ingress("", "    G g;\n")), 8, 5, "generic struct 'G' needs concrete type"),
    # Uses with different arguments are different types (p4c compares them as written).
    (
        with_generic(ingress("        a = b;", "    G<bit<8>> a;\n    G<bit<16>> b;\n")),
        11,
        13,
        "expected a value of type struct G_bit8, found struct G_bit16",
    ),
]


@pytest.mark.parametrize(("text", "line", "col", "fragment"), CASES)
def test_positioned_errors(
    compile_text: CompileText, text: str, line: int, col: int, fragment: str
) -> None:
    result = compile_text(text)
    assert result.status == 1
    assert "Traceback" not in result.err
    first, source_line, caret = result.err.rstrip("\n").split("\n")[:3]
    m = re.match(r"^(.*prog\.p4):(\d+):(\d+): error: (.*)$", first)
    assert m, first
    assert (int(m[2]), int(m[3])) == (line, col), first
    assert fragment in m[4]
    assert source_line == text.split("\n")[line - 1]
    assert caret == " " * (col - 1) + "^"
    assert not result.json_path.exists()


def test_bad_flag_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prog.p4", "--no-such-flag"]) == 2
    err = capsys.readouterr().err
    assert "error: unrecognized arguments: --no-such-flag" in err
    assert "Traceback" not in err


def test_bad_choice_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prog.p4", "--arch", "psa"]) == 2
    assert main(["--help"]) == 0
    assert "--p4runtime-files" in capsys.readouterr().out


def test_missing_source_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main([str(tmp_path / "absent.p4")]) == 1
    err = capsys.readouterr().err
    assert "absent.p4" in err and "error:" in err and "Traceback" not in err


def test_undecodable_bytes_are_a_positioned_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    src = tmp_path / "bad.p4"
    src.write_bytes(b"const bit<8> X = 1;\n\xff\xfe\n")
    assert main([str(src), "-o", str(tmp_path / "bad.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{src}:2:1: error: unexpected character")
    assert "Traceback" not in err


def test_deep_nesting_is_an_error_not_a_crash(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    src = tmp_path / "deep.p4"
    src.write_text("const bit<8> X = " + "(" * 5000 + "1" + ")" * 5000 + ";\n")
    assert main([str(src), "-o", str(tmp_path / "deep.json")]) == 1
    assert "nested too deeply" in capsys.readouterr().err

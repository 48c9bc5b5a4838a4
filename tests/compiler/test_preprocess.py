"""The cpp pass: includes, macros, conditionals, and positions mapped back."""

from pathlib import Path

import pytest

from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.preprocess import preprocess


def test_include_define_and_line_map(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "defs.p4").write_text("#define WIDTH 16\nconst bit<WIDTH> X = 1;\n")
    src = tmp_path / "main.p4"
    src.write_text(
        '#include "defs.p4"\n#ifdef EXTRA\nconst bit<8> Y = EXTRA;\n#endif\nconst bit<8> Z = 2;\n'
    )
    pre = preprocess(src, [tmp_path / "inc"], ["EXTRA=7"])
    assert "const bit<16> X = 1;" in pre.text
    assert "const bit<8> Y = 7;" in pre.text
    lines = pre.text.split("\n")
    z_line = next(i for i, line in enumerate(lines, 1) if "Z = 2" in line)
    assert pre.lines.pos(z_line, 1).file == str(src)
    assert pre.lines.pos(z_line, 1).line == 5
    x_line = next(i for i, line in enumerate(lines, 1) if "X = 1" in line)
    assert pre.lines.pos(x_line, 1).file.endswith("defs.p4")
    assert pre.lines.pos(x_line, 1).line == 2


def test_ifdef_with_define_and_undef(tmp_path: Path) -> None:
    src = tmp_path / "main.p4"
    src.write_text("#ifdef B\nconst bit<8> Y = 1;\n#endif\n")
    assert "Y = 1" not in preprocess(src).text
    assert "Y = 1" in preprocess(src, defines=["B"]).text
    # As with cpp, -D and -U apply in order, so a later -U wins.
    assert "Y = 1" not in preprocess(src, defines=["B"], undefines=["B"]).text


def test_standard_includes_come_with_the_package(tmp_path: Path) -> None:
    src = tmp_path / "main.p4"
    src.write_text("#include <core.p4>\n#include <v1model.p4>\n")
    text = preprocess(src).text
    assert "extern packet_in" in text
    assert "package V1Switch" in text


def test_missing_include_is_a_positioned_error(tmp_path: Path) -> None:
    src = tmp_path / "main.p4"
    src.write_text("\n#include <nowhere.p4>\n")
    with pytest.raises(CompileError) as info:
        preprocess(src)
    assert info.value.pos.file == str(src)
    assert info.value.pos.line == 2
    assert "nowhere.p4" in info.value.message

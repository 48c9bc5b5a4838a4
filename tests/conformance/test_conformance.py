"""The conformance suite: every NAME.stf here runs on our switch with NAME.p4 beside it,
compiled by p4aqm's compiler (what `p4aqm stf NAME.stf` does).  Each program checks one
P4_16/v1model feature; its expectations follow the spec and BMv2's documented
behaviour.  Programs in pending/ wait for fixes outside the compiler (see its README)."""

from pathlib import Path

import pytest

from p4aqm.stf.cli import main as stf_main

SUITE = Path(__file__).resolve().parent
STF_FILES = sorted(SUITE.glob("*.stf"))


def test_every_program_has_its_stf() -> None:
    programs = {p.stem for p in SUITE.glob("*.p4")}
    assert programs == {s.stem for s in STF_FILES}
    assert len(programs) >= 100


@pytest.mark.parametrize("stf", STF_FILES, ids=[s.stem for s in STF_FILES])
def test_conformance(stf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = stf_main([str(stf)])
    out, err = capsys.readouterr()
    assert status == 0, out + err
    assert out.startswith("PASS")

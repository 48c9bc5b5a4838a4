"""Key fields named in STF `add` lines as p4c's runner (bmv2stf.py) reads them: `$N` for a
stack index, `.valid` and a bare `valid` for a validity bit, and a unique suffix."""

from typing import Any

import pytest

from p4aqm.stf.program import Program, ProgramError


def _program(*keys: dict[str, Any]) -> Program:
    bmv2 = {
        "header_types": [{"name": "s_t", "fields": [["k", 8, False], ["v", 8, False]]}],
        "headers": [
            {"name": "hs[0]", "header_type": "s_t"},
            {"name": "hs[1]", "header_type": "s_t"},
        ],
        "actions": [{"name": "NoAction", "id": 0, "runtime_data": []}],
        "pipelines": [
            {"tables": [{"name": "ingress.t", "key": list(keys), "action_ids": [0]}]},
        ],
    }
    return Program(bmv2)


def _key(name: str, target: list[str], match_type: str = "exact") -> dict[str, Any]:
    return {"name": name, "target": target, "match_type": match_type}


def test_dollar_index_is_a_stack_index() -> None:
    program = _program(_key("hdr.hs[0].k", ["hs[0]", "k"]), _key("hdr.hs[1].k", ["hs[1]", "k"]))
    table = program.table("t")
    assert program.key_field(table, "hs$1.k").names[0] == "hdr.hs[1].k"
    assert program.key_field(table, "hdr.hs$0.k").names[0] == "hdr.hs[0].k"


@pytest.mark.parametrize("spelling", ["hs[0].valid", "hs$0.valid", "valid", "hdr.hs[0].$valid$"])
def test_valid_names_the_validity_bit(spelling: str) -> None:
    program = _program(_key("hdr.hs[0].$valid$", ["hs[0]", "$valid$"]))
    assert program.key_field(program.table("t"), spelling).match_type == "exact"


def test_an_ambiguous_or_unknown_key_is_named() -> None:
    program = _program(_key("hdr.hs[0].k", ["hs[0]", "k"]), _key("meta.k", ["hs[1]", "k"]))
    table = program.table("t")
    with pytest.raises(ProgramError, match="key field 'k' is ambiguous in table ingress.t"):
        program.key_field(table, "k")
    with pytest.raises(ProgramError, match="no key field 'hs\\$3.k' in table ingress.t"):
        program.key_field(table, "hs$3.k")

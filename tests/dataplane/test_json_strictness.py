"""Our switch refuses the BMv2 JSON that BMv2 itself refuses (behavioral-model's
docs/JSON_format.md and src/bm_sim/P4Objects.cpp), with BMv2's reading of it.

Each case edits l3_forward as our compiler emits it (which loads) into one form simple_switch
would refuse, and checks that `load_pipeline` refuses it too, naming the object at fault.
Project issue #10: the single-wrapped expression parameter, which our switch used to accept
while BMv2 stops with `Invalid 'type' in expression: ''`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from p4aqm.switch._dataplane import Dataplane

Edit = Callable[[dict[str, Any]], None]


@pytest.fixture(scope="module")
def l3(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from programs import REPO, compile_program

    out = tmp_path_factory.mktemp("l3")
    program = compile_program(REPO / "p4src" / "l3_forward.p4", out)
    return json.loads(program.json_path.read_text())


def load(program: dict[str, Any]) -> None:
    Dataplane().load_pipeline(json.dumps(program).encode())


def action(j: dict[str, Any], name: str) -> dict[str, Any]:
    return next(a for a in j["actions"] if a["name"] == name)


def ttl_param(j: dict[str, Any]) -> list[dict[str, Any]]:
    """The parameters of `hdr.ipv4.ttl = hdr.ipv4.ttl - 1` in ipv4_forward."""
    return action(j, "MyIngress.ipv4_forward")["primitives"][3]["parameters"]


def start(j: dict[str, Any]) -> dict[str, Any]:
    return j["parsers"][0]["parse_states"][0]


def lpm_table(j: dict[str, Any]) -> dict[str, Any]:
    return j["pipelines"][0]["tables"][0]


def add_entry(j: dict[str, Any], **key: Any) -> None:
    """A const entry of ipv4_lpm (drop for 10.0.0.1/32)."""
    drop = action(j, "MyIngress.drop")["id"]
    match = {"match_type": "lpm", "key": "0x0a000001", "prefix_length": 32, **key}
    lpm_table(j)["entries"] = [
        {
            "match_key": [match],
            "action_entry": {"action_id": drop, "action_data": []},
            "priority": 1,
        }
    ]


def set_op(src: dict[str, Any], dst: Any = None) -> dict[str, Any]:
    return {
        "op": "set",
        "parameters": [dst or {"type": "field", "value": ["ethernet", "ether_type"]}, src],
    }


def test_the_compiled_program_loads(l3: dict[str, Any]) -> None:
    load(l3)
    # And with a const entry, a parser set of an expression and an advance, as emitted.
    ok = copy.deepcopy(l3)
    add_entry(ok)
    plus = ttl_param(ok)[1]
    start(ok)["parser_ops"].append(set_op(plus, {"type": "field", "value": ["ipv4", "ttl"]}))
    start(ok)["parser_ops"].append({"op": "advance", "parameters": [plus]})
    load(ok)


def single_wrapped_parameter(j: dict[str, Any]) -> None:
    params = ttl_param(j)
    assert params[1]["value"]["type"] == "expression"  # the compiler's (BMv2's) form
    params[1] = params[1]["value"]


def runtime_data_inside_expression(j: dict[str, Any]) -> None:
    ttl_param(j)[1]["value"]["value"]["left"] = {"type": "runtime_data", "value": 0}


def double_wrapped_condition(j: dict[str, Any]) -> None:
    cond = j["pipelines"][0]["conditionals"][0]
    cond["expression"] = {"type": "expression", "value": cond["expression"]}


def bool_parameter(j: dict[str, Any]) -> None:
    ttl_param(j)[1] = {"type": "bool", "value": True}


def local_parameter(j: dict[str, Any]) -> None:
    ttl_param(j)[1] = {"type": "local", "value": 0}


def unary_with_left(j: dict[str, Any]) -> None:
    cond = j["pipelines"][0]["conditionals"][0]["expression"]["value"]
    cond["left"]["value"]["left"] = {"type": "hexstr", "value": "0x01"}


def mark_to_drop_without_parameter(j: dict[str, Any]) -> None:
    action(j, "MyIngress.drop")["primitives"][0]["parameters"] = []


def assign_of_a_header(j: dict[str, Any]) -> None:
    ttl_param(j)[:] = [{"type": "header", "value": "ipv4"}, {"type": "header", "value": "ipv4"}]


def log_msg_without_vector(j: dict[str, Any]) -> None:
    action(j, "MyIngress.drop")["primitives"].append(
        {"op": "log_msg", "parameters": [{"type": "string", "value": "x"}]}
    )


def clone_with_one_parameter(j: dict[str, Any]) -> None:
    action(j, "MyIngress.drop")["primitives"].append(
        {"op": "clone_ingress_pkt_to_egress", "parameters": [{"type": "hexstr", "value": "0x1"}]}
    )


def set_from_runtime_data(j: dict[str, Any]) -> None:
    start(j)["parser_ops"].append(set_op({"type": "runtime_data", "value": 0}))


def set_from_single_wrapped(j: dict[str, Any]) -> None:
    start(j)["parser_ops"].append(set_op(ttl_param(j)[1]["value"]))


def set_of_a_header(j: dict[str, Any]) -> None:
    src = {"type": "hexstr", "value": "0x0800"}
    start(j)["parser_ops"].append(set_op(src, {"type": "header", "value": "ethernet"}))


def advance_single_wrapped(j: dict[str, Any]) -> None:
    start(j)["parser_ops"].append({"op": "advance", "parameters": [ttl_param(j)[1]["value"]]})


def extract_with_two_parameters(j: dict[str, Any]) -> None:
    start(j)["parser_ops"][0]["parameters"].append({"type": "regular", "value": "ipv4"})


def expression_transition_key(j: dict[str, Any]) -> None:
    start(j)["transition_key"][0] = {
        "type": "expression",
        "value": {"op": "d2b", "left": None, "right": {"type": "field", "value": ["ipv4", "ttl"]}},
    }


def short_transition_value(j: dict[str, Any]) -> None:
    start(j)["transitions"][0]["value"] = "0x08"


def optional_key(j: dict[str, Any]) -> None:
    lpm_table(j)["key"][0]["match_type"] = "optional"


def wide_key_mask(j: dict[str, Any]) -> None:
    lpm_table(j)["key"][0]["mask"] = "0x00ffffffff"


def entry_of_another_match_type(j: dict[str, Any]) -> None:
    add_entry(j, match_type="exact")


def entry_key_of_the_wrong_width(j: dict[str, Any]) -> None:
    add_entry(j, key="0x0a0001")


def duplicate_const_entry(j: dict[str, Any]) -> None:
    add_entry(j)
    entries = lpm_table(j)["entries"]
    entries.append({**entries[0], "priority": 2})  # an LPM entry's priority does not count


def duplicate_table_id(j: dict[str, Any]) -> None:
    tables = j["pipelines"][0]["tables"]
    tables[1]["id"] = tables[0]["id"]


def newer_format_version(j: dict[str, Any]) -> None:
    j["__meta__"]["version"] = [2, 24]


def other_major_version(j: dict[str, Any]) -> None:
    j["__meta__"]["version"] = [3, 0]


CASES: list[tuple[Edit, str]] = [
    # Issue #10: BMv2 reads the parameter's value as the expression, and it has no type.
    (
        single_wrapped_parameter,
        "action 'MyIngress.ipv4_forward': primitive 'assign': parameter 1: "
        "Invalid 'type' in expression: ''",
    ),
    (runtime_data_inside_expression, "Invalid 'type' in expression: 'runtime_data'"),
    (double_wrapped_condition, "an expression's value must be {op, left, right}"),
    (bool_parameter, "parameter 1: Parameter type 'bool' not supported"),
    (local_parameter, "parameter 1: Parameter type 'local' not supported"),
    (unary_with_left, "unary operator 'd2b' takes no 'left' operand"),
    (mark_to_drop_without_parameter, "primitive 'mark_to_drop': expected 1 parameters, got 0"),
    (assign_of_a_header, "primitive 'assign': expected a field, got type 'header'"),
    (log_msg_without_vector, "primitive 'log_msg': expected 2 parameters, got 1"),
    (clone_with_one_parameter, "expected 2 parameters, got 1"),
    (set_from_runtime_data, "parser op 'set': unsupported source type 'runtime_data'"),
    (set_from_single_wrapped, "parser op 'set': Invalid 'type' in expression: ''"),
    (set_of_a_header, "parser op 'set': invalid destination type 'header'"),
    (advance_single_wrapped, "parser op 'advance': Invalid 'type' in expression: ''"),
    (extract_with_two_parameters, "parser op 'extract': expected 1 parameters, got 2"),
    (expression_transition_key, "invalid entry in parse state key: type 'expression'"),
    (short_transition_value, "'0x08' is 1 bytes; the key needs exactly 2"),
    (optional_key, "Invalid match type: 'optional'"),
    (wide_key_mask, "'0x00ffffffff' must be 4 bytes wide"),
    (entry_of_another_match_type, "invalid match type for field #0 in match key"),
    (entry_key_of_the_wrong_width, "'0x0a0001' must be 4 bytes wide"),
    (duplicate_const_entry, "entry 1: Duplicate entries in table initializer"),
    (duplicate_table_id, "several objects of type 'table' have the same id 0"),
    (newer_format_version, "the most recent BMv2 JSON version supported is 2.23"),
    (other_major_version, "BMv2 JSON major version 2 is required"),
]


@pytest.mark.parametrize(("edit", "message"), CASES, ids=[c[0].__name__ for c in CASES])
def test_refused_as_bmv2_refuses_it(l3: dict[str, Any], edit: Edit, message: str) -> None:
    bad = copy.deepcopy(l3)
    edit(bad)
    with pytest.raises(ValueError) as e:
        load(bad)
    assert message in str(e.value)


def test_extract_vl_length_must_be_of_type_expression() -> None:
    """§ parser operations: extract_VL's second parameter "must be of type expression"."""
    from test_varbit import program

    prog = program()
    op = prog["parsers"][0]["parse_states"][0]["parser_ops"][1]
    assert op["op"] == "extract_VL"
    load(prog)
    bare = copy.deepcopy(prog)
    bare["parsers"][0]["parse_states"][0]["parser_ops"][1]["parameters"][1] = op["parameters"][1][
        "value"
    ]["value"]["left"]  # the field l.len, not wrapped
    with pytest.raises(ValueError, match="invalid length type 'field', expected 'expression'"):
        load(bare)
    single = copy.deepcopy(prog)
    length = single["parsers"][0]["parse_states"][0]["parser_ops"][1]["parameters"][1]
    length["value"] = length["value"]["value"]  # {op, left, right} right under the wrapper
    with pytest.raises(ValueError, match="Invalid 'type' in expression: ''"):
        load(single)


def test_a_file_without_version_loads(l3: dict[str, Any]) -> None:
    """BMv2 accepts a JSON without `__meta__` (older compilers)."""
    old = copy.deepcopy(l3)
    del old["__meta__"]
    load(old)

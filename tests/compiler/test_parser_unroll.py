"""Parser unrolling (p4aqm/compiler/parser_unroll.py): a stack element extracted at an
index a variable counts from state to state becomes one state per value, as p4c's
ParserUnroll names them; the packets are in tests/conformance/parser_unroll_index."""

import json
import re

from compiler_helpers import CompileText
from test_bad_inputs import MARK, parser


def _states(result_json: dict) -> dict[str, dict]:
    return {s["name"]: s for s in result_json["parsers"][0]["parse_states"]}


def _extracted(state: dict) -> list[str]:
    return [op["parameters"][0]["value"] for op in state["parser_ops"] if op["op"] == "extract"]


def _next(state: dict) -> list[str | None]:
    return [t["next_state"] for t in state["transitions"]]


COUNTED_IN_METADATA = parser(
    """
    state start { m.x = 0; transition one; }
    state one {
        p.extract(hdr.st[m.x]);
        m.x = m.x + 1;
        transition select(hdr.st[m.x - 1].a) { 7: one; default: tail; }
    }
    state tail { p.extract(hdr.h); transition accept; }
"""
)


def test_a_metadata_counter_gives_one_state_per_element(compile_text: CompileText) -> None:
    result = compile_text(COUNTED_IN_METADATA)
    assert result.status == 0, result.err
    states = _states(json.loads(result.json_path.read_text()))
    # hdr.st has two elements: the third copy is past its end.
    assert _extracted(states["one"]) == ["st[0]"]
    assert _extracted(states["one1"]) == ["st[1]"]
    assert states["one2"]["parser_ops"] == []
    assert _next(states["one"]) == ["one1", "tail"]
    assert _next(states["one1"]) == ["one2", "tail"]
    assert _next(states["one2"]) == ["stateOutOfBound"]
    # A state after the loop reads no index: one copy, whatever the count was.
    assert [n for n in states if n.startswith("tail")] == ["tail"]
    verify = states["stateOutOfBound"]["parser_ops"]
    assert [op["op"] for op in verify] == ["verify"]
    assert _next(states["stateOutOfBound"]) == [None]  # reject
    # The counter is still counted: its assignments stay.
    sets = [op for op in states["one1"]["parser_ops"] if op["op"] == "set"]
    assert sets and sets[0]["parameters"][0]["value"] == ["scalars", "userMetadata.x"]


def test_an_index_from_the_packet_stays_refused(compile_text: CompileText) -> None:
    program = parser(
        """
    state start {
        p.extract(hdr.h);
        @@p.extract(hdr.st[hdr.h.a]);
        transition accept;
    }
"""
    )
    index = program.index(MARK)
    line = program[:index].count("\n") + 1
    result = compile_text(program.replace(MARK, "", 1))
    assert result.status == 1
    assert "Traceback" not in result.err
    assert re.search(rf"prog\.p4:{line}:\d+: error: extract needs a header", result.err)


def test_a_count_that_never_reaches_a_bound_is_refused(compile_text: CompileText) -> None:
    # `i & 1` is always inside the stack, so i counts on: the unrolling has no end.
    program = parser(
        """
    state start { i = 0; transition more; }
    @@state more {
        p.extract(hdr.st[i & 1]);
        i = i + 1;
        transition more;
    }
""",
        "    bit<32> i;\n",
    )
    index = program.index(MARK)
    line = program[:index].count("\n") + 1
    result = compile_text(program.replace(MARK, "", 1))
    assert result.status == 1
    assert "Traceback" not in result.err
    assert re.search(
        rf"prog\.p4:{line}:\d+: error: parser unrolling: state 'more' would be copied more",
        result.err,
    ), result.err


def test_what_comes_before_the_access_past_the_end_still_runs(
    compile_text: CompileText,
) -> None:
    program = parser(
        """
    state start { i = 0; transition more; }
    state more {
        m.x = (bit<8>) i;
        p.extract(hdr.st[i]);
        i = i + 1;
        transition select(hdr.st[i - 1].a) { 7: more; default: accept; }
    }
""",
        "    bit<32> i;\n",
    )
    result = compile_text(program)
    assert result.status == 0, result.err
    states = _states(json.loads(result.json_path.read_text()))
    # more2 would extract hdr.st[2]: it records the count, then stops.
    assert [op["op"] for op in states["more2"]["parser_ops"]] == ["set"]
    assert states["more2"]["parser_ops"][0]["parameters"][0]["value"] == [
        "scalars",
        "userMetadata.x",
    ]
    assert _next(states["more2"]) == ["stateOutOfBound"]

"""Extern instances declared at the top level, shared by ingress and egress, and table
hits inside `&&`/`||` conditions (both needed by the RED program)."""

import json

from compiler_helpers import CompileText
from finsy.proto import p4i
from google.protobuf import text_format

from p4aqm.compiler.ids import Prefix, assign_ids
from p4aqm.switch._dataplane import Dataplane

HEADER = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct hs { h_t h; }
struct meta_t { bit<32> v; }
"""
BLOCKS = """
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
SHARED = """
register<bit<32>>(100) debug;
counter(4, CounterType.packets_and_bytes) passes;
meter(4, MeterType.packets) rate;
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        debug.write(0, (bit<32>)hdr.h.a);
        passes.count(0);
        rate.execute_meter(1, hdr.h.b);
    }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        debug.read(m.v, 0);
        passes.count(0);
        rate.execute_meter(2, hdr.h.b);
    }
}
"""


def _load(compile_text: CompileText, body: str) -> tuple[dict, p4i.P4Info]:
    result = compile_text(HEADER + body + BLOCKS)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    return program, info


def _ops_on(program: dict, pipeline: int, array: dict) -> list[str]:
    """The primitives of a pipeline's tables' actions that name `array`."""
    names = {a for t in program["pipelines"][pipeline]["tables"] for a in t["actions"]}
    return [
        p["op"]
        for a in program["actions"]
        if a["name"] in names
        for p in a["primitives"]
        if array in p["parameters"]
    ]


def test_one_shared_array_per_top_level_instance(compile_text: CompileText) -> None:
    program, _ = _load(compile_text, SHARED)
    assert program["register_arrays"] == [{"name": "debug", "id": 0, "size": 100, "bitwidth": 32}]
    assert [c["name"] for c in program["counter_arrays"]] == ["passes"]
    assert [m["name"] for m in program["meter_arrays"]] == ["rate"]
    debug = {"type": "register_array", "value": "debug"}
    assert _ops_on(program, 0, debug) == ["register_write"]
    assert _ops_on(program, 1, debug) == ["register_read"]
    passes = {"type": "counter_array", "value": "passes"}
    assert _ops_on(program, 0, passes) == _ops_on(program, 1, passes) == ["count"]
    rate = {"type": "meter_array", "value": "rate"}
    assert _ops_on(program, 0, rate) == _ops_on(program, 1, rate) == ["execute_meter"]


def test_top_level_instances_in_p4info(compile_text: CompileText) -> None:
    _, info = _load(compile_text, SHARED)
    [reg] = info.registers
    # p4c's own P4Info for a top-level `register<bit<32>>(32w100) debug` (its test
    # program issue696-bmv2.p4) has exactly this name, alias and id.
    assert (reg.preamble.name, reg.preamble.alias, reg.preamble.id) == ("debug", "debug", 383637836)
    assert reg.size == 100 and reg.type_spec.bitstring.bit.bitwidth == 32
    [ctr] = info.counters
    assert (ctr.preamble.name, ctr.preamble.alias) == ("passes", "passes")
    assert ctr.preamble.id == assign_ids(Prefix.COUNTER, ["passes"])["passes"]
    assert ctr.spec.unit == p4i.CounterSpec.BOTH
    [met] = info.meters
    assert met.preamble.id == assign_ids(Prefix.METER, ["rate"])["rate"]


def test_both_pipelines_count_into_one_counter(compile_text: CompileText) -> None:
    result = compile_text(HEADER + SHARED + BLOCKS)
    assert result.status == 0, result.err
    dp = Dataplane(virtual_time=True)
    dp.add_memory_port(0)
    dp.add_memory_port(1)
    dp.load_pipeline(result.json_path.read_bytes())
    dp.inject(0, bytes([7, 0]))
    assert dp.take_output() == [(1, bytes([7, 0]))]
    assert dp.counter_read("passes", 0) == (4, 2)
    assert dp.register_read("debug", 0)[-1] == 7


def test_top_level_direct_counter_binds_to_its_table(compile_text: CompileText) -> None:
    program, info = _load(
        compile_text,
        """
direct_counter(CounterType.packets) hits;
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    action hit_it() { hits.count(); }
    table t { key = { hdr.h.a: exact; } actions = { hit_it; NoAction; } counters = hits; }
    apply { t.apply(); }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
""",
    )
    assert program["counter_arrays"] == [
        {"name": "hits", "id": 0, "is_direct": True, "binding": "I.t"}
    ]
    [dc] = info.direct_counters
    assert dc.preamble.name == "hits"
    assert dc.direct_table_id == info.tables[0].preamble.id


def test_hit_inside_and_or_conditions(compile_text: CompileText) -> None:
    program, _ = _load(
        compile_text,
        """
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    table t { key = { hdr.h.a: exact; } actions = { NoAction; } }
    table u { key = { hdr.h.b: exact; } actions = { NoAction; } }
    apply {
        if (hdr.h.a != 0 && t.apply().hit) { hdr.h.b = 1; } else { hdr.h.b = 2; }
        if (hdr.h.a == 9 || !u.apply().hit) { hdr.h.a = 3; }
    }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
""",
    )
    ingress = program["pipelines"][0]
    tables = {t["name"]: t for t in ingress["tables"]}
    conds = {c["name"]: c for c in ingress["conditionals"]}
    first = conds[ingress["init_table"]]
    # `a && t.hit`: t is applied only when `a` holds; its miss and `!a` share the else.
    assert first["true_next"] == "I.t"
    then_b1, else_b2 = tables["I.t"]["next_tables"]["__HIT__"], first["false_next"]
    assert tables["I.t"]["next_tables"]["__MISS__"] == else_b2
    # `c || !u.hit`: u is applied only when `c` fails; a miss of u runs the body.
    second = conds[tables[then_b1]["base_default_next"]]
    assert tables[else_b2]["base_default_next"] == second["name"]
    body = second["true_next"]
    assert second["false_next"] == "I.u"
    assert tables["I.u"]["next_tables"] == {"__HIT__": None, "__MISS__": body}

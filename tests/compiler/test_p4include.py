"""The macros of our core.p4 and v1model.p4 and the declarations that depend on them.

Programs written for p4c test p4c's macros: the include guards `_CORE_P4_` and
`_V1_MODEL_P4_`, `V1MODEL_VERSION` (20180101 unless the program defines it before the
include; from 20200408 on `PortId_t` exists and counter, meter and register take their
index type as a type parameter) and the meter colours `V1MODEL_METER_COLOR_*`.  Each
test compiles a small program whose preprocessor branches write different constants to
a header field, and reads back from the BMv2 JSON which branch was taken.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compiler_helpers import CompileText, Result

PROGRAM = """\
{before_core}
#include <core.p4>
#ifdef _V1_MODEL_P4_
#define V1MODEL_SEEN_EARLY 2
#else
#define V1MODEL_SEEN_EARLY 1
#endif
{before_v1model}
#include <v1model.p4>
{after_v1model}

header h_t {{
    bit<8>  core;
    bit<8>  v1model;
    bit<8>  early;
    bit<8>  version;
    bit<8>  green;
    bit<8>  yellow;
    bit<8>  red;
    bit<32> version_const;
}}
struct headers_t {{ h_t h; }}
struct meta_t {{ @field_list(1, 2) bit<8> color; }}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {{
    state start {{ pk.extract(hdr.h); transition accept; }}
}}
control MyVerify(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{ingress_decls}
    apply {{
        sm.egress_spec = 1;
#ifdef _CORE_P4_
        hdr.h.core = 1;
#else
        hdr.h.core = 2;
#endif
#ifndef _V1_MODEL_P4_
        hdr.h.v1model = 2;
#else
        hdr.h.v1model = 1;
#endif
        hdr.h.early = V1MODEL_SEEN_EARLY;
#if V1MODEL_VERSION >= 20200408
        hdr.h.version = 0x20;
#else
        hdr.h.version = 0x18;
#endif
#if defined(V1MODEL_METER_COLOR_GREEN) && defined(V1MODEL_METER_COLOR_YELLOW)
        hdr.h.green = V1MODEL_METER_COLOR_GREEN;
        hdr.h.yellow = V1MODEL_METER_COLOR_YELLOW;
#endif
#if V1MODEL_METER_COLOR_RED == 2
        hdr.h.red = V1MODEL_METER_COLOR_RED;
#endif
        hdr.h.version_const = __v1model_version;
{ingress_body}
    }}
}}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    apply {{ }}
}}
control MyCompute(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control MyDeparser(packet_out pk, in headers_t hdr) {{ apply {{ pk.emit(hdr); }} }}
V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
"""

NEW_VERSION = "#define V1MODEL_VERSION 20200408"


def program(
    before_core: str = "",
    before_v1model: str = "",
    after_v1model: str = "",
    ingress_decls: str = "",
    ingress_body: str = "",
) -> str:
    return PROGRAM.format(
        before_core=before_core,
        before_v1model=before_v1model,
        after_v1model=after_v1model,
        ingress_decls=ingress_decls,
        ingress_body=ingress_body,
    )


def constants(json_path: Path) -> dict[str, int]:
    """The constants the program's actions assign to the fields of header h."""
    out: dict[str, int] = {}
    for action in json.loads(json_path.read_text())["actions"]:
        for prim in action["primitives"]:
            if prim["op"] != "assign":
                continue
            dst, src = prim["parameters"]
            if dst["type"] == "field" and dst["value"][0] == "h" and src["type"] == "hexstr":
                out[dst["value"][1]] = int(src["value"], 16)
    return out


def compiled(compile_text: CompileText, text: str, *flags: str) -> dict[str, int]:
    result = compile_text(text, *flags)
    assert result.status == 0, result.err
    return constants(result.json_path)


def rejected(result: Result, message: str) -> None:
    assert result.status != 0
    assert message in result.err, result.err


def test_default_branches(compile_text: CompileText) -> None:
    """With no definitions: both guards set, v1model not yet seen after core.p4, the
    version 20180101 and the meter colours 0, 1 and 2, as in p4c."""
    assert compiled(compile_text, program()) == {
        "core": 1,
        "v1model": 1,
        "early": 1,
        "version": 0x18,
        "green": 0,
        "yellow": 1,
        "red": 2,
        "version_const": 20180101,
    }


@pytest.mark.parametrize(
    ("before_core", "before_v1model", "flags", "version"),
    [
        ("", NEW_VERSION, (), 20200408),
        (NEW_VERSION, "", (), 20200408),
        ("", "", ("-D", "V1MODEL_VERSION=20200408"), 20200408),
        ("", "#define V1MODEL_VERSION 20210101", (), 20210101),
        ("", "#define V1MODEL_VERSION 20180101", (), 20180101),
        ("", "#define V1MODEL_VERSION 20200407", (), 20200407),
    ],
)
def test_version_defined_by_the_program(
    compile_text: CompileText,
    before_core: str,
    before_v1model: str,
    flags: tuple[str, ...],
    version: int,
) -> None:
    """A version defined before the include, in the program or with -D, is kept; the
    newer declarations start at 20200408."""
    got = compiled(compile_text, program(before_core, before_v1model), *flags)
    assert got["version_const"] == version
    assert got["version"] == (0x20 if version >= 20200408 else 0x18)
    assert (got["core"], got["v1model"], got["red"]) == (1, 1, 2)


def test_v1model_alone_includes_core(compile_text: CompileText) -> None:
    """v1model.p4 pulls in core.p4; including either file again changes nothing."""
    text = program(before_core="#include <v1model.p4>").replace("#include <core.p4>\n", "", 1)
    got = compiled(compile_text, text + "#include <core.p4>\n#include <v1model.p4>\n")
    assert (got["core"], got["v1model"], got["early"]) == (1, 1, 2)


def test_guards_keep_p4c_names_only(compile_text: CompileText) -> None:
    """A program that defines the guards itself before the include gets no declarations,
    as with p4c: so the guards must be exactly `_CORE_P4_` and `_V1_MODEL_P4_`."""
    rejected(compile_text("#define _V1_MODEL_P4_\n" + program()), "V1Switch")


DEFAULT_ARRAYS = """
    register<bit<8>>(4) r;
    counter(4, CounterType.packets) c;
    meter(4, MeterType.packets) m;
"""
DEFAULT_ARRAY_CALLS = """
        bit<8> x;
        r.read(x, 32w1);
        r.write((bit<32>)hdr.h.core, x);
        c.count((bit<32>)hdr.h.core);
        m.execute_meter((bit<32>)hdr.h.core, meta.color);
"""
NEW_ARRAYS = """
    register<bit<8>, bit<2>>(4) r;
    counter<bit<9>>(512, CounterType.packets) c;
    meter<bit<8>>(256, MeterType.packets) m;
"""
NEW_ARRAY_CALLS = """
        bit<8> x;
        r.read(x, hdr.h.core[1:0]);
        r.write(2w3, x);
        c.count(sm.ingress_port);
        m.execute_meter(hdr.h.core, meta.color);
        PortId_t port = sm.ingress_port;
        sm.egress_spec = port;
"""


def test_default_arrays_have_no_index_type(compile_text: CompileText) -> None:
    """Before 20200408, register<T>, counter and meter are indexed with bit<32>."""
    result = compile_text(program(ingress_decls=DEFAULT_ARRAYS, ingress_body=DEFAULT_ARRAY_CALLS))
    assert result.status == 0, result.err
    data = json.loads(result.json_path.read_text())
    assert [r["bitwidth"] for r in data["register_arrays"]] == [8]
    assert [c["size"] for c in data["counter_arrays"]] == [4]
    assert [m["size"] for m in data["meter_arrays"]] == [4]


def test_new_arrays_take_an_index_type(compile_text: CompileText) -> None:
    """From 20200408, register<T, I>, counter<I> and meter<I> are indexed with I, and
    PortId_t is declared."""
    text = program(
        before_v1model=NEW_VERSION, ingress_decls=NEW_ARRAYS, ingress_body=NEW_ARRAY_CALLS
    )
    result = compile_text(text)
    assert result.status == 0, result.err
    data = json.loads(result.json_path.read_text())
    assert [r["bitwidth"] for r in data["register_arrays"]] == [8]
    assert [c["size"] for c in data["counter_arrays"]] == [512]


@pytest.mark.parametrize(
    ("decls", "body", "message"),
    [
        ("    register<bit<8>, bit<2>>(4) r;\n", "", "type arguments"),
        ("    counter<bit<9>>(4, CounterType.packets) c;\n", "", "type arguments"),
        ("    meter<bit<8>>(4, MeterType.packets) m;\n", "", "type arguments"),
        ("", "        PortId_t p = sm.ingress_port;\n", "PortId_t"),
    ],
)
def test_new_declarations_absent_by_default(
    compile_text: CompileText, decls: str, body: str, message: str
) -> None:
    """What only 20200408 declares is an error under the default version, as in p4c."""
    rejected(compile_text(program(ingress_decls=decls, ingress_body=body)), message)


def test_program_may_declare_port_id_by_default(compile_text: CompileText) -> None:
    """p4c's v1model declares no PortId_t before 20200408, so a program may."""
    got = compiled(
        compile_text,
        program(
            after_v1model="typedef bit<9> PortId_t;",
            ingress_body="        PortId_t p = sm.ingress_port;\n        sm.egress_spec = p;\n",
        ),
    )
    assert got["version_const"] == 20180101


@pytest.mark.parametrize("before_v1model", ["", NEW_VERSION])
def test_declarations_of_every_version(compile_text: CompileText, before_v1model: str) -> None:
    """The externs that do not depend on the version are there in both."""
    body = """
        bit<8> rnd;
        random(rnd, 8w0, 8w7);
        bit<16> hv;
        hash(hv, HashAlgorithm.crc16, 16w0, { hdr.h.core }, 32w1024);
        assert(hdr.h.core == 1);
        assume(hdr.h.v1model == 1);
        log_msg("core {}", { hdr.h.core });
        log_msg("done");
        mark_to_drop(sm);
        resubmit_preserving_field_list(1);
        clone_preserving_field_list(CloneType.I2E, 32w5, 2);
        digest(1, meta);
        truncate(32w64);
"""
    result = compile_text(program(before_v1model=before_v1model, ingress_body=body))
    assert result.status == 0, result.err

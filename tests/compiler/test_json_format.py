"""Every BMv2 JSON our compiler emits follows behavioral-model's docs/JSON_format.md.

`check(program)` below is written from that document (format version 2.23), not from our
back end: each rule cites the section it comes from ("§ actions" is the section `actions`,
"§ type value" the section "The type value object").  Where the document is silent or
self-contradictory the comment says what BMv2 itself does (src/bm_sim/P4Objects.cpp) and
what p4c emits, and the checker follows them, because the JSON must load on simple_switch.

The most important rule (project issue #10): a *primitive parameter* of type `expression`
does not hold `{op, left, right}` directly.  § actions shows it: the parameter's `value` is a
whole type value object, so an operation is wrapped twice:

    {"type": "expression", "value": {"type": "expression", "value": {"op": ..., ...}}}

BMv2 hands the parameter's `value` to its expression builder, which reads its `type`; a single
wrapper has none, and simple_switch stops with `Invalid 'type' in expression: ''`.  Inside an
expression (and in conditionals, `verify`, checksum conditions) a type value object stands as
it is, and the value of an `expression` there is `{op, left, right}` itself.

The checker runs over the JSON of every program in tests/conformance (and pending/) and
p4src, and is shown to refuse the old single-wrapped form and the other deviations it knows.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from p4aqm.compiler.cli import main as compile_main

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE = REPO / "tests" / "conformance"
PROGRAMS = sorted(
    [*CONFORMANCE.glob("*.p4"), *(CONFORMANCE / "pending").glob("*.p4"), *REPO.glob("p4src/*.p4")]
)
FIXTURE = REPO / "tests" / "dataplane" / "fixtures" / "l3_forward.json"

# § Current bmv2 JSON format version: 2.23.
MAJOR, MINOR = 2, 23

# The root attributes the document describes (§ __meta__ ... § field_aliases), and the ones
# p4c adds that BMv2 reads or ignores (field_lists: clone/resubmit lists; force_arith;
# program: the source's name; config_options).
ROOT_KEYS = {
    "__meta__",
    "header_types",
    "headers",
    "header_stacks",
    "header_union_types",
    "header_unions",
    "header_union_stacks",
    "errors",
    "enums",
    "parsers",
    "parse_vsets",
    "deparsers",
    "meter_arrays",
    "counter_arrays",
    "register_arrays",
    "actions",
    "pipelines",
    "calculations",
    "checksums",
    "learn_lists",
    "extern_instances",
    "field_aliases",
}
EXTRA_ROOT_KEYS = {"field_lists", "force_arith", "program", "config_options"}

# § type value: "For an expression, left and right will themselves be JSON objects, where the
# value attribute can be one of field, hexstr, header, expression, bool, register,
# header_stack, stack_field"; `local` "can only be used inside of an expression"; the named
# union types are what valid_union and the union ops take.  `runtime_data` is NOT among them:
# inside an expression an action parameter is a `local`.
OPERAND_TYPES = {
    "field",
    "hexstr",
    "header",
    "expression",
    "bool",
    "register",
    "header_stack",
    "stack_field",
    "local",
    "header_union",
    "header_union_stack",
}
# § actions: a parameter's type is "one of hexstr, runtime_data, header, field, calculation,
# meter_array, counter_array, register_array, header_stack, expression, extern, string,
# stack_field"; § type value adds the named union types and `parameters_vector` (log_msg).
# `bool` and `local` are NOT parameter types.
PARAMETER_TYPES = {
    "hexstr",
    "runtime_data",
    "header",
    "field",
    "calculation",
    "meter_array",
    "counter_array",
    "register_array",
    "header_stack",
    "expression",
    "extern",
    "string",
    "stack_field",
    "header_union",
    "header_union_stack",
    "parameters_vector",
}
NAMED_TYPES = {
    "header": "headers",
    "header_stack": "header_stacks",
    "header_union": "header_unions",
    "header_union_stack": "header_union_stacks",
    "calculation": "calculations",
    "register_array": "register_arrays",
    "meter_array": "meter_arrays",
    "counter_array": "counter_arrays",
    "extern": "extern_instances",
}

# § type value: the operations, and the "recently-added operations".  Each maps to the kinds
# of its operands and of its result ("Note that implicit conversions are not supported":
# booleans and data do not mix).
BOOL, DATA, HEADER, STACK, UNION, UNION_STACK = (
    "bool",
    "data",
    "header",
    "header_stack",
    "header_union",
    "header_union_stack",
)
ARITH = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"}
ORDER = {">", ">=", "<", "<="}
UNARY = {"not", "~", "d2b", "b2d", "valid", "valid_union", "last_stack_index", "size_stack"}
OPS = (
    ARITH
    | ORDER
    | UNARY
    | {
        "==",
        "!=",
        "and",
        "or",
        "two_comp_mod",
        "sat_cast",
        "usat_cast",
        "?",
        "dereference_header_stack",
        "access_field",
        "dereference_union_stack",
        "access_union_header",
    }
)
KIND_OF_TYPE = {
    "field": DATA,
    "hexstr": DATA,
    "local": DATA,
    "register": DATA,
    "stack_field": DATA,
    "runtime_data": DATA,
    "bool": BOOL,
    "header": HEADER,
    "header_stack": STACK,
    "header_union": UNION,
    "header_union_stack": UNION_STACK,
}

# § actions, "bmv2 supports the following core primitives", with their parameter counts, and
# v1model's primitives as simple_switch registers them (targets/simple_switch/primitives.cpp:
# the document leaves them to the architecture).  BMv2 refuses any other count ("Invalid
# number of parameters for primitive action") and any unknown name.
ARITY = {
    "assign": 2,
    "assign_VL": 2,
    "assign_header": 2,
    "assign_union": 2,
    "assign_header_stack": 2,
    "assign_union_stack": 2,
    "push": 2,
    "pop": 2,
    "_jump": 1,
    "_jump_if_zero": 2,
    "exit": 0,
    "assume": 1,
    "assert": 1,
    "log_msg": 2,
    "add_header": 1,
    "remove_header": 1,
    "mark_to_drop": 1,
    "modify_field_rng_uniform": 3,
    "modify_field_with_hash_based_offset": 4,
    "generate_digest": 2,
    "clone_ingress_pkt_to_egress": 2,
    "clone_egress_pkt_to_egress": 2,
    "resubmit": 1,
    "recirculate": 1,
    "count": 2,
    "execute_meter": 3,
    "register_read": 3,
    "register_write": 3,
    "truncate": 1,
}
# Parameters that are not data, by primitive: (index, required type or types).
TYPED_PARAMETERS: dict[str, dict[int, str | tuple[str, ...]]] = {
    "assign_header": {0: "header", 1: "header"},
    "assign_union": {0: "header_union", 1: "header_union"},
    "assign_union_stack": {0: "header_union_stack", 1: "header_union_stack"},
    "add_header": {0: "header"},
    "remove_header": {0: "header"},
    "mark_to_drop": {0: "header"},
    # "push and pop for stack (header stack or header union stack) manipulation".
    "push": {0: ("header_stack", "header_union_stack")},
    "pop": {0: ("header_stack", "header_union_stack")},
    "log_msg": {0: "string", 1: "parameters_vector"},
    "modify_field_with_hash_based_offset": {0: "field", 2: "calculation"},
    "count": {0: "counter_array"},
    "execute_meter": {0: "meter_array", 2: "field"},
    "register_read": {0: "field", 1: "register_array"},
    "register_write": {0: "register_array"},
    "modify_field_rng_uniform": {0: "field"},
}
# "The bmv2 implementation of the assign primitive requires the first parameter to be a
# lvalue expression" (§ actions): a field, or an expression denoting one.
LVALUE_FIRST = {"assign"}
# assume/assert: "a single parameter (a boolean expression)" (§ actions); p4c passes it
# through b2d, BMv2 primitives taking data: either kind is accepted there.
KIND_FREE = {"assume", "assert"}

HEX = re.compile(r"^-?(0x)?[0-9a-fA-F]+$")


def hex_bytes(s: str) -> int:
    """Bytes of a hex string as BMv2 reads it (an odd digit count is padded)."""
    digits = s.lstrip("-")
    digits = digits[2:] if digits.startswith("0x") else digits
    return (len(digits) + 1) // 2


class Checker:
    def __init__(self, program: dict[str, Any]) -> None:
        self.p = program
        self.errors: list[str] = []
        self.types = {t.get("name"): t for t in program.get("header_types", [])}
        self.headers = {h.get("name"): h for h in program.get("headers", [])}
        self.header_ids = {h.get("id"): h for h in program.get("headers", [])}
        self.names = {
            key: {o.get("name"): o for o in program.get(key, []) if isinstance(o, dict)}
            for key in set(NAMED_TYPES.values()) | {"parse_vsets"}
        }
        self.actions = {a.get("id"): a for a in program.get("actions", [])}
        self.action_params = 0  # runtime_data count of the action being checked

    def err(self, where: str, msg: str) -> None:
        self.errors.append(f"{where}: {msg}")

    # ---- small shapes ------------------------------------------------------------------

    def obj(self, v: Any, where: str, *keys: str) -> bool:
        if not isinstance(v, dict):
            self.err(where, f"expected an object, got {json.dumps(v)[:60]}")
            return False
        for k in keys:
            if k not in v:
                self.err(where, f"missing attribute '{k}'")
        return all(k in v for k in keys)

    def is_int(self, v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    def hexstr(self, v: Any, where: str) -> bool:
        # § type value: "a bitstring written in hexadecimal (big endian order); it can be
        # prefixed with a negative sign".
        if not (isinstance(v, str) and HEX.match(v)):
            self.err(where, f"not a hex string: {json.dumps(v)}")
            return False
        return True

    def field_width(self, header: str, field: str) -> int | None:
        """Width of `header.field`; `$valid$` is the hidden 1-bit field (§ type value)."""
        h = self.headers.get(header)
        if h is None:
            return None
        if field == "$valid$":
            return 1
        t = self.types.get(h.get("header_type"), {})
        for f in t.get("fields", []):
            if f and f[0] == field:
                return f[1] if self.is_int(f[1]) else 0
        return None

    def field_ref(self, v: Any, where: str, writable: bool = False) -> int | None:
        # § type value: a field is "a JSON 2-tuple, where the first item is the header
        # instance name and the second is the field member name".
        if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)):
            self.err(where, f"a field reference is [header, field], got {json.dumps(v)}")
            return None
        width = self.field_width(*v)
        if width is None:
            self.err(where, f"unknown field {v[0]}.{v[1]}")
        elif writable and v[1] == "$valid$":
            self.err(where, "$valid$ is a read-only field")
        return width

    def stack_field_width(self, v: Any, where: str) -> int | None:
        # § type value: stack_field is [header stack name, field member name].
        if not (isinstance(v, list) and len(v) == 2):
            self.err(where, f"a stack_field is [stack, field], got {json.dumps(v)}")
            return None
        stack = self.names["header_stacks"].get(v[0])
        if stack is None:
            self.err(where, f"unknown header stack '{v[0]}'")
            return None
        for f in self.types.get(stack.get("header_type"), {}).get("fields", []):
            if f[0] == v[1]:
                return f[1]
        self.err(where, f"stack '{v[0]}' has no field '{v[1]}'")
        return None

    def union_stack_field_width(self, v: Any, where: str) -> int | None:
        # § type value: union_stack_field is [header union stack, union member, field].
        if not (isinstance(v, list) and len(v) == 3):
            self.err(where, f"a union_stack_field is [stack, member, field], got {json.dumps(v)}")
            return None
        stack = self.names["header_union_stacks"].get(v[0])
        if stack is None:
            self.err(where, f"unknown header union stack '{v[0]}'")
            return None
        union_types = {u.get("name"): u for u in self.p.get("header_union_types", [])}
        union_type = union_types.get(stack.get("union_type"), {})
        members = {m[0]: m[1] for m in union_type.get("headers", [])}
        for f in self.types.get(members.get(v[1]), {}).get("fields", []):
            if f[0] == v[2]:
                return f[1]
        self.err(where, f"union stack '{v[0]}' has no field '{v[1]}.{v[2]}'")
        return None

    def named(self, kind: str, v: Any, where: str) -> None:
        if not isinstance(v, str) or v not in self.names[NAMED_TYPES[kind]]:
            self.err(where, f"no {kind} named {json.dumps(v)}")

    # ---- expressions (§ type value) -------------------------------------------------------

    def operand(self, v: Any, where: str) -> str | None:
        """A type value object inside an expression, or standing for one (conditionals,
        verify, checksum conditions, extract_VL's length...); returns its kind."""
        if isinstance(v, dict) and "op" in v and "type" not in v:
            self.err(
                where,
                "an {op, left, right} here must be a type value object "
                '{"type": "expression", "value": {op, left, right}} '
                "(BMv2 says Invalid 'type' in expression: '')",
            )
            return self.operation(v, where)
        if not self.obj(v, where, "type", "value"):
            return None
        kind, val = v["type"], v["value"]
        if kind not in OPERAND_TYPES:
            hint = " (inside an expression an action parameter is a 'local')"
            self.err(
                where,
                f"type '{kind}' cannot be used in an expression"
                + (hint if kind == "runtime_data" else ""),
            )
            return None
        if kind == "field":
            self.field_ref(val, where)
        elif kind == "hexstr":
            self.hexstr(val, where)
        elif kind == "bool":
            if not isinstance(val, bool):
                self.err(where, "a bool's value is true or false")
        elif kind == "local":
            if not (self.is_int(val) and 0 <= val < self.action_params):
                self.err(where, f"local {val} is no parameter of the action")
        elif kind == "stack_field":
            self.stack_field_width(val, where)
        elif kind == "register":
            # § type value: [register array name, an expression for the index].
            if isinstance(val, list) and len(val) == 2:
                self.named("register_array", val[0], where)
                self.data(self.operand(val[1], f"{where}.index"), f"{where}.index")
            else:
                self.err(where, "a register is [register array, index expression]")
        elif kind in NAMED_TYPES:
            self.named(kind, val, where)
        elif kind == "expression":
            return self.operation(val, where)
        return KIND_OF_TYPE.get(kind)

    def operation(self, e: Any, where: str) -> str | None:
        """The value of an `expression`: {op, left, right} (+ cond for `?`)."""
        if not isinstance(e, dict):
            self.err(where, "an expression's value is an object {op, left, right}")
            return None
        if "type" in e:
            self.err(
                where,
                "an expression's value is {op, left, right}, not another type value object "
                "(only a primitive parameter wraps one)",
            )
            return None
        if not self.obj(e, where, "op", "left", "right"):
            return None
        op = e["op"]
        if op not in OPS:
            self.err(where, f"unknown operation {json.dumps(op)}")
            return None
        if ("cond" in e) != (op == "?"):
            self.err(where, "'cond' is an attribute of the ternary operator '?' only")
        w = f"{where}({op})"
        left, right = e["left"], e["right"]
        if op in UNARY and left is not None:
            self.err(w, "a unary operation has a null 'left'")
        if op in ("access_field", "access_union_header"):
            # § type value: right "is a JSON integer" (a field / member offset).
            self.expect(
                self.operand(left, f"{w}.left"), HEADER if op == "access_field" else UNION, w
            )
            if not self.is_int(right):
                self.err(w, "right is a JSON integer offset")
            return DATA if op == "access_field" else HEADER
        rk = self.operand(right, f"{w}.right")
        lk = None if left is None else self.operand(left, f"{w}.left")
        if op in ("and", "or"):
            self.expect(lk, BOOL, w)
            self.expect(rk, BOOL, w)
            return BOOL
        if op == "not":
            self.expect(rk, BOOL, w)
            return BOOL
        if op == "~":
            self.expect(rk, DATA, w)
            return DATA
        if op == "d2b":
            self.expect(rk, DATA, w)
            return BOOL
        if op == "b2d":
            self.expect(rk, BOOL, w)
            return DATA
        if op == "valid":
            self.expect(rk, HEADER, w)
            return BOOL
        if op == "valid_union":
            self.expect(rk, UNION, w)
            return BOOL
        if op in ("last_stack_index", "size_stack"):
            # p4c gives a union stack's lastIndex this op too, and BMv2 evaluates it
            # through the interface both kinds of stack share.
            if rk != UNION_STACK:
                self.expect(rk, STACK, w)
            return DATA
        if op in ("==", "!="):
            if lk and rk and lk != rk:
                self.err(w, f"compares a {lk} with a {rk}")
            return BOOL
        if op == "?":
            self.expect(self.operand(e.get("cond"), f"{w}.cond"), BOOL, w)
            if lk and rk and lk != rk:
                self.err(w, f"branches of different kinds: {lk} and {rk}")
            return lk
        if op == "dereference_header_stack":
            self.expect(lk, STACK, w)
            self.expect(rk, DATA, w)
            return HEADER
        if op == "dereference_union_stack":
            self.expect(lk, UNION_STACK, w)
            self.expect(rk, DATA, w)
            return UNION
        if op in ("-", "+") and left is None:
            self.expect(rk, DATA, w)  # unary minus / plus: left is null (§ type value)
            return DATA
        # Arithmetic, comparisons, two_comp_mod, sat_cast, usat_cast: data operands.
        if left is None:
            self.err(w, "a binary operation needs a 'left' operand")
        self.expect(lk, DATA, w)
        self.expect(rk, DATA, w)
        return BOOL if op in ORDER else DATA

    def expect(self, kind: str | None, want: str, where: str) -> None:
        if kind is not None and kind != want:
            self.err(where, f"a {want} is needed, this is a {kind} (no implicit conversion)")

    def data(self, kind: str | None, where: str) -> None:
        self.expect(kind, DATA, where)

    # ---- parameters (§ actions) -----------------------------------------------------------

    def parameter(self, p: Any, where: str) -> str | None:
        """A primitive's parameter; returns its kind."""
        if not self.obj(p, where, "type", "value"):
            return None
        kind, val = p["type"], p["value"]
        if kind not in PARAMETER_TYPES:
            self.err(where, f"'{kind}' is not a parameter type")
            return None
        if kind == "expression":
            # § actions, the example: the parameter's value is a whole type value object
            # ({"type": "expression", "value": {"op": ...}}).  An {op, left, right} right
            # here is the single-wrapped form BMv2 refuses.
            if not (isinstance(val, dict) and "type" in val):
                self.err(
                    where,
                    "a parameter of type 'expression' holds a type value object: "
                    '{"type": "expression", "value": {"type": "expression", "value": '
                    "{op, left, right}}} (single-wrapped: BMv2 says Invalid 'type' in "
                    "expression: '')",
                )
                # Go on into the operation, for what else it may hold.
                return self.operation(val, f"{where}.value") if isinstance(val, dict) else None
            return self.operand(val, f"{where}.value")
        if kind == "runtime_data":
            # § actions: "an integer representing an index into the runtime_data".
            if not (self.is_int(val) and 0 <= val < self.action_params):
                self.err(where, f"runtime_data {val} is no parameter of the action")
            return DATA
        if kind == "parameters_vector":
            if not isinstance(val, list):
                self.err(where, "a parameters_vector's value is an array")
                return None
            for i, item in enumerate(val):
                self.data(self.parameter(item, f"{where}[{i}]"), f"{where}[{i}]")
            return kind
        if kind == "string":
            if not isinstance(val, str):
                self.err(where, "a string's value is a string")
            return kind
        return self.operand(p, where) if kind in OPERAND_TYPES else self.named_param(p, where)

    def named_param(self, p: dict[str, Any], where: str) -> str:
        self.named(p["type"], p["value"], where)
        return p["type"]

    def primitive(self, prim: Any, where: str, length: int) -> None:
        """A primitive call of an action (§ actions) or of a parser `primitive` op."""
        if not self.obj(prim, where, "op", "parameters"):
            return
        op, params = prim["op"], prim["parameters"]
        w = f"{where}[{op}]"
        if op not in ARITY:
            self.err(w, "unknown primitive")
            return
        if not isinstance(params, list) or len(params) != ARITY[op]:
            self.err(w, f"takes {ARITY[op]} parameters, got {len(params)}")
            return
        typed = TYPED_PARAMETERS.get(op, {})
        for i, p in enumerate(params):
            pw = f"{w}.parameters[{i}]"
            kind = self.parameter(p, pw)
            if i == 0 and op in LVALUE_FIRST and isinstance(p, dict):
                if p.get("type") == "field":
                    self.field_ref(p.get("value"), pw, writable=True)
                elif p.get("type") != "expression":
                    self.err(pw, "the destination is a field or an lvalue expression")
            elif i in typed:
                want = typed[i]
                allowed = want if isinstance(want, tuple) else (want,)
                # BMv2 takes a header or union from an expression parameter that
                # evaluates to one (ActionParam's EXPRESSION_HEADER, EXPRESSION_HEADER_UNION):
                # p4c's `hs[i].setValid()` with a run-time i.
                evaluated = {HEADER: "header", UNION: "header_union"}.get(kind or "")
                if isinstance(p, dict) and p.get("type") == "expression" and evaluated in allowed:
                    pass
                elif isinstance(p, dict) and p.get("type") not in allowed:
                    names = " or ".join(f"'{a}'" for a in allowed)
                    self.err(pw, f"must be of type {names}, not '{p.get('type')}'")
                if typed[i] == "field" and isinstance(p, dict):
                    self.field_ref(p.get("value"), pw, writable=True)
            elif op not in KIND_FREE:
                # "_jump_if_zero ... two parameters which must both resolve to integral
                # values"; the others take data too (§ actions).
                self.data(kind, pw)
        if op in ("_jump", "_jump_if_zero"):
            # § actions: the offset is the index of a primitive call in the enclosing
            # action (the end of the action, index `length`, leaves it).
            target = params[-1]
            value = target.get("value") if isinstance(target, dict) else None
            if not (isinstance(target, dict) and target.get("type") == "hexstr" and value):
                self.err(w, "the jump offset is a hexstr")
            elif not 0 <= int(value, 16) <= length:
                self.err(w, f"jump offset {value} is outside the action's {length} primitives")

    # ---- the root ----------------------------------------------------------------------------

    def run(self) -> list[str]:
        p = self.p
        for key in p:
            if key not in ROOT_KEYS | EXTRA_ROOT_KEYS:
                self.err("root", f"unknown attribute '{key}'")
        for key in ROOT_KEYS - {"__meta__"}:
            if not isinstance(p.get(key), list):
                self.err("root", f"'{key}' must be a JSON array")
        self.meta()
        self.header_types()
        self.instances()
        self.errors_and_enums()
        self.parsers()
        self.deparsers()
        self.arrays()
        for a in p.get("actions", []):
            self.action(a)
        self.pipelines()
        self.calculations()
        self.checksums()
        self.lists()
        self.externs_and_aliases()
        return self.errors

    def meta(self) -> None:
        # § __meta__: "version: a JSON array with exactly 2 integer entries"; § Current bmv2
        # JSON format version: 2.23 (BMv2 refuses another major or a newer minor).
        meta = self.p.get("__meta__")
        if not self.obj(meta, "__meta__", "version"):
            return
        v = meta["version"]
        if not (isinstance(v, list) and len(v) == 2 and all(self.is_int(x) for x in v)):
            self.err("__meta__", f"version must be [major, minor], got {v}")
        elif v[0] != MAJOR or v[1] > MINOR:
            self.err("__meta__", f"version {v} is not {MAJOR}.x with x <= {MINOR}")
        if "compiler" in meta and not isinstance(meta["compiler"], str):
            self.err("__meta__", "compiler is an optional string")

    def unique_ids(self, items: list[Any], what: str) -> None:
        ids = [o.get("id") for o in items if isinstance(o, dict)]
        if len(ids) != len(set(ids)) or not all(self.is_int(i) for i in ids):
            self.err(what, f"ids must be unique integers, got {ids}")

    def header_types(self) -> None:
        # § header_types.
        types = self.p.get("header_types", [])
        self.unique_ids(types, "header_types")
        for t in types:
            w = f"header_type {t.get('name')}"
            if not self.obj(t, w, "name", "id", "fields"):
                continue
            varbits = 0
            for f in t["fields"]:
                ok = isinstance(f, list) and len(f) in (2, 3) and isinstance(f[0], str)
                ok = ok and (f[1] == "*" or (self.is_int(f[1]) and f[1] > 0))
                ok = ok and (len(f) == 2 or isinstance(f[2], bool))
                if not ok:
                    self.err(w, f'a field is [name, width or "*", signed?], got {f}')
                    continue
                varbits += f[1] == "*"
                if len(f) == 3 and f[2] and self.is_int(f[1]) and f[1] < 2:
                    self.err(w, f"signed field {f[0]} needs at least 2 bits")
            if varbits > 1:
                self.err(w, "at most one variable-length field")
            if varbits and not self.is_int(t.get("max_length")):
                self.err(w, "a variable-length field needs max_length")

    def instances(self) -> None:
        p = self.p
        # § headers.
        self.unique_ids(p.get("headers", []), "headers")
        for h in p.get("headers", []):
            w = f"header {h.get('name')}"
            if self.obj(h, w, "name", "id", "header_type", "metadata"):
                if h["header_type"] not in self.types:
                    self.err(w, f"unknown header_type '{h['header_type']}'")
                if not isinstance(h["metadata"], bool):
                    self.err(w, "metadata is a boolean")
        # § header_stacks.
        self.unique_ids(p.get("header_stacks", []), "header_stacks")
        for s in p.get("header_stacks", []):
            w = f"header_stack {s.get('name')}"
            if self.obj(s, w, "name", "id", "header_type", "header_ids"):
                for i in s["header_ids"]:
                    h = self.header_ids.get(i)
                    if h is None or h.get("header_type") != s["header_type"]:
                        self.err(w, f"header id {i} is no {s['header_type']} instance")
        # § header_union_types, § header_unions, § header_union_stacks.
        union_types = {u.get("name"): u for u in p.get("header_union_types", [])}
        for u in union_types.values():
            w = f"header_union_type {u.get('name')}"
            if self.obj(u, w, "name", "id", "headers"):
                for m in u["headers"]:
                    if not (isinstance(m, list) and len(m) == 2 and m[1] in self.types):
                        self.err(w, f"a member is [name, header type], got {m}")
        for u in p.get("header_unions", []):
            w = f"header_union {u.get('name')}"
            if self.obj(u, w, "name", "id", "union_type", "header_ids"):
                if u["union_type"] not in union_types:
                    self.err(w, f"unknown union_type '{u['union_type']}'")
                for i in u["header_ids"]:
                    if i not in self.header_ids:
                        self.err(w, f"unknown header id {i}")
        for u in p.get("header_union_stacks", []):
            self.obj(u, f"header_union_stack {u.get('name')}", "name", "id", "union_type")

    def errors_and_enums(self) -> None:
        # § errors: [name, value] with a unique value in [0, 2**31 - 1).
        values = []
        for e in self.p.get("errors", []):
            ok = isinstance(e, list) and len(e) == 2 and isinstance(e[0], str)
            if not (ok and self.is_int(e[1]) and 0 <= e[1] < 2**31 - 1):
                self.err("errors", f"an error is [name, integer in [0, 2**31-1)], got {e}")
            else:
                values.append(e[1])
        if len(values) != len(set(values)):
            self.err("errors", "error values must be unique")
        # § enums.
        for en in self.p.get("enums", []):
            if self.obj(en, f"enum {en.get('name')}", "name", "entries"):
                vals = [x[1] for x in en["entries"]]
                if len(vals) != len(set(vals)):
                    self.err(f"enum {en['name']}", "entry values must be unique")

    # ---- parsers (§ parsers, § parser operations) ----------------------------------------

    def parsers(self) -> None:
        all_states: list[Any] = []
        for parser in self.p.get("parsers", []):
            w = f"parser {parser.get('name')}"
            if not self.obj(parser, w, "name", "id", "init_state", "parse_states"):
                continue
            states = {s.get("name"): s for s in parser["parse_states"]}
            all_states += parser["parse_states"]
            if parser["init_state"] not in states:
                self.err(w, f"init_state '{parser['init_state']}' is no state")
            for s in parser["parse_states"]:
                self.parse_state(s, states)
        # "id: ... unique with respect to *all* parse states in the JSON file".
        self.unique_ids(all_states, "parse states")
        for v in self.p.get("parse_vsets", []):
            # § parse_vsets.
            self.obj(v, f"parse_vset {v.get('name')}", "name", "id", "compressed_bitwidth")

    def parse_state(self, s: Any, states: dict[str, Any]) -> None:
        w = f"parse_state {s.get('name')}"
        if not self.obj(s, w, "name", "id", "parser_ops", "transition_key", "transitions"):
            return
        self.action_params = 0
        for i, op in enumerate(s["parser_ops"]):
            self.parser_op(op, f"{w}.parser_ops[{i}]")
        # transition_key: field, stack_field, union_stack_field or lookahead.
        widths: list[int] = []
        for i, k in enumerate(s["transition_key"]):
            kw = f"{w}.transition_key[{i}]"
            if not self.obj(k, kw, "type", "value"):
                continue
            kind, val = k["type"], k["value"]
            width: int | None = None
            if kind == "field":
                width = self.field_ref(val, kw)
            elif kind == "stack_field":
                width = self.stack_field_width(val, kw)
            elif kind == "lookahead":
                # § type value: [bit offset, bitwidth].
                if isinstance(val, list) and len(val) == 2 and all(self.is_int(x) for x in val):
                    width = val[1]
                else:
                    self.err(kw, "a lookahead is [offset, bitwidth]")
            elif kind == "union_stack_field":
                width = self.union_stack_field_width(val, kw)
            else:
                self.err(kw, f"a transition key part cannot be of type '{kind}'")
            widths.append(width or 0)
        # "values and masks ... need to be the concatenation (in the right order) of all byte
        # padded fields".
        key_bytes = sum((x + 7) // 8 for x in widths)
        for i, t in enumerate(s["transitions"]):
            tw = f"{w}.transitions[{i}]"
            if not self.obj(t, tw, "type", "value", "mask", "next_state"):
                continue
            if t["next_state"] is not None and t["next_state"] not in states:
                self.err(tw, f"next_state '{t['next_state']}' is no state of this parser")
            if t["type"] == "default":
                if t["value"] is not None or t["mask"] is not None:
                    self.err(tw, "a default transition has null value and mask")
            elif t["type"] == "hexstr":
                for attr in ("value", "mask"):
                    v = t[attr]
                    if v is None and attr == "mask":
                        continue
                    if self.hexstr(v, f"{tw}.{attr}") and hex_bytes(v) != key_bytes:
                        self.err(tw, f"{attr} {v} is not {key_bytes} bytes (the padded key)")
            elif t["type"] == "parse_vset":
                vset = self.names["parse_vsets"].get(t["value"])
                if vset is None:
                    self.err(tw, f"no parse_vset named {json.dumps(t['value'])}")
                elif t["mask"] is not None:
                    want = (vset.get("compressed_bitwidth", 0) + 7) // 8
                    if self.hexstr(t["mask"], tw) and hex_bytes(t["mask"]) != want:
                        self.err(tw, f"a value set's mask is {want} bytes")
            else:
                self.err(tw, f"transition type is default, hexstr or parse_vset, not {t['type']}")

    def extract_target(self, p: Any, where: str, vl: bool) -> None:
        # extract: "one parameter, of type regular, stack or union_stack".
        if not self.obj(p, where, "type", "value"):
            return
        kind, val = p["type"], p["value"]
        if kind == "regular":
            h = self.headers.get(val)
            if h is None:
                self.err(where, f"no header named {json.dumps(val)}")
                return
            t = self.types.get(h.get("header_type"), {})
            has_vl = any(f[1] == "*" for f in t.get("fields", []))
            if has_vl and not vl and "length_exp" not in t:
                # § header_types: length_exp gives the length to `extract`; P4_16 gives it
                # to `extract_VL` instead.
                self.err(where, "a variable-length header without length_exp needs extract_VL")
        elif kind == "stack":
            self.named("header_stack", val, where)
        elif kind == "union_stack":
            if not (isinstance(val, list) and len(val) == 2):
                self.err(where, "a union_stack extract is [union stack, member]")
            else:
                self.named("header_union_stack", val[0], where)
        else:
            self.err(where, f"extract type is regular, stack or union_stack, not '{kind}'")

    def parser_op(self, op: Any, where: str) -> None:
        if not self.obj(op, where, "op", "parameters"):
            return
        name, params = op["op"], op["parameters"]
        w = f"{where}[{name}]"
        counts = {"extract": 1, "extract_VL": 2, "set": 2, "verify": 2, "shift": 1}
        counts |= {"advance": 1, "primitive": 1}
        if name not in counts:
            self.err(w, "op is extract, extract_VL, set, verify, shift, advance or primitive")
            return
        if not isinstance(params, list) or len(params) != counts[name]:
            self.err(w, f"takes {counts[name]} parameters, got {params}")
            return
        if name in ("extract", "extract_VL"):
            self.extract_target(params[0], f"{w}[0]", name == "extract_VL")
        if name == "extract_VL":
            # "The second one must be of type expression (to compute the length in bits)":
            # its value is the type value object giving the length.
            length = params[1]
            if self.obj(length, f"{w}[1]", "type", "value"):
                if length["type"] != "expression":
                    self.err(w, "the length is of type expression")
                else:
                    self.data(self.operand(length["value"], f"{w}[1].value"), w)
        elif name == "set":
            # "the first one needs to be of type field ... The second one can be of type
            # field, hexstr, lookahead or expression": a data parameter, as in § actions
            # (BMv2 reads an expression source's value as the expression; p4c wraps it).
            dst, src = params
            if self.obj(dst, f"{w}[0]", "type", "value"):
                if dst["type"] != "field":
                    self.err(w, "the destination is a field")
                else:
                    self.field_ref(dst["value"], f"{w}[0]", writable=True)
            if self.obj(src, f"{w}[1]", "type", "value"):
                if src["type"] == "lookahead":
                    v = src["value"]
                    if not (isinstance(v, list) and len(v) == 2):
                        self.err(w, "a lookahead is [offset, bitwidth]")
                elif src["type"] in ("field", "hexstr", "expression"):
                    self.data(self.parameter(src, f"{w}[1]"), w)
                else:
                    self.err(
                        w,
                        f"a set source is field, hexstr, lookahead or expression, "
                        f"not {src['type']}",
                    )
        elif name == "verify":
            # "the first should be a boolean expression while the second should be an
            # expression resolving to a valid integral value for an error constant".
            self.expect(self.operand(params[0], f"{w}[0]"), BOOL, w)
            if not self.is_int(params[1]):
                self.data(self.operand(params[1], f"{w}[1]"), w)
        elif name == "shift":
            if not self.is_int(params[0]):
                self.err(w, "shift takes a number of bytes")
        elif name == "advance":
            # "the number of bits to shift, which can be of type hexstr, field or
            # expression" (a data parameter, as for set).
            bits = params[0]
            if isinstance(bits, dict) and bits.get("type") not in ("hexstr", "field", "expression"):
                self.err(w, f"advance takes a hexstr, field or expression, not {bits.get('type')}")
            else:
                self.data(self.parameter(bits, f"{w}[0]"), w)
        elif name == "primitive":
            # "It only takes one parameter, which is itself a JSON object with op and
            # parameters ... consistent with how control-flow actions are described".
            self.primitive(params[0], w, 0)

    def deparsers(self) -> None:
        # § deparsers: order is header instance names.
        for d in self.p.get("deparsers", []):
            w = f"deparser {d.get('name')}"
            if self.obj(d, w, "name", "id", "order"):
                for h in d["order"]:
                    if h not in self.headers:
                        self.err(w, f"unknown header '{h}' in order")

    # ---- arrays, actions ---------------------------------------------------------------------

    def arrays(self) -> None:
        tables = {t.get("name") for pl in self.p.get("pipelines", []) for t in pl.get("tables", [])}
        # § meter_arrays.
        for m in self.p.get("meter_arrays", []):
            w = f"meter_array {m.get('name')}"
            if not self.obj(m, w, "name", "id", "type", "rate_count", "size", "is_direct"):
                continue
            if m["type"] not in ("bytes", "packets"):
                self.err(w, "type is bytes or packets")
            if m["is_direct"]:
                if m.get("binding") not in tables:
                    self.err(w, "a direct meter's binding is its table")
                rt = m.get("result_target")
                if rt is None:
                    self.err(w, "a direct meter needs a result_target field")
                else:
                    self.field_ref(rt, w, writable=True)
        # § counter_arrays.
        for c in self.p.get("counter_arrays", []):
            w = f"counter_array {c.get('name')}"
            if self.obj(c, w, "name", "id", "is_direct"):
                if c["is_direct"] and c.get("binding") not in tables:
                    self.err(w, "a direct counter's binding is its table")
                if not c["is_direct"] and not self.is_int(c.get("size")):
                    self.err(w, "size is an integer")
        # § register_arrays.
        for r in self.p.get("register_arrays", []):
            self.obj(r, f"register_array {r.get('name')}", "name", "id", "size", "bitwidth")
        for key in ("meter_arrays", "counter_arrays", "register_arrays", "calculations"):
            self.unique_ids(self.p.get(key, []), key)

    def action(self, a: Any) -> None:
        # § actions.
        w = f"action {a.get('name')}#{a.get('id')}"
        if not self.obj(a, w, "name", "id", "runtime_data", "primitives"):
            return
        for r in a["runtime_data"]:
            # "Each object has exactly 2 attributes: name, bitwidth".
            if not (isinstance(r, dict) and set(r) == {"name", "bitwidth"}):
                self.err(w, f"a runtime_data item is exactly {{name, bitwidth}}, got {r}")
        self.action_params = len(a["runtime_data"])
        for i, prim in enumerate(a["primitives"]):
            self.primitive(prim, f"{w}.primitives[{i}]", len(a["primitives"]))

    # ---- pipelines (§ pipelines, § match-action entry format) --------------------------------

    def pipelines(self) -> None:
        self.unique_ids(self.p.get("actions", []), "actions")
        tables, conds, calls = [], [], []
        for pl in self.p.get("pipelines", []):
            w = f"pipeline {pl.get('name')}"
            if not self.obj(pl, w, "name", "id", "init_table", "tables", "conditionals"):
                continue
            tables += pl["tables"]
            conds += pl["conditionals"]
            calls += pl.get("action_calls", [])
            nodes = [o.get("name") for o in pl["tables"] + pl["conditionals"]]
            nodes += [o.get("name") for o in pl.get("action_calls", [])]
            if len(nodes) != len(set(nodes)):
                self.err(w, "table, conditional and action call names must differ")
            names = set(nodes)
            if pl["init_table"] is not None and pl["init_table"] not in names:
                self.err(w, f"init_table '{pl['init_table']}' is no node")
            for ap in pl.get("action_profiles", []):
                self.obj(ap, f"{w}.action_profile {ap.get('name')}", "name", "id", "max_size")
            for t in pl["tables"]:
                self.table(t, names)
            for c in pl["conditionals"]:
                self.conditional(c, names)
            for c in pl.get("action_calls", []):
                cw = f"action_call {c.get('name')}"
                ok = self.obj(c, cw, "name", "id", "action_id", "next_node")
                if ok and self.actions.get(c["action_id"], {}).get("runtime_data"):
                    self.err(cw, "the called action must not expect parameters")
        # Table, conditional and action call ids are unique in the whole file.
        self.unique_ids(tables, "tables")
        self.unique_ids(conds, "conditionals")
        self.unique_ids(calls, "action_calls")

    def table(self, t: Any, nodes: set[str]) -> None:
        w = f"table {t.get('name')}"
        keys = ("name", "id", "match_type", "type", "max_size", "with_counters")
        keys += ("support_timeout", "key", "actions", "next_tables", "direct_meters")
        if not self.obj(t, w, *keys):
            return
        if t["type"] not in ("simple", "indirect", "indirect_ws"):
            self.err(w, "type is simple, indirect or indirect_ws")
        elif t["type"] != "simple" and "action_profile" not in t:
            self.err(w, "an indirect table names its action_profile")
        for attr in ("with_counters", "support_timeout"):
            if not isinstance(t[attr], bool):
                self.err(w, f"{attr} is a boolean")
        widths = []
        kinds = []
        for i, k in enumerate(t["key"]):
            kw = f"{w}.key[{i}]"
            if not self.obj(k, kw, "match_type", "target", "mask"):
                widths.append(0)
                continue
            kind = k["match_type"]
            kinds.append(kind)
            if kind not in ("valid", "exact", "lpm", "ternary", "range"):
                self.err(kw, f"match_type is valid, exact, lpm, ternary or range, not '{kind}'")
            if kind == "valid":
                # "the field reference as a 2-tuple (or header as a string if match_type is
                # valid)".
                if k["target"] not in self.headers:
                    self.err(kw, "a valid key's target is a header name")
                width = 1
            else:
                width = self.field_ref(k["target"], kw) or 0
            widths.append(width)
            # "make sure that this mask is byte-padded and has the same width (in bytes)".
            mask = k["mask"]
            if mask is not None and self.hexstr(mask, kw) and hex_bytes(mask) != (width + 7) // 8:
                self.err(kw, f"mask {mask} is not {(width + 7) // 8} bytes")
            if "name" in k and not isinstance(k["name"], str):
                self.err(kw, "name is a string")
        # "If one match field is range, the table match_type has to be range; ternary ->
        # ternary; lpm -> ternary or lpm"; at most one lpm field.
        mt = t["match_type"]
        if mt not in ("exact", "lpm", "ternary", "range"):
            self.err(w, f"match_type is exact, lpm, ternary or range, not '{mt}'")
        elif "range" in kinds and mt != "range":
            self.err(w, "a range key makes the table range")
        elif "ternary" in kinds and mt not in ("ternary", "range"):
            self.err(w, "a ternary key makes the table ternary")
        elif "lpm" in kinds and mt not in ("lpm", "ternary", "range"):
            self.err(w, "an lpm key makes the table lpm or ternary")
        if kinds.count("lpm") > 1:
            self.err(w, "more than one lpm key")
        # actions (names), and action_ids where present (p4c emits both).
        actions = t["actions"]
        ids = t.get("action_ids", [])
        for i, aid in enumerate(ids):
            a = self.actions.get(aid)
            if a is None or i >= len(actions) or a.get("name") != actions[i]:
                self.err(w, f"action id {aid} does not match action '{actions[i : i + 1]}'")
        # next_tables: "maps each action to a next table name. Alternatively, maps special
        # string __HIT__ and __MISS__ to a next table name."
        nt = t["next_tables"]
        if isinstance(nt, dict):
            if set(nt) not in ({"__HIT__", "__MISS__"}, set(actions)):
                self.err(w, f"next_tables keys {sorted(nt)} are not the actions nor hit/miss")
            for v in nt.values():
                if v is not None and v not in nodes:
                    self.err(w, f"next node '{v}' is not in this pipeline")
        if "base_default_next" in t:
            bdn = t["base_default_next"]
            if bdn is not None and bdn not in nodes:
                self.err(w, f"base_default_next '{bdn}' is not in this pipeline")
        dm = t["direct_meters"]
        if dm is not None:
            meter = next((m for m in self.p.get("meter_arrays", []) if m.get("name") == dm), None)
            if meter is None or not meter.get("is_direct"):
                self.err(w, f"direct_meters '{dm}' is no direct meter array")
        table_ids = set(ids) or {
            a.get("id") for a in self.actions.values() if a.get("name") in actions
        }
        if "default_entry" in t:
            self.default_entry(t["default_entry"], t, table_ids, f"{w}.default_entry")
        if "entries" in t:
            if t["type"] != "simple":
                self.err(w, "only simple tables have entries")
            for i, e in enumerate(t["entries"]):
                self.entry(e, t["key"], widths, table_ids, f"{w}.entries[{i}]")

    def action_data(self, action_id: Any, data: Any, where: str) -> None:
        a = self.actions.get(action_id)
        if a is None:
            self.err(where, f"unknown action id {action_id}")
            return
        if not isinstance(data, list) or len(data) != len(a.get("runtime_data", [])):
            self.err(where, f"action_data needs {len(a.get('runtime_data', []))} hex strings")
            return
        for d in data:
            self.hexstr(d, where)

    def default_entry(self, d: Any, t: dict[str, Any], ids: set[Any], where: str) -> None:
        if not self.obj(d, where, "action_id"):
            return
        if d["action_id"] not in ids:
            self.err(where, f"action id {d['action_id']} is not one of the table's actions")
        if d.get("action_const") and t["type"] != "simple":
            self.err(where, "action_const can only be true for simple tables")
        for attr in ("action_const", "action_entry_const"):
            if attr in d and not isinstance(d[attr], bool):
                self.err(where, f"{attr} is a boolean")
        if "action_data" in d:
            self.action_data(d["action_id"], d["action_data"], where)

    def entry(self, e: Any, keys: list[Any], widths: list[int], ids: set[Any], where: str) -> None:
        if not self.obj(e, where, "match_key", "action_entry", "priority"):
            return
        mk = e["match_key"]
        if len(mk) != len(keys):
            self.err(where, f"{len(mk)} match fields for a key of {len(keys)}")
            return
        for i, (m, k, width) in enumerate(zip(mk, keys, widths, strict=True)):
            mw = f"{where}.match_key[{i}]"
            if not self.obj(m, mw, "match_type"):
                continue
            kind = m["match_type"]
            if kind != k.get("match_type"):
                self.err(mw, f"match type {kind} is not the table's {k.get('match_type')}")
                continue
            need = {"valid": ["key"], "exact": ["key"], "lpm": ["key", "prefix_length"]}
            need |= {"ternary": ["key", "mask"], "range": ["start", "end"]}
            if not self.obj(m, mw, *need.get(kind, [])):
                continue
            if kind == "valid":
                if not isinstance(m["key"], bool):
                    self.err(mw, "a valid key is a boolean")
                continue
            if kind == "lpm" and not (
                self.is_int(m["prefix_length"]) and m["prefix_length"] <= width
            ):
                self.err(mw, "prefix_length is an integer up to the field's width")
            for attr in ("key", "mask", "start", "end"):
                # "the hexstrings need to have the correct byte-width".
                if (
                    attr in m
                    and self.hexstr(m[attr], mw)
                    and hex_bytes(m[attr]) != (width + 7) // 8
                ):
                    self.err(mw, f"{attr} {m[attr]} is not {(width + 7) // 8} bytes")
        ae = e["action_entry"]
        if self.obj(ae, where, "action_id", "action_data"):
            if ae["action_id"] not in ids:
                self.err(where, f"action id {ae['action_id']} is not one of the table's actions")
            self.action_data(ae["action_id"], ae["action_data"], where)
        if not self.is_int(e["priority"]):
            self.err(where, "priority is an integer")

    def conditional(self, c: Any, nodes: set[str]) -> None:
        # "expression: the expression for the condition" (a boolean type value object).
        w = f"conditional {c.get('name')}"
        if not self.obj(c, w, "name", "id", "expression", "true_next", "false_next"):
            return
        self.action_params = 0
        self.expect(self.operand(c["expression"], f"{w}.expression"), BOOL, w)
        for attr in ("true_next", "false_next"):
            if c[attr] is not None and c[attr] not in nodes:
                self.err(w, f"{attr} '{c[attr]}' is not in this pipeline")

    # ---- calculations, checksums, lists, externs ----------------------------------------------

    def calculations(self) -> None:
        # § calculations: input types field, hexstr (with a positive bitwidth), header,
        # payload.
        for c in self.p.get("calculations", []):
            w = f"calculation {c.get('name')}"
            if not self.obj(c, w, "name", "id", "algo", "input"):
                continue
            for i, inp in enumerate(c["input"]):
                iw = f"{w}.input[{i}]"
                if not self.obj(inp, iw, "type", "value"):
                    continue
                kind = inp["type"]
                if kind == "field":
                    self.field_ref(inp["value"], iw)
                elif kind == "header":
                    self.named("header", inp["value"], iw)
                elif kind == "hexstr":
                    self.hexstr(inp["value"], iw)
                    bw = inp.get("bitwidth")
                    if not (self.is_int(bw) and bw > 0):
                        self.err(iw, "a hexstr input needs a positive integer 'bitwidth'")
                elif kind != "payload":
                    self.err(iw, f"input type is field, hexstr, header or payload, not {kind}")

    def checksums(self) -> None:
        # § checksums.
        self.unique_ids(self.p.get("checksums", []), "checksums")
        for c in self.p.get("checksums", []):
            w = f"checksum {c.get('name')}"
            if not self.obj(c, w, "name", "id", "target", "type", "calculation"):
                continue
            self.field_ref(c["target"], w, writable=True)
            if c["type"] != "generic":
                self.err(w, "type is always 'generic'")
            if c["calculation"] not in self.names["calculations"]:
                self.err(w, f"unknown calculation '{c['calculation']}'")
            for attr in ("update", "verify"):
                if attr in c and not isinstance(c[attr], bool):
                    self.err(w, f"{attr} is an optional boolean")
            if c.get("if_cond") is not None:
                self.action_params = 0
                self.expect(self.operand(c["if_cond"], f"{w}.if_cond"), BOOL, w)

    def lists(self) -> None:
        # § learn_lists is "Not documented yet"; p4c emits {id, name, elements} with field
        # elements (digests), which BMv2 reads that way (only fields).  field_lists (not in
        # the document; clone/resubmit/recirculate) have the same shape, fields or hexstrs.
        for key, allowed in (("learn_lists", {"field"}), ("field_lists", {"field", "hexstr"})):
            self.unique_ids(self.p.get(key, []), key)
            for ll in self.p.get(key, []):
                w = f"{key} {ll.get('name')}"
                if not self.obj(ll, w, "id", "name", "elements"):
                    continue
                for el in ll["elements"]:
                    if not (isinstance(el, dict) and el.get("type") in allowed):
                        self.err(w, f"an element is of type {sorted(allowed)}, got {el}")
                    elif el["type"] == "field":
                        self.field_ref(el["value"], w)

    def externs_and_aliases(self) -> None:
        # § extern_instances: attribute types hexstr, string, expression.
        for x in self.p.get("extern_instances", []):
            w = f"extern_instance {x.get('name')}"
            if self.obj(x, w, "name", "id", "type", "attribute_values"):
                for a in x["attribute_values"]:
                    if not (
                        isinstance(a, dict) and a.get("type") in ("hexstr", "string", "expression")
                    ):
                        self.err(w, f"an attribute is hexstr, string or expression, got {a}")
        # § field_aliases: [name expected by the target, [header, field]].
        for a in self.p.get("field_aliases", []):
            if not (isinstance(a, list) and len(a) == 2 and isinstance(a[0], str)):
                self.err("field_aliases", f"an alias is [name, [header, field]], got {a}")
            else:
                self.field_ref(a[1], f"field_alias {a[0]}")


def check(program: dict[str, Any]) -> list[str]:
    """Every departure of `program` from JSON_format.md, as 'where: what' lines."""
    return Checker(program).run()


def compile_json(source: Path, out: Path) -> dict[str, Any]:
    json_path = out / f"{source.stem}.json"
    status = compile_main([str(source), "-o", str(json_path)])
    assert status == 0, f"{source.name} does not compile"
    return json.loads(json_path.read_text())


# ---- the programs ------------------------------------------------------------------------


@pytest.mark.parametrize("source", PROGRAMS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_compiled_json_follows_json_format(source: Path, tmp_path: Path) -> None:
    errors = check(compile_json(source, tmp_path))
    assert not errors, "\n".join(errors[:20])


def test_every_program_is_checked() -> None:
    # About 190 conformance programs and the six of p4src.
    assert len(PROGRAMS) > 150 and any(p.parent.name == "p4src" for p in PROGRAMS)


def test_the_p4c_style_fixture_follows_json_format() -> None:
    assert check(json.loads(FIXTURE.read_text())) == []


EXTRA = """
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
struct headers { h_t[3] s; h_t h; }
struct digest_t { bit<8> a; }
struct meta_t { bit<16> x; }

parser P(packet_in pk, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.s.next);
        transition select(hdr.s.lastIndex) { 0: more; default: done; }
    }
    state more { pk.extract(hdr.s.next); transition done; }
    state done { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    action a(bit<8> p) {
        hash(m.x, HashAlgorithm.crc16, 16w0, { hdr.h.a, 8w5 }, 16w1024);
        hdr.h.b = p + hdr.h.a;
        assume(hdr.h.a != 0);
        digest<digest_t>(1, { hdr.h.a });
        clone(CloneType.I2E, 5);
        log_msg("a={} p={}", { hdr.h.a, p });
    }
    table t { key = { hdr.h.a: exact; } actions = { a; NoAction; } }
    apply { t.apply(); sm.egress_spec = 1; }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.s); pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def test_constructs_the_conformance_programs_do_not_reach(tmp_path: Path) -> None:
    """A constant hash input, an action parameter inside an expression, assume, digest,
    clone, log_msg and a select on `lastIndex`, each in the document's form."""
    source = tmp_path / "extra.p4"
    source.write_text(EXTRA)
    program = compile_json(source, tmp_path)
    assert check(program) == []
    # § calculations: a hexstr input carries its bitwidth.
    assert program["calculations"][0]["input"][1] == {
        "type": "hexstr",
        "value": "0x05",
        "bitwidth": 8,
    }
    action = next(a for a in program["actions"] if a["name"] == "I.a")
    prims: dict[str, list[Any]] = {}
    for prim in action["primitives"]:
        prims.setdefault(prim["op"], prim["parameters"])
    # § type value: the parameter p is a `local` inside `p + hdr.h.a`, runtime_data in log_msg.
    plus = prims["assign"][1]["value"]["value"]["left"]["value"]
    assert plus["left"] == {"type": "local", "value": 0}
    assert prims["log_msg"][1]["value"][1] == {"type": "runtime_data", "value": 0}
    # assume's condition is data (b2d), wrapped as an expression parameter.
    assert prims["assume"][0]["value"]["value"]["op"] == "b2d"
    # § parsers: a key part is a field; `lastIndex` is computed into one first.
    start = program["parsers"][0]["parse_states"][0]
    assert start["transition_key"][0]["type"] == "field"
    assert start["parser_ops"][-1]["op"] == "set"


# ---- the checker refuses what the document rules out ----------------------------------------


@pytest.fixture(scope="module")
def l3(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return compile_json(REPO / "p4src" / "l3_forward.p4", tmp_path_factory.mktemp("l3"))


def _expression_parameters(program: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        p
        for a in program["actions"]
        for prim in a["primitives"]
        for p in prim["parameters"]
        if p.get("type") == "expression"
    ]


def single_wrapped(program: dict[str, Any]) -> dict[str, Any]:
    """`program` as the compiler emitted it before issue #10 was fixed: every expression
    parameter holding {op, left, right} directly."""
    old = copy.deepcopy(program)
    for p in _expression_parameters(old):
        if p["value"].get("type") == "expression":
            p["value"] = p["value"]["value"]
    return old


def test_checker_refuses_the_single_wrapped_expression_parameter(l3: dict[str, Any]) -> None:
    params = _expression_parameters(l3)
    assert params, "l3_forward's ipv4_forward assigns ttl - 1"
    assert check(l3) == []
    errors = check(single_wrapped(l3))
    assert len(errors) == len(params)
    assert all("Invalid 'type' in expression: ''" in e for e in errors), errors
    assert "action MyIngress.ipv4_forward" in errors[0] and "parameters[1]" in errors[0]


def test_checker_refuses_the_old_compiler_output_for_every_program(tmp_path: Path) -> None:
    """The old form is refused in every program that has an expression parameter."""
    refused = 0
    for source in PROGRAMS[::10]:
        program = compile_json(source, tmp_path)
        if _expression_parameters(program):
            assert check(single_wrapped(program)), source.name
            refused += 1
    assert refused >= 5


def test_the_document_example_passes() -> None:
    """§ actions' own example, `hdr.h2[hdr.h1.idx].v = hdr.h1.v + 7`, in a minimal program."""
    program = {
        "__meta__": {"version": [2, 23]},
        "header_types": [{"name": "h_t", "id": 0, "fields": [["idx", 8], ["v", 8]]}],
        "headers": [
            {"name": n, "id": i, "header_type": "h_t", "metadata": False}
            for i, n in enumerate(["h1", "h2[0]", "h2[1]"])
        ],
        "header_stacks": [{"name": "h2", "id": 0, "header_type": "h_t", "header_ids": [1, 2]}],
        "actions": [
            {
                "name": "a",
                "id": 0,
                "runtime_data": [],
                "primitives": [
                    {
                        "op": "assign",
                        "parameters": [
                            {
                                "type": "expression",
                                "value": {
                                    "type": "expression",
                                    "value": {
                                        "op": "access_field",
                                        "left": {
                                            "type": "expression",
                                            "value": {
                                                "op": "dereference_header_stack",
                                                "left": {"type": "header_stack", "value": "h2"},
                                                "right": {"type": "field", "value": ["h1", "idx"]},
                                            },
                                        },
                                        "right": 0,
                                    },
                                },
                            },
                            {
                                "type": "expression",
                                "value": {
                                    "type": "expression",
                                    "value": {
                                        "op": "+",
                                        "left": {"type": "field", "value": ["h1", "v"]},
                                        "right": {"type": "hexstr", "value": "0x0000004d"},
                                    },
                                },
                            },
                        ],
                    }
                ],
            }
        ],
    }
    for key in ROOT_KEYS - set(program):
        program[key] = []
    assert check(program) == []


def _first(program: dict[str, Any], op: str) -> dict[str, Any]:
    return next(prim for a in program["actions"] for prim in a["primitives"] if prim["op"] == op)


def _mutations() -> list[tuple[str, Any, str]]:
    """(name, edit of l3_forward's JSON, text the checker's error must contain)."""

    def runtime_data_in_expression(j: dict[str, Any]) -> None:
        prim = _first(j, "assign")
        prim["parameters"][1] = {
            "type": "expression",
            "value": {
                "type": "expression",
                "value": {
                    "op": "+",
                    "left": {"type": "runtime_data", "value": 0},
                    "right": {"type": "hexstr", "value": "0x01"},
                },
            },
        }

    def local_as_parameter(j: dict[str, Any]) -> None:
        _first(j, "assign")["parameters"][1] = {"type": "local", "value": 0}

    def bool_parameter(j: dict[str, Any]) -> None:
        _first(j, "assign")["parameters"][1] = {"type": "bool", "value": True}

    def double_wrapped_conditional(j: dict[str, Any]) -> None:
        c = j["pipelines"][0]["conditionals"][0]
        c["expression"] = {"type": "expression", "value": c["expression"]}

    def data_condition(j: dict[str, Any]) -> None:
        j["pipelines"][0]["conditionals"][0]["expression"] = {
            "type": "field",
            "value": ["ipv4", "ttl"],
        }

    def unary_with_left(j: dict[str, Any]) -> None:
        e = j["pipelines"][0]["conditionals"][0]["expression"]["value"]["left"]["value"]
        e["left"] = {"type": "hexstr", "value": "0x00"}

    def short_transition_value(j: dict[str, Any]) -> None:
        j["parsers"][0]["parse_states"][0]["transitions"][0]["value"] = "0x800"[:-1]

    def optional_key(j: dict[str, Any]) -> None:
        j["pipelines"][0]["tables"][0]["key"][0]["match_type"] = "optional"

    def wrong_arity(j: dict[str, Any]) -> None:
        _first(j, "mark_to_drop")["parameters"] = []

    def unknown_primitive(j: dict[str, Any]) -> None:
        _first(j, "mark_to_drop")["op"] = "drop_it"

    def hexstr_input_without_bitwidth(j: dict[str, Any]) -> None:
        j["calculations"][0]["input"].append({"type": "hexstr", "value": "0x01"})

    def bad_version(j: dict[str, Any]) -> None:
        j["__meta__"]["version"] = [2, 24]

    def runtime_data_set_source(j: dict[str, Any]) -> None:
        j["parsers"][0]["parse_states"][0]["parser_ops"].append(
            {
                "op": "set",
                "parameters": [
                    {"type": "field", "value": ["ipv4", "ttl"]},
                    {"type": "runtime_data", "value": 0},
                ],
            }
        )

    def key_in_parser(j: dict[str, Any]) -> None:
        j["parsers"][0]["parse_states"][0]["transition_key"][0] = {
            "type": "expression",
            "value": {
                "op": "d2b",
                "left": None,
                "right": {"type": "field", "value": ["ipv4", "ttl"]},
            },
        }

    return [
        ("runtime_data inside an expression", runtime_data_in_expression, "'local'"),
        ("local as a parameter", local_as_parameter, "'local' is not a parameter type"),
        ("bool as a parameter", bool_parameter, "'bool' is not a parameter type"),
        ("double-wrapped conditional", double_wrapped_conditional, "not another type value"),
        ("data as a condition", data_condition, "a bool is needed"),
        ("unary operation with a left", unary_with_left, "null 'left'"),
        ("transition value not byte-padded", short_transition_value, "bytes"),
        ("optional key match type", optional_key, "not 'optional'"),
        ("wrong primitive arity", wrong_arity, "takes 1 parameters"),
        ("unknown primitive", unknown_primitive, "unknown primitive"),
        ("calculation constant without bitwidth", hexstr_input_without_bitwidth, "bitwidth"),
        ("newer format version", bad_version, "version"),
        ("runtime_data in a parser set", runtime_data_set_source, "set source"),
        ("expression as a transition key", key_in_parser, "transition key part"),
    ]


@pytest.mark.parametrize(
    ("name", "edit", "message"), _mutations(), ids=[m[0] for m in _mutations()]
)
def test_checker_refuses(l3: dict[str, Any], name: str, edit: Any, message: str) -> None:
    bad = copy.deepcopy(l3)
    edit(bad)
    errors = check(bad)
    assert any(message in e for e in errors), f"{name}: {errors}"

"""v1model externs in BMv2: instances become arrays, calls become primitives.

The primitive names and parameter orders are those simple_switch implements
(behavioral-model targets/simple_switch/primitives.cpp, as p4c's v1model back end
emits them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.backend.expressions import (
    ExpressionEncoder,
    Json,
    dynamic_json,
    hexstr,
    node,
    param,
)
from p4aqm.compiler.backend.storage import (
    SCALARS,
    DynamicFieldRef,
    FieldRef,
    Layout,
    Location,
    StructRef,
)
from p4aqm.compiler.diagnostics import CompileError, warn
from p4aqm.compiler.typecheck import Symbol, const_value

# The scope of extern instances declared outside any control.  Control instance paths
# are never empty, so it cannot clash with one.
TOP_LEVEL = ""


@dataclass
class ExternTables:
    """The JSON arrays that extern instances and calls add to the program."""

    register_arrays: list[Json] = field(default_factory=list)
    counter_arrays: list[Json] = field(default_factory=list)
    meter_arrays: list[Json] = field(default_factory=list)
    calculations: list[Json] = field(default_factory=list)
    learn_lists: list[Json] = field(default_factory=list)
    # Digest name -> its struct type, for P4Info's type_info.
    digest_types: dict[str, t.StructLike | t.Tuple] = field(default_factory=dict)
    # (control instance path, id(Instantiation)) -> (JSON array kind, qualified name);
    # `scope` is the path of the control being compiled.  Instances declared at the top
    # level of the program are under TOP_LEVEL: one array shared by every control.
    instances: dict[tuple[str, int], tuple[str, str]] = field(default_factory=dict)
    scope: str = TOP_LEVEL
    # Counter name -> CounterType member; BMv2 counts both, P4Info reports the unit.
    counter_units: dict[str, str] = field(default_factory=dict)
    # Registers whose cells are a serializable enum (P4Info names the enum): name -> type.
    register_enums: dict[str, t.Enum] = field(default_factory=dict)
    # Direct meter name -> MeterType member, and the field its read() writes the color to.
    meter_types: dict[str, str] = field(default_factory=dict)
    direct_meter_targets: dict[str, list[str]] = field(default_factory=dict)
    direct_meter_decls: dict[str, ast.Instantiation] = field(default_factory=dict)
    # Direct counter/meter name -> table it is attached to.
    bindings: dict[str, str] = field(default_factory=dict)
    # Field lists preserved by resubmit, recirculate and clone.  Their ids count from 1,
    # as p4c's: BMv2 reads a resubmit or recirculate flag of 0 as "not called".
    field_lists: list[Json] = field(default_factory=list)
    # Instances of externs v1model does not define (JSON_format.md "extern_instances").
    extern_instances: list[Json] = field(default_factory=list)

    def bind_field_lists(self, meta_type: t.StructLike, layout: Layout) -> None:
        """p4c's lists of the user metadata fields tagged `@field_list(i)` (v1model.p4):
        one per index, named `field_list<i>`, in the order the indices first appear."""
        for f, loc in _metadata_fields(meta_type, (), layout):
            anno = ast.find_annotation(f.annotations, "field_list")
            for index in dict.fromkeys(const_value(e) for e in anno.exprs) if anno else ():
                elements = self._named_list(f"field_list{index}")["elements"]
                elements.append(node("field", [loc.instance, loc.field]))

    def _named_list(self, name: str) -> Json:
        for fl in self.field_lists:
            if fl["name"] == name:
                return fl
        fl = {"id": len(self.field_lists) + 1, "name": name, "elements": []}
        self.field_lists.append(fl)
        return fl

    def field_list_index(self, index: int) -> Json:
        """The id of the list of `@field_list(index)`, a 32-bit constant as p4c's; an
        index no field is tagged with preserves nothing, as p4c's issue1043-bmv2."""
        return node("hexstr", hexstr(self._named_list(f"field_list{index}")["id"], 32))

    def data_field_list(self, data: ast.Expression, enc: ExpressionEncoder) -> Json:
        """The id of a field list holding the fields `data` names, for v1model's older
        `resubmit(data)`, `recirculate(data)` and `clone3(type, session, data)`: a
        field, a struct or header (all its fields), or a list of these; `{}` preserves
        nothing.  A list of the same fields is shared."""
        elements = _data_fields(data, enc)
        for fl in self.field_lists:
            if fl["elements"] == elements:
                return node("hexstr", hexstr(fl["id"], 32))
        # Not `field_list<i>`: those names are the `@field_list` indices'.
        fl = self._named_list(f"fl_{len(self.field_lists) + 1}")
        fl["elements"] = elements
        return node("hexstr", hexstr(fl["id"], 32))

    def instance(self, decl: ast.Instantiation) -> tuple[str, str] | None:
        """(JSON array kind, name) of an extern instance as the control being compiled
        sees it: its own instance, else the nearest enclosing control's (an extern passed
        down as a directionless apply argument), else one declared at the top level."""
        scope = self.scope
        while True:
            if (found := self.instances.get((scope, id(decl)))) is not None:
                return found
            if "." not in scope:
                return self.instances.get((TOP_LEVEL, id(decl)))
            scope = scope.rsplit(".", 1)[0]

    def bind_direct(self, kind: str, name: str, table: str, size: int) -> None:
        """Create the array of a direct counter or meter once its table is known."""
        self.bindings[name] = table
        if kind == "direct_counter":
            self.counter_arrays.append(
                {"name": name, "id": len(self.counter_arrays), "is_direct": True, "binding": table}
            )
        else:
            self.meter_arrays.append(
                {
                    "name": name,
                    "id": len(self.meter_arrays),
                    "is_direct": True,
                    "rate_count": 2,
                    "type": self.meter_types[name],
                    "size": size,
                    "binding": table,
                    "result_target": self.direct_meter_targets.get(name),
                }
            )

    def check_direct_meters(self) -> None:
        """A direct meter read by an action but attached to no table has no array in
        BMv2 to run; p4c refuses it (issue1829-3-bmv2)."""
        for name in self.direct_meter_targets:
            if name not in self.bindings:
                raise CompileError(
                    self.direct_meter_decls[name].pos,
                    f"{name}: direct meter is not associated with any table via 'meters'"
                    " table property",
                )

    def new_calculation(self, algo: str, inputs: list[Json]) -> str:
        name = "calc" if not self.calculations else f"calc_{len(self.calculations) - 1}"
        self.calculations.append(
            {"name": name, "id": len(self.calculations), "algo": algo, "input": inputs}
        )
        return name


def _int_arg(arg: ast.Argument, what: str) -> int:
    v = const_value(arg.value)
    if not isinstance(v, int) or isinstance(v, bool):
        raise CompileError(arg.pos, f"{what} must be a compile-time constant")
    return v


def _enum_member(arg: ast.Argument) -> str:
    e = arg.value
    if not isinstance(e, ast.Member) or not isinstance(e.ref, Symbol):
        raise CompileError(arg.pos, "expected an enum member such as HashAlgorithm.crc32")
    return e.ref.name


def declare_instance(decl: ast.Instantiation, qualified: str, tables: ExternTables) -> None:
    """Add the JSON array for an extern instance declared in the control of
    `tables.scope`, or at the top level when the scope is TOP_LEVEL; once, however many
    places apply that control instance."""
    if (tables.scope, id(decl)) in tables.instances:
        return
    ty = decl.type_ref
    kind = ty.name if isinstance(ty, ast.NamedTypeRef) else ""
    ident = {
        "register": len(tables.register_arrays),
        "counter": len(tables.counter_arrays),
        "meter": len(tables.meter_arrays),
    }
    if kind == "register":
        cell = decl_type(decl).type_args.get("T")
        if isinstance(cell, t.Enum) and cell.underlying is not None:
            tables.register_enums[qualified] = cell
            cell = cell.underlying
        width = t.width_of(cell) if isinstance(cell, t.Bits) else None
        if width is None:
            raise CompileError(
                decl.pos, "a register needs a bit<W> element type, e.g. register<bit<32>, bit<32>>"
            )
        size = _int_arg(decl.args[0], "a register size")
        tables.register_arrays.append(
            {"name": qualified, "id": ident["register"], "size": size, "bitwidth": width}
        )
        tables.instances[(tables.scope, id(decl))] = ("register_array", qualified)
    elif kind == "counter":
        size = _int_arg(decl.args[0], "a counter size")
        tables.counter_arrays.append(
            {"name": qualified, "id": ident["counter"], "is_direct": False, "size": size}
        )
        tables.instances[(tables.scope, id(decl))] = ("counter_array", qualified)
        tables.counter_units[qualified] = _enum_member(decl.args[1])
    elif kind == "meter":
        size = _int_arg(decl.args[0], "a meter size")
        mtype = _enum_member(decl.args[1])
        tables.meter_arrays.append(
            {
                "name": qualified,
                "id": ident["meter"],
                "is_direct": False,
                "rate_count": 2,
                "type": mtype,
                "size": size,
            }
        )
        tables.instances[(tables.scope, id(decl))] = ("meter_array", qualified)
    elif kind == "direct_counter":
        tables.instances[(tables.scope, id(decl))] = ("direct_counter", qualified)
        tables.counter_units[qualified] = _enum_member(decl.args[0])
    elif kind == "direct_meter":
        tables.instances[(tables.scope, id(decl))] = ("direct_meter", qualified)
        tables.meter_types[qualified] = _enum_member(decl.args[0])
        tables.direct_meter_decls[qualified] = decl
    elif kind in ("action_profile", "action_selector"):
        # Emitted with the first table using it (`action_profile_json`): a selector's
        # input is that table's selector keys.
        tables.instances[(tables.scope, id(decl))] = (kind, qualified)
    else:
        _user_extern(decl, kind, qualified, tables)


def _user_extern(decl: ast.Instantiation, kind: str, qualified: str, tables: ExternTables) -> None:
    """An extern v1model does not define: an entry of "extern_instances", as p4c's BMv2
    back end emits one (with --emit-externs). simple_switch knows no such type, so the
    program fails when loaded, not when compiled; hence a warning."""
    attributes = []
    ctor = next((m for m in decl_type(decl).decl.methods if m.return_type is None), None)
    for p, arg in zip(ctor.params if ctor else [], decl.args, strict=False):
        value = _int_arg(arg, f"an argument of extern '{kind}'")
        width = t.width_of(arg.value.type) if isinstance(arg.value.type, t.Bits) else None
        attributes.append({"name": p.name, "type": "hexstr", "value": hexstr(value, width)})
    tables.extern_instances.append(
        {
            "name": qualified,
            "id": len(tables.extern_instances),
            "type": kind,
            "attribute_values": attributes,
        }
    )
    tables.instances[(tables.scope, id(decl))] = ("extern", qualified)
    warn(decl.pos, f"extern '{kind}' is not a v1model extern: BMv2 must provide it to load this")


def decl_type(decl: ast.Instantiation) -> t.Extern:
    ty = decl.resolved
    if not isinstance(ty, t.Extern):
        raise CompileError(decl.pos, "internal: extern instance was not type checked")
    return ty


# Algorithm names as BMv2 registers them for HashAlgorithm members.
_HASH_ALGOS = {
    "crc32": "crc32",
    "crc16": "crc16",
    "identity": "identity",
    "csum16": "csum16",
    "xor16": "xor16",
    "random": "random",
    "crc32_custom": "crc32_custom",
    "crc16_custom": "crc16_custom",
}


def hash_algorithm(arg: ast.Argument) -> str:
    name = _enum_member(arg)
    if name not in _HASH_ALGOS:
        raise CompileError(arg.pos, f"hash algorithm '{name}' is not supported")
    return _HASH_ALGOS[name]


def action_profile_json(
    name: str, ident: int, kind: str, args: list[ast.Argument], inputs: list[Json]
) -> Json:
    """A pipeline's action profile (JSON_format.md, "action_profiles"): v1model's
    `action_profile(size)`, or `action_selector(algorithm, size, outputWidth)` whose
    input is the selector keys of its table (BMv2 has no use for outputWidth)."""
    if kind == "action_profile":
        return {"name": name, "id": ident, "max_size": _int_arg(args[0], "an action profile size")}
    return {
        "name": name,
        "id": ident,
        "max_size": _int_arg(args[1], "an action selector size"),
        "selector": {"algo": hash_algorithm(args[0]), "input": inputs},
    }


def field_list(
    enc: ExpressionEncoder, e: ast.Expression, before: list[Json] | None = None
) -> list[Json]:
    """The inputs of a hash or checksum: a list of fields (`{a, b, c}`) or one field.
    Where primitives may run first (`before`, a hash in an action or apply block), an
    input computed by an expression (`f ^ 0xffff`, p4c's issue430-bmv2) is assigned to a
    temporary field of its width, which the calculation reads."""
    items = e.items if isinstance(e, ast.ListExpression) else [e]
    if before is None:
        # Where nothing may run first (a checksum control), `a ++ b` is the bits of a
        # then of b: the calculation reads the two fields in turn (p4c's issue1765-bmv2).
        items = [part for item in items for part in _concatenated(item)]
    result = []
    for item in items:
        # A varbit field counts with the bytes it holds, as BMv2 builds the input.
        value = enc.varbit(item) if isinstance(item.type, t.Varbit) else enc.data(item)
        if value["type"] == "expression" and before is not None and isinstance(item.type, t.Bits):
            tmp = node("field", [SCALARS, enc.layout.add_scalar("tmp", item.type, item.pos)])
            before.append(primitive("assign", [tmp, value]))
            value = tmp
        if value["type"] not in ("field", "hexstr", "header"):
            raise CompileError(item.pos, "hash and checksum inputs must be fields or constants")
        if value["type"] == "hexstr":
            # A constant input needs its width: the hex string cannot give it
            # (JSON_format.md, "calculations").
            if not isinstance(item.type, t.Bits):
                raise CompileError(
                    item.pos, "a constant hash or checksum input needs a width, e.g. 8w5"
                )
            value = {**value, "bitwidth": item.type.width}
        result.append(value)
    return result


def _metadata_fields(
    ty: t.StructLike, path: tuple[str, ...], layout: Layout
) -> list[tuple[ast.StructField, FieldRef]]:
    """The fields of user metadata with their storage, nested structs' in place, in
    declaration order (p4c's, once it has flattened them)."""
    result: list[tuple[ast.StructField, FieldRef]] = []
    for f in ty.decl.fields if ty.decl is not None else []:
        ft = ty.field_type(f.name)
        if isinstance(ft, t.StructLike) and ft.kind == "struct":
            result += _metadata_fields(ft, (*path, f.name), layout)
        elif isinstance(loc := layout.locations.get(("M", (*path, f.name))), FieldRef):
            result.append((f, loc))
    return result


def _data_fields(e: ast.Expression, enc: ExpressionEncoder) -> list[Json]:
    """The fields a field list's data names, in order."""
    if isinstance(e, ast.Cast):
        e = e.expr
    if isinstance(e, ast.ListExpression):
        return [f for item in e.items for f in _data_fields(item, enc)]
    if isinstance(e, ast.StructExpression):
        return [f for _, value in e.fields for f in _data_fields(value, enc)]
    ty = e.type
    if isinstance(ty, t.StructLike) and ty.kind != "header_union" and enc.is_storage(e):
        members = [ast.Member(e.pos, e, name) for name, _ in ty.fields]
        for m, (_, ft) in zip(members, ty.fields, strict=True):
            m.type = ft
        return [f for m in members for f in _data_fields(m, enc)]
    loc = enc.locate(e) if enc.is_storage(e) else None
    if not isinstance(loc, FieldRef):
        raise CompileError(e.pos, "the data to preserve must be fields, structs or headers")
    return [node("field", [loc.instance, loc.field])]


def _concatenated(e: ast.Expression) -> list[ast.Expression]:
    """The operands of `a ++ b ++ ...`, in order; any other expression alone."""
    if isinstance(e, ast.Binary) and e.op == "++":
        return [*_concatenated(e.left), *_concatenated(e.right)]
    return [e]


def primitive(name: str, params: list[Json]) -> Json:
    """A primitive call; its parameters in the form JSON_format.md's "actions" gives
    them (an expression parameter wraps its expression once more, see `param`)."""
    return {"op": name, "parameters": [param(p) for p in params]}


def call_primitives(call: ast.Call, enc: ExpressionEncoder, tables: ExternTables) -> list[Json]:
    """Primitives for an extern function or method call used as a statement."""
    sym = call.ref
    args = [a.value for a in call.args]
    if isinstance(sym, Symbol) and sym.kind == "extern_function":
        return _function(sym.name, call, args, enc, tables)
    if isinstance(sym, Symbol) and sym.kind == "method":
        assert isinstance(call.func, ast.Member)
        obj = call.func.expr
        while (bound := enc.bound(obj)) is not None:
            obj = bound
        inst_decl = getattr(obj, "ref", None)
        info = tables.instance(inst_decl.decl) if isinstance(inst_decl, Symbol) else None
        if info is None:
            raise CompileError(call.pos, f"method '{sym.name}' of this object is not supported yet")
        kind, name = info
        array = node(kind, name)
        if kind == "register_array" and sym.name == "read":
            dst, copy_out = _out(enc, args[0])
            return [primitive("register_read", [dst, array, enc.data(args[1])]), *copy_out]
        if kind == "register_array" and sym.name == "write":
            return [primitive("register_write", [array, enc.data(args[0]), enc.data(args[1])])]
        if kind == "counter_array" and sym.name == "count":
            return [primitive("count", [array, enc.data(args[0])])]
        if kind == "direct_counter" and sym.name == "count":
            # BMv2 counts every hit of the table the counter is attached to.
            return []
        if kind == "direct_meter" and sym.name == "read":
            # BMv2 executes the meter on a hit and writes the color to `result_target`.
            target = enc.locate(args[0])
            if not isinstance(target, FieldRef):
                raise CompileError(args[0].pos, "a direct meter must be read into a field")
            tables.direct_meter_targets[name] = [target.instance, target.field]
            return []
        if kind == "meter_array" and sym.name == "execute_meter":
            dst, copy_out = _out(enc, args[1])
            return [primitive("execute_meter", [array, enc.data(args[0]), dst]), *copy_out]
        if kind == "extern":
            return [_user_method(call, sym, name, enc)]
        raise CompileError(call.pos, f"method '{sym.name}' is not supported yet")
    raise CompileError(call.pos, "this call is not supported yet")


def _user_method(call: ast.Call, sym: Symbol, instance: str, enc: ExpressionEncoder) -> Json:
    """A method of a user extern: p4c's primitive `_<type>_<method>`, the instance first."""
    ty = call.func.expr.type if isinstance(call.func, ast.Member) else None
    type_name = ty.name if isinstance(ty, t.Extern) else ""
    protos = [m for m in sym.overloads if len(m.params) == len(call.args)]
    params = [node("extern", instance)]
    for p, arg in zip(protos[0].params if protos else [], call.args, strict=False):
        written = p.direction in ("out", "inout")
        params.append(enc.lvalue(arg.value) if written else enc.data(arg.value))
    return primitive(f"_{type_name}_{sym.name}", params)


def _out(enc: ExpressionEncoder, e: ast.Expression) -> tuple[Json, list[Json]]:
    """Where an extern writes its `out` argument `e`, and the primitives that copy it
    out after the call.  A field of a stack element chosen at run time is written
    through a temporary: the switch's extern primitives write named fields."""
    loc = enc.locate(e) if enc.is_storage(e) else None
    if not isinstance(loc, DynamicFieldRef):
        return enc.lvalue(e), []
    tmp = node("field", [SCALARS, enc.layout.add_scalar("tmp", e.type, e.pos)])
    return tmp, [primitive("assign", [dynamic_json(loc), tmp])]


def _digest(
    call: ast.Call, args: list[ast.Expression], enc: ExpressionEncoder, tables: ExternTables
) -> list[Json]:
    """digest<T>(receiver, data): a learn list named after the struct type T, whose
    fields are copied when the digest is generated (the P4Runtime digest's name).  An
    initializer `{a, b}` is first copied into a struct of its own, so the digest holds
    the values of the moment of the call."""
    data = args[1]
    if isinstance(data, ast.Cast):
        data = data.expr
    ty = data.type
    if isinstance(ty, t.Tuple) and isinstance(data, ast.ListExpression):
        return _tuple_digest(data, ty, enc.data(args[0]), enc, tables)
    if not isinstance(ty, t.StructLike) or ty.kind != "struct":
        raise CompileError(data.pos, "digest data must be a struct or a list {a, b}")
    prims: list[Json] = []
    if isinstance(data, ast.ListExpression | ast.StructExpression):
        root = ("digest", ty.name)
        if (root, ()) not in enc.layout.locations:
            name = f"tmp_digest_{ty.name}"
            enc.layout.bind_struct(root, ty, name, name, data.pos)
        loc: Location | int | None = StructRef(root, ())
        values = (
            dict(data.fields)
            if isinstance(data, ast.StructExpression)
            else dict(zip((n for n, _ in ty.fields), data.items, strict=True))
        )
    else:
        loc = enc.locate(data) if enc.is_storage(data) else None
        values = {}
    if not isinstance(loc, StructRef):
        raise CompileError(data.pos, "digest data must be a struct variable, field or {...} yet")
    elements = []
    for fname, ftype in ty.fields:
        member = enc.layout.locations.get((loc.root, (*loc.path, fname)))
        if not isinstance(member, FieldRef) or isinstance(ftype, t.StructLike):
            raise CompileError(data.pos, "digest structs may only contain bit<W> fields yet")
        target = node("field", [member.instance, member.field])
        if fname in values:
            prims.append(primitive("assign", [target, enc.data(values[fname])]))
        elements.append(target)
    existing = next((ll for ll in tables.learn_lists if ll["name"] == ty.name), None)
    if existing is None:
        existing = {"id": len(tables.learn_lists) + 1, "name": ty.name, "elements": elements}
        tables.learn_lists.append(existing)
        tables.digest_types[ty.name] = ty
    elif existing["elements"] != elements:
        raise CompileError(call.pos, f"digest type '{ty.name}' is sent from two different places")
    receiver = enc.data(args[0])
    id_node = node("hexstr", hexstr(existing["id"], 32))
    return [*prims, primitive("generate_digest", [receiver, id_node])]


def _tuple_digest(
    data: ast.ListExpression,
    ty: t.Tuple,
    receiver: Json,
    enc: ExpressionEncoder,
    tables: ExternTables,
) -> list[Json]:
    """digest(receiver, {a, b}): the values copied into fields of their own, sent as a
    learn list p4c names `digest_<n>` (P4Info types it as a tuple, issue430-1-bmv2)."""
    if any(isinstance(item, t.StructLike) for item in ty.items):
        raise CompileError(data.pos, "digest lists may only contain bit<W> values yet")
    index = sum(
        isinstance(tables.digest_types.get(ll["name"]), t.Tuple) for ll in tables.learn_lists
    )
    name = f"digest_{index}"
    root = ("digest", name)
    enc.layout.bind_struct(root, ty, f"tmp_{name}", f"tmp_{name}", data.pos)
    prims, elements = [], []
    for i, item in enumerate(data.items):
        member = enc.layout.locations[(root, (f"[{i}]",))]
        assert isinstance(member, FieldRef), "a tuple of bit<W> values is laid out as fields"
        target = node("field", [member.instance, member.field])
        prims.append(primitive("assign", [target, enc.data(item)]))
        elements.append(target)
    tables.learn_lists.append(
        {"id": len(tables.learn_lists) + 1, "name": name, "elements": elements}
    )
    tables.digest_types[name] = ty
    id_node = node("hexstr", hexstr(tables.learn_lists[-1]["id"], 32))
    return [*prims, primitive("generate_digest", [receiver, id_node])]


def _function(
    name: str,
    call: ast.Call,
    args: list[ast.Expression],
    enc: ExpressionEncoder,
    tables: ExternTables,
) -> list[Json]:
    if name == "mark_to_drop":
        if not args:
            raise CompileError(call.pos, "use mark_to_drop(standard_metadata)")
        return [primitive("mark_to_drop", [enc.lvalue(args[0])])]
    if name == "random":
        dst, copy_out = _out(enc, args[0])
        return [
            primitive("modify_field_rng_uniform", [dst, enc.data(args[1]), enc.data(args[2])]),
            *copy_out,
        ]
    if name == "hash":
        algo = hash_algorithm(call.args[1])
        computed: list[Json] = []
        calc = tables.new_calculation(algo, field_list(enc, args[3], computed))
        dst, copy_out = _out(enc, args[0])
        return [
            *computed,
            primitive(
                "modify_field_with_hash_based_offset",
                [dst, enc.data(args[2]), node("calculation", calc), enc.data(args[4])],
            ),
            *copy_out,
        ]
    if name == "digest":
        return _digest(call, args, enc, tables)
    if name == "clone":
        # The second parameter is the field list to preserve; 0 means none.
        kind = _enum_member(call.args[0])
        op_name = "clone_ingress_pkt_to_egress" if kind == "I2E" else "clone_egress_pkt_to_egress"
        return [primitive(op_name, [enc.data(args[1]), node("hexstr", "0x0")])]
    if name in ("resubmit", "recirculate"):
        return [primitive(name, [tables.data_field_list(args[0], enc)])]
    if name == "clone3":
        kind = _enum_member(call.args[0])
        op_name = "clone_ingress_pkt_to_egress" if kind == "I2E" else "clone_egress_pkt_to_egress"
        return [primitive(op_name, [enc.data(args[1]), tables.data_field_list(args[2], enc)])]
    if name in ("resubmit_preserving_field_list", "recirculate_preserving_field_list"):
        # BMv2 (1.15) knows these as resubmit and recirculate, as p4c 1.2.4 emits them.
        index = tables.field_list_index(_int_arg(call.args[0], "a field list index"))
        return [primitive(name.removesuffix("_preserving_field_list"), [index])]
    if name == "clone_preserving_field_list":
        kind = _enum_member(call.args[0])
        op_name = "clone_ingress_pkt_to_egress" if kind == "I2E" else "clone_egress_pkt_to_egress"
        index = tables.field_list_index(_int_arg(call.args[2], "a field list index"))
        return [primitive(op_name, [enc.data(args[1]), index])]
    if name == "truncate":
        return [primitive("truncate", [enc.data(args[0])])]
    if name in ("assert", "assume"):
        # BMv2's assert and assume take data (core primitives), so the condition is
        # converted with b2d, as p4c does; a bare bool is no primitive parameter.
        return [primitive(name, [enc.data(args[0])])]
    if name == "log_msg":
        # The format's `{}` are filled by the values of the second argument, in order.
        if not isinstance(args[0], ast.StringLiteral):
            raise CompileError(args[0].pos, "the log message must be a string literal")
        data = args[1:]
        items = data[0].items if data and isinstance(data[0], ast.ListExpression) else data
        values = [enc.data(item) for item in items]
        return [
            primitive("log_msg", [node("string", args[0].value), node("parameters_vector", values)])
        ]
    raise CompileError(call.pos, f"'{name}' is not supported yet")

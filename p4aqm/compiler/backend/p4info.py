"""P4Info for v1model programs, as p4c writes it (P4Runtime spec section 6).

Built as a protobuf message with the stubs finsy ships, so that every field name and
enum is checked by protobuf itself.  Objects, names and IDs come from the BMv2 back end's
result, which guarantees that a P4Info name always equals the BMv2 JSON name of the same
object (the switch maps one to the other).
"""

from __future__ import annotations

from pathlib import Path

from finsy.proto import p4i
from google.protobuf import json_format, text_format

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.backend.actions import ActionInfo
from p4aqm.compiler.backend.bmv2_json import Bmv2Program
from p4aqm.compiler.backend.p4info_order import declaration_order
from p4aqm.compiler.backend.tables import TableInfo
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.ids import Prefix, assign_ids
from p4aqm.compiler.names import aliases, annotated_name, key_name
from p4aqm.compiler.typecheck import const_value, referenced

_MATCH_TYPES = {
    "exact": p4i.MatchField.EXACT,
    "lpm": p4i.MatchField.LPM,
    "ternary": p4i.MatchField.TERNARY,
    "range": p4i.MatchField.RANGE,
    "optional": p4i.MatchField.OPTIONAL,
}
_COUNTER_UNITS = {
    "packets": p4i.CounterSpec.PACKETS,
    "bytes": p4i.CounterSpec.BYTES,
    "packets_and_bytes": p4i.CounterSpec.BOTH,
}
# Annotations that P4Info expresses in its own fields rather than as text.
_STRUCTURAL_ANNOTATIONS = {
    "name",
    "id",
    "hidden",
    "defaultonly",
    "tableonly",
    "brief",
    "description",
}


def annotation_text(a: ast.Annotation) -> str:
    if not a.body:
        return f"@{a.name}"
    return f"@{a.name}({''.join(tok.text for tok in a.body)})"


def explicit_id(annotations: list[ast.Annotation]) -> int | None:
    anno = ast.find_annotation(annotations, "id")
    if anno is None:
        return None
    value = const_value(anno.exprs[0]) if anno.exprs else None
    if not isinstance(value, int):
        raise CompileError(anno.pos, "@id needs an integer")
    return int(value)


def fill_preamble(
    pre: p4i.Preamble, ident: int, name: str, alias: str, annotations: list[ast.Annotation]
) -> None:
    pre.id = ident
    pre.name = name
    pre.alias = alias
    pre.annotations.extend(
        annotation_text(a) for a in annotations if a.name not in _STRUCTURAL_ANNOTATIONS
    )


def build_p4info(program: Bmv2Program) -> p4i.P4Info:
    for profile in program.profiles:
        if profile.anonymous:
            # p4c's message: a profile constructed in place is named by its @name.
            raise CompileError(
                profile.decl.pos,
                f"Table '{profile.tables[0]}' has an anonymous table property "
                "'implementation' with no name annotation, which is not supported by P4Runtime",
            )
    info = p4i.P4Info()
    info.pkg_info.arch = "v1model"
    rank = _declaration_ranks(program)
    tables = [tb for tb in program.tables if not tb.hidden and tb.decl is not None]
    tables.sort(key=lambda tb: rank.get(tb.name, len(rank)))
    # Actions of visible tables, then (as p4c) named actions that only the compiler's
    # tables run, as an action called from an apply block; one per name, the first.
    visible = {ident for tb in tables for ident in tb.json["action_ids"]}
    actions: list[ActionInfo] = []
    for a in sorted(program.actions, key=lambda a: a.json["id"] not in visible):
        if not a.hidden and all(a.name != b.name for b in actions):
            actions.append(a)
    actions.sort(key=lambda a: rank.get(a.name, len(rank)))
    all_names = [tb.name for tb in tables] + [a.name for a in actions]
    ext = program.externs
    all_names += [r["name"] for r in ext.register_arrays + ext.counter_arrays + ext.meter_arrays]
    all_names += [d["name"] for d in ext.learn_lists]
    all_names += [v.name for v in program.value_sets]
    all_names += [p.name for p in program.profiles]
    alias = aliases(all_names)

    table_ids = assign_ids(Prefix.TABLE, [tb.name for tb in tables], _explicit(tables))
    action_ids = assign_ids(Prefix.ACTION, [a.name for a in actions], _explicit(actions))
    action_by_json_id = {a.json["id"]: a for a in program.actions}
    param_ids: dict[str, list[tuple[int, int]]] = {}

    for a in actions:
        msg = info.actions.add()
        annos = a.decl.annotations if a.decl else []
        fill_preamble(msg.preamble, action_ids[a.name], a.name, alias[a.name], annos)
        # Only directionless parameters are action data; the others are bound in code.
        params = [p for p in a.decl.params if not p.direction] if a.decl else []
        for i, (p, rd) in enumerate(zip(params, a.json["runtime_data"], strict=True)):
            pm = msg.params.add()
            pm.id = explicit_id(p.annotations) or i + 1
            pm.name = rd["name"]
            pm.bitwidth = rd["bitwidth"]
        param_ids[a.name] = [(pm.id, pm.bitwidth) for pm in msg.params]
        for p in params:
            _serializable_enum(info, p.resolved)

    for tb in tables:
        _table(
            info,
            info.tables.add(),
            tb,
            table_ids[tb.name],
            alias[tb.name],
            action_ids,
            action_by_json_id,
            param_ids,
        )

    _externs(info, program, alias)
    _action_profiles(info, program, alias)
    _controller_headers(info, program)
    _digests(info, program, alias)
    _value_sets(info, program, alias)
    return info


def _declaration_ranks(program: Bmv2Program) -> dict[str, int]:
    checked = program.checked
    if checked is None:
        return {}
    roles = {b.param: b.decl for b in checked.blocks}
    pipelines = [roles[p] for p in ("ig", "eg") if isinstance(roles.get(p), ast.ControlDeclaration)]
    return declaration_order(checked.program, pipelines)


def _value_sets(info: p4i.P4Info, program: Bmv2Program, alias: dict[str, str]) -> None:
    """Parser value sets; a bit<W> set has one unnamed match field, a struct set one
    per field, EXACT unless the field says otherwise with `@match(kind)`, as p4c's
    pvs-struct-3-bmv2 output (a kind P4Runtime has no name for is `other_match_type`)."""
    ids = assign_ids(
        Prefix.VALUE_SET,
        [v.name for v in program.value_sets],
        {
            v.name: ident
            for v in program.value_sets
            if (ident := explicit_id(v.decl.annotations)) is not None
        },
    )
    for v in program.value_sets:
        msg = info.value_sets.add()
        fill_preamble(msg.preamble, ids[v.name], v.name, alias[v.name], v.decl.annotations)
        for i, ((name, width), kind) in enumerate(zip(v.fields, v.match_kinds, strict=True)):
            mf = msg.match.add()
            mf.id = i + 1
            if name is not None:
                mf.name = name
            mf.bitwidth = width
            if kind in _MATCH_TYPES:
                mf.match_type = _MATCH_TYPES[kind]
            else:
                mf.other_match_type = kind
        msg.size = v.size


def _externs(info: p4i.P4Info, program: Bmv2Program, alias: dict[str, str]) -> None:
    """Registers, counters and meters; direct ones also listed by their table."""
    ext = program.externs
    tables = {tb.preamble.name: tb for tb in info.tables}
    registers = ext.register_arrays
    for r, ident in _with_ids(Prefix.REGISTER, registers):
        reg = info.registers.add()
        fill_preamble(reg.preamble, ident, r["name"], alias[r["name"]], [])
        enum = ext.register_enums.get(r["name"])
        if enum is None:
            reg.type_spec.bitstring.bit.bitwidth = r["bitwidth"]
        else:
            reg.type_spec.serializable_enum.name = _enum_name(enum)
            _serializable_enum(info, enum)
        reg.size = r["size"]
    for direct in (False, True):
        counters = [c for c in ext.counter_arrays if c["is_direct"] == direct]
        prefix = Prefix.DIRECT_COUNTER if direct else Prefix.COUNTER
        for c, ident in _with_ids(prefix, counters):
            msg = info.direct_counters.add() if direct else info.counters.add()
            fill_preamble(msg.preamble, ident, c["name"], alias[c["name"]], [])
            msg.spec.unit = _COUNTER_UNITS[ext.counter_units.get(c["name"], "packets_and_bytes")]
            if direct:
                _attach(msg, tables, c["binding"], ident)
            else:
                msg.size = c["size"]
        meters = [m for m in ext.meter_arrays if m["is_direct"] == direct]
        prefix = Prefix.DIRECT_METER if direct else Prefix.METER
        for m, ident in _with_ids(prefix, meters):
            msg = info.direct_meters.add() if direct else info.meters.add()
            fill_preamble(msg.preamble, ident, m["name"], alias[m["name"]], [])
            msg.spec.unit = p4i.MeterSpec.BYTES if m["type"] == "bytes" else p4i.MeterSpec.PACKETS
            if direct:
                _attach(msg, tables, m["binding"], ident)
            else:
                msg.size = m["size"]


def _action_profiles(info: p4i.P4Info, program: Bmv2Program, alias: dict[str, str]) -> None:
    """Action profiles and selectors, each with the tables using it (sorted by name, as
    p4c keeps them in a set), which refer back to it by `implementation_id`."""
    tables = {tb.preamble.name: tb for tb in info.tables}
    profiles = program.profiles
    explicit = {
        p.name: ident for p in profiles if (ident := explicit_id(p.decl.annotations)) is not None
    }
    ids = assign_ids(Prefix.ACTION_PROFILE, [p.name for p in profiles], explicit)
    for p in profiles:
        msg = info.action_profiles.add()
        annos = [a for a in p.decl.annotations if a.name != "max_group_size"]
        fill_preamble(msg.preamble, ids[p.name], p.name, alias[p.name], annos)
        for name in sorted(p.tables):
            if name in tables:  # not a @hidden table
                msg.table_ids.append(tables[name].preamble.id)
                tables[name].implementation_id = ids[p.name]
        msg.with_selector = "selector" in p.json
        msg.size = p.json["max_size"]
        max_group = ast.find_annotation(p.decl.annotations, "max_group_size")
        # As p4c, ignored on a profile without a selector.
        if max_group is not None and msg.with_selector:
            value = const_value(max_group.exprs[0]) if max_group.exprs else None
            if not isinstance(value, int) or isinstance(value, bool):
                raise CompileError(max_group.pos, "@max_group_size needs an integer")
            msg.max_group_size = value


def _controller_headers(info: p4i.P4Info, program: Bmv2Program) -> None:
    """Headers annotated @controller_header("packet_in"/"packet_out"): the metadata of
    P4Runtime packet-in and packet-out messages."""
    checked = program.checked
    if checked is None:
        return
    headers = []
    for decl in checked.program.declarations:
        anno = ast.find_annotation(decl.annotations, "controller_header")
        if isinstance(decl, ast.HeaderDeclaration) and anno is not None:
            if not anno.exprs or not isinstance(anno.exprs[0], ast.StringLiteral):
                raise CompileError(anno.pos, '@controller_header needs a name, e.g. "packet_in"')
            headers.append((anno.exprs[0].value, decl))
    ids = assign_ids(Prefix.CONTROLLER_HEADER, [name for name, _ in headers])
    for name, decl in headers:
        msg = info.controller_packet_metadata.add()
        annos = [a for a in decl.annotations if a.name not in _STRUCTURAL_ANNOTATIONS]
        fill_preamble(msg.preamble, ids[name], name, name, annos)
        sym = checked.globals.lookup(decl.name)
        assert sym is not None and isinstance(sym.type, t.StructLike)
        for i, (f, (_, ftype)) in enumerate(zip(decl.fields, sym.type.fields, strict=True)):
            md = msg.metadata.add()
            md.id = explicit_id(f.annotations) or i + 1
            md.name = f.name
            md.bitwidth = t.width_of(ftype)


def _digests(info: p4i.P4Info, program: Bmv2Program, alias: dict[str, str]) -> None:
    """Each digest is named after its struct type, which type_info describes; a digest of
    a list `{a, b}` is a tuple, as p4c types it."""
    ext = program.externs
    for d, ident in _with_ids(Prefix.DIGEST, ext.learn_lists):
        msg = info.digests.add()
        fill_preamble(msg.preamble, ident, d["name"], alias[d["name"]], [])
        ty = ext.digest_types[d["name"]]
        if isinstance(ty, t.Tuple):
            for item in ty.items:
                msg.type_spec.tuple.members.add().bitstring.bit.bitwidth = t.width_of(item)
            continue
        msg.type_spec.struct.name = d["name"]
        struct = info.type_info.structs[d["name"]]
        for fname, ftype in ty.fields:
            member = struct.members.add()
            member.name = fname
            member.type_spec.bitstring.bit.bitwidth = t.width_of(ftype)


def _serializable_enum(info: p4i.P4Info, ty: t.Type | None) -> None:
    """A serializable enum that a match field or action parameter has as its type goes
    into type_info, as p4c's TypeSpecConverter puts it: each member's value in as many
    bytes as the underlying width takes."""
    if not isinstance(ty, t.Enum) or ty.underlying is None:
        return
    spec = info.type_info.serializable_enums[_enum_name(ty)]
    if spec.members:
        return
    width = ty.underlying.width
    spec.underlying_type.bitwidth = width
    for member in ty.members:
        value = ty.values[member] % (1 << width)  # a signed value as two's complement
        spec.members.add(name=member, value=value.to_bytes((width + 7) // 8, "big"))


def _enum_name(ty: t.Enum) -> str:
    name = annotated_name(ty.decl.annotations) if ty.decl is not None else None
    return name or ty.name


def _with_ids(prefix: Prefix, items: list[dict]) -> list[tuple[dict, int]]:
    ids = assign_ids(prefix, [r["name"] for r in items])
    return [(r, ids[r["name"]]) for r in items]


def _attach(
    msg: p4i.DirectCounter | p4i.DirectMeter, tables: dict[str, p4i.Table], table: str, ident: int
) -> None:
    msg.direct_table_id = tables[table].preamble.id
    tables[table].direct_resource_ids.append(ident)


def _explicit(objs: list[TableInfo] | list[ActionInfo]) -> dict[str, int]:
    result = {}
    for o in objs:
        if o.decl is not None and (ident := explicit_id(o.decl.annotations)) is not None:
            result[o.name] = ident
    return result


def _table(
    info: p4i.P4Info,
    msg: p4i.Table,
    tb: TableInfo,
    ident: int,
    alias: str,
    action_ids: dict[str, int],
    by_json_id: dict[int, ActionInfo],
    param_ids: dict[str, list[tuple[int, int]]],
) -> None:
    decl = tb.decl
    assert decl is not None
    fill_preamble(msg.preamble, ident, tb.name, alias, decl.annotations)
    key = decl.property("key")
    for i, el in enumerate(key.elements if isinstance(key, ast.KeyProperty) else []):
        if el.match_kind == "selector":
            continue  # the action selector's input, not a match field; ids still count it
        mf = msg.match_fields.add()
        mf.id = explicit_id(el.annotations) or i + 1
        mf.name = key_name(el)
        ty = el.expr.type
        mf.bitwidth = 1 if isinstance(el.expr, ast.Call) else t.width_of(ty)
        if el.match_kind not in _MATCH_TYPES:
            raise CompileError(el.pos, f"match kind '{el.match_kind}' has no P4Runtime equivalent")
        mf.match_type = _MATCH_TYPES[el.match_kind]
        _serializable_enum(info, ty)
    refs_annos = _action_ref_annotations(decl)
    for json_id in tb.json["action_ids"]:
        action = by_json_id[json_id]
        ref = msg.action_refs.add()
        ref.id = action_ids[action.name]
        annos = refs_annos.get(id(action.decl))
        if annos is None:
            # Added by the compiler as the implicit default (NoAction): default only.
            ref.scope = p4i.ActionRef.DEFAULT_ONLY
            ref.annotations.append("@defaultonly")
            continue
        if ast.find_annotation(annos, "defaultonly"):
            ref.scope = p4i.ActionRef.DEFAULT_ONLY
        elif ast.find_annotation(annos, "tableonly"):
            ref.scope = p4i.ActionRef.TABLE_ONLY
        ref.annotations.extend(annotation_text(a) for a in annos)
    entries = decl.property("entries")
    if isinstance(entries, ast.EntriesProperty):
        msg.is_const_table = entries.is_const
        msg.has_initial_entries = True
    default = tb.default_entry
    assert default is not None, "the back end gives every P4 table a default entry"
    default_name = by_json_id[default["action_id"]].name
    if default["action_const"]:
        msg.const_default_action_id = action_ids[default_name]
    # As p4c (since it writes the field): every table's default, the implicit NoAction
    # too, each argument as many bytes as its parameter's width takes (not P4Runtime's
    # canonical form).
    initial = msg.initial_default_action
    initial.action_id = action_ids[default_name]
    for (param_id, width), text in zip(
        param_ids[default_name], default["action_data"], strict=True
    ):
        value = int(text, 0).to_bytes((width + 7) // 8, "big")
        initial.arguments.add(param_id=param_id, value=value)
    msg.size = tb.json["max_size"]
    if tb.json["support_timeout"]:
        msg.idle_timeout_behavior = p4i.Table.NOTIFY_CONTROL


def _action_ref_annotations(decl: ast.TableDeclaration) -> dict[int, list[ast.Annotation]]:
    prop = decl.property("actions")
    result: dict[int, list[ast.Annotation]] = {}
    for ref in prop.actions if isinstance(prop, ast.ActionsProperty) else []:
        e = ref.expr.func if isinstance(ref.expr, ast.Call) else ref.expr
        result[id(referenced(e))] = ref.annotations
    return result


def p4info_format(path: Path, explicit: str | None) -> str:
    """text, binary or json, from --p4runtime-format or the file's extension."""
    if explicit:
        return explicit
    name = path.name
    if name.endswith(".json"):
        return "json"
    if name.endswith((".bin", ".pb")):
        return "binary"
    return "text"


def serialize(info: p4i.P4Info, fmt: str) -> bytes:
    if fmt == "binary":
        return info.SerializeToString()
    if fmt == "json":
        return json_format.MessageToJson(info, indent=2).encode() + b"\n"
    return text_format.MessageToString(info).encode()

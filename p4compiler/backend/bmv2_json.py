"""BMv2 JSON for v1model programs, in the shape p4c-bm2-ss emits (format version 2.23).

One `Bmv2Builder` walks the checked program: storage first (`storage.Layout`), then the
parser, the two pipelines, the checksum controls and the deparser.  Control flow of an
apply block becomes BMv2's graph of tables and conditionals; statements that are not
table applications or conditions are moved into synthesized one-action tables
(`tbl_<action>` / `tbl_act`), which is how p4c makes them executable by BMv2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p4compiler import ast
from p4compiler import types as t
from p4compiler.backend import externs
from p4compiler.backend.expressions import ExpressionEncoder, Json, hexstr, node
from p4compiler.backend.storage import FieldRef, HeaderRef, Layout, StackRef, StructRef
from p4compiler.diagnostics import CompileError
from p4compiler.names import annotated_name, expression_text, qualified_name
from p4compiler.typecheck import CheckedProgram, Symbol, const_value, referenced

JSON_VERSION = [2, 23]
COMPILER = "p4aqm"
# V1Switch parameter -> role of the block in BMv2.
V1MODEL_BLOCKS = {
    "p": "parser",
    "vr": "verify_checksum",
    "ig": "ingress",
    "eg": "egress",
    "ck": "compute_checksum",
    "dep": "deparser",
}


@dataclass
class TableInfo:
    """A table of the BMv2 program, real or synthesized, and how P4Info should see it."""

    name: str
    decl: ast.TableDeclaration | None  # None for synthesized tables
    json: Json
    hidden: bool


@dataclass
class ActionInfo:
    name: str
    decl: ast.ActionDeclaration | None
    json: Json
    hidden: bool


@dataclass
class Bmv2Program:
    json: Json
    tables: list[TableInfo] = field(default_factory=list)
    actions: list[ActionInfo] = field(default_factory=list)
    externs: externs.ExternTables = field(default_factory=externs.ExternTables)
    # The checked source, for P4Info objects that BMv2 does not see (controller headers).
    checked: CheckedProgram | None = None


class Bmv2Builder:
    def __init__(self, checked: CheckedProgram, program_name: str) -> None:
        self.checked = checked
        self.program_name = program_name
        self.layout = Layout()
        self.roots: dict[int, Any] = {}  # id(Parameter or VariableDeclaration) -> layout root
        self.ext = externs.ExternTables()
        self.actions: list[ActionInfo] = []
        self.action_ids: dict[str, int] = {}  # action name -> JSON id
        self.tables: list[TableInfo] = []
        self.applied: set[str] = set()
        self.node_count = 0
        self.synthesized: set[str] = set()
        self.checksums: list[Json] = []
        # The control being lowered, its instance path (`MyIngress`, `MyIngress.sub`) and
        # the arguments bound to its parameters when it is a control applied by another.
        # Then the tables and conditionals of the pipeline.
        self.control: Any = None
        self.prefix = ""
        self.bindings: dict[int, ast.Expression] = {}
        # `_jump` primitives of `return` statements, patched once the body's end is known.
        self.return_jumps: list[Json] = []
        self.pipeline_tables: list[Json] = []
        self.conditionals: list[Json] = []

    # ---- program -------------------------------------------------------------------

    def build(self) -> Bmv2Program:
        pkg = self.checked.package
        if pkg.name != "V1Switch":
            raise CompileError(pkg.pos, "only the v1model architecture (V1Switch) is supported")
        blocks = {V1MODEL_BLOCKS[b.param]: b.decl for b in self.checked.blocks}
        self.bind_storage(blocks)
        parser = blocks["parser"]
        assert isinstance(parser, ast.ParserDeclaration)
        parsers = [self.parser(parser)]
        pipelines = []
        for i, role in enumerate(("ingress", "egress")):
            control = blocks[role]
            assert isinstance(control, ast.ControlDeclaration)
            pipelines.append(self.pipeline(role, i, control))
        for role, verify in (("verify_checksum", True), ("compute_checksum", False)):
            control = blocks[role]
            assert isinstance(control, ast.ControlDeclaration)
            self.checksum_control(control, verify)
        deparser = blocks["deparser"]
        assert isinstance(deparser, ast.ControlDeclaration)
        deparsers = [self.deparser(deparser)]

        scalars = self.layout.scalars_type()
        header_types = [scalars, *self.layout.header_types.values()]
        instances = [
            ("scalars", scalars.name, True),
            *((i.name, i.header_type, i.metadata) for i in self.layout.instances),
        ]
        header_ids = {name: i for i, (name, _, _) in enumerate(instances)}
        program = {
            "header_types": [
                {"name": h.name, "id": i, "fields": [[n, w, s] for n, w, s in h.fields]}
                for i, h in enumerate(header_types)
            ],
            "headers": [
                {"name": n, "id": i, "header_type": ht, "metadata": md, "pi_omit": True}
                for i, (n, ht, md) in enumerate(instances)
            ],
            "header_stacks": [
                {
                    "name": st.name,
                    "id": i,
                    "header_type": st.header_type,
                    "size": len(st.elements),
                    "header_ids": [header_ids[e] for e in st.elements],
                }
                for i, st in enumerate(self.layout.stacks)
            ],
            "header_union_types": [],
            "header_unions": [],
            "header_union_stacks": [],
            "field_lists": [],
            "errors": [[e, i] for i, e in enumerate(self.checked.errors)],
            "enums": [],
            "parsers": parsers,
            "parse_vsets": [],
            "deparsers": deparsers,
            "meter_arrays": self.ext.meter_arrays,
            "counter_arrays": self.ext.counter_arrays,
            "register_arrays": self.ext.register_arrays,
            "calculations": self.ext.calculations,
            "learn_lists": self.ext.learn_lists,
            "actions": [a.json for a in self.actions],
            "pipelines": pipelines,
            "checksums": self.checksums,
            "force_arith": [],
            "extern_instances": [],
            "field_aliases": self.field_aliases(),
            "program": self.program_name,
            "__meta__": {"version": JSON_VERSION, "compiler": COMPILER},
        }
        return Bmv2Program(program, self.tables, self.actions, self.ext, self.checked)

    def bind_storage(
        self, blocks: dict[str, ast.ParserDeclaration | ast.ControlDeclaration]
    ) -> None:
        """Give the package's H, M and standard_metadata types their BMv2 instances."""
        parser = blocks["parser"]
        assert isinstance(parser, ast.ParserDeclaration)
        sm_sym = self.checked.globals.lookup("standard_metadata_t")
        assert sm_sym is not None and isinstance(sm_sym.type, t.StructLike)
        sm_type = sm_sym.type
        headers_type = self.param_type(parser.params[1])
        meta_type = self.param_type(parser.params[2])
        self.layout.bind_metadata_instance("SM", sm_type, "standard_metadata")
        self.layout.bind_struct("H", headers_type, "", "headers", parser.params[1].pos)
        self.layout.bind_struct(
            "M", meta_type, "userMetadata", "userMetadata", parser.params[2].pos
        )
        roles = {id(headers_type): "H", id(meta_type): "M", id(sm_type): "SM"}
        for block in blocks.values():
            for p in block.params:
                ty = self.param_type(p)
                if id(ty) in roles:
                    self.roots[id(p)] = roles[id(ty)]
        self.sm_type = sm_type

    @staticmethod
    def param_type(p: ast.Parameter) -> t.Type:
        if p.resolved is None:
            raise CompileError(p.pos, "internal: parameter was not type checked")
        return p.resolved

    def field_aliases(self) -> list[list[Any]]:
        result: list[list[Any]] = []
        for f in self.sm_type.decl.fields:
            alias = ast.find_annotation(f.annotations, "alias")
            if alias and alias.exprs and isinstance(alias.exprs[0], ast.StringLiteral):
                result.append([alias.exprs[0].value, ["standard_metadata", f.name]])
        return result

    def new_node_name(self) -> str:
        self.node_count += 1
        return f"node_{self.node_count}"

    def encoder(self, runtime_data: dict[int, int] | None = None) -> ExpressionEncoder:
        return ExpressionEncoder(self.layout, self.roots, runtime_data, self.bindings)

    def bind_local(self, decl: ast.VariableDeclaration, owner: str) -> None:
        ty = decl.resolved
        if ty is None:
            raise CompileError(decl.pos, "internal: variable was not type checked")
        self.layout.bind_struct(
            id(decl), ty, f"{owner}.{decl.name}", f"{owner}.{decl.name}", decl.pos
        )
        self.roots[id(decl)] = id(decl)

    # ---- parser --------------------------------------------------------------------

    def parser(self, decl: ast.ParserDeclaration) -> Json:
        for local in decl.locals:
            if isinstance(local, ast.VariableDeclaration):
                self.bind_local(local, decl.name)
            elif not isinstance(local, ast.ConstantDeclaration):
                raise CompileError(local.pos, "this parser local is not supported yet")
        enc = self.encoder()
        states = []
        for i, state in enumerate(decl.states):
            ops: list[Json] = []
            for local in decl.locals:
                if (
                    state.name == "start"
                    and isinstance(local, ast.VariableDeclaration)
                    and local.init is not None
                ):
                    ops.append(
                        self.parser_set(enc, ast.Name(local.pos, local.name), local, local.init)
                    )
            for stmt in state.stmts:
                ops.extend(self.parser_op(stmt, enc, decl.name))
            transitions, key = self.transitions(state, enc)
            states.append(
                {
                    "name": state.name,
                    "id": i,
                    "parser_ops": ops,
                    "transitions": transitions,
                    "transition_key": key,
                }
            )
        return {"name": "parser", "id": 0, "init_state": "start", "parse_states": states}

    def parser_set(
        self,
        enc: ExpressionEncoder,
        _name: ast.Name,
        decl: ast.VariableDeclaration,
        init: ast.Expression,
    ) -> Json:
        loc = self.layout.locations.get((id(decl), ()))
        if not isinstance(loc, FieldRef):
            raise CompileError(decl.pos, "only scalar parser locals are supported yet")
        return {
            "parameters": [node("field", [loc.instance, loc.field]), enc.data(init)],
            "op": "set",
        }

    def parser_op(self, stmt: ast.Statement, enc: ExpressionEncoder, owner: str) -> list[Json]:
        if isinstance(stmt, ast.BlockStatement):
            return [op for s in stmt.stmts for op in self.parser_op(s, enc, owner)]
        if isinstance(stmt, ast.EmptyStatement | ast.ConstantDeclaration):
            return []
        if isinstance(stmt, ast.VariableDeclaration):
            self.bind_local(stmt, owner)
            return (
                [self.parser_set(enc, ast.Name(stmt.pos, stmt.name), stmt, stmt.init)]
                if stmt.init
                else []
            )
        if isinstance(stmt, ast.Assignment):
            if isinstance(stmt.lhs.type, t.StructLike):
                raise CompileError(
                    stmt.pos, "assigning headers or structs in a parser is not supported yet"
                )
            rhs = _lookahead(stmt.rhs) or enc.data(stmt.rhs)
            return [{"parameters": [enc.lvalue(stmt.lhs), rhs], "op": "set"}]
        if isinstance(stmt, ast.MethodCallStatement):
            call = stmt.call
            sym = call.ref
            if (
                isinstance(sym, Symbol)
                and sym.kind == "method"
                and sym.name == "extract"
                and sym.decl.name == "packet_in"
            ):
                if len(call.args) != 1:
                    raise CompileError(
                        call.pos, "extract of variable-size headers is not supported yet"
                    )
                arg = call.args[0].value
                if isinstance(arg, ast.Member) and arg.member == "next":
                    stack = enc.locate(arg.expr)
                    assert isinstance(stack, StackRef)
                    return [{"parameters": [node("stack", stack.name)], "op": "extract"}]
                target = enc.locate(arg)
                if not isinstance(target, HeaderRef):
                    raise CompileError(call.pos, "extract needs a header")
                return [{"parameters": [node("regular", target.instance)], "op": "extract"}]
            if isinstance(sym, Symbol) and sym.kind == "method" and sym.name == "advance":
                return [{"parameters": [enc.data(call.args[0].value)], "op": "advance"}]
            if isinstance(sym, Symbol) and sym.kind == "extern_function" and sym.name == "verify":
                args = [a.value for a in call.args]
                return [{"parameters": [enc.boolean(args[0]), enc.data(args[1])], "op": "verify"}]
            return [{"parameters": [p], "op": "primitive"} for p in self.call_primitives(call, enc)]
        raise CompileError(
            stmt.pos, f"{type(stmt).__name__} in a parser state is not supported yet"
        )

    def transitions(
        self, state: ast.ParserState, enc: ExpressionEncoder
    ) -> tuple[list[Json], list[Json]]:
        tr = state.transition
        if tr is None:
            raise CompileError(
                state.pos,
                f"state '{state.name}' has no transition (an implicit reject is not supported yet)",
            )
        if isinstance(tr, ast.Name):
            return [self.transition("default", None, None, self.next_state(tr.name, tr))], []
        assert isinstance(tr, ast.SelectExpression)
        key: list[Json] = []
        widths: list[int] = []
        for k in tr.keys:
            widths.append(t.width_of(k.type))
            if (peek := _lookahead(k)) is not None:
                key.append(peek)
                continue
            loc = enc.locate(k) if enc.is_storage(k) else None
            if not isinstance(loc, FieldRef):
                raise CompileError(
                    k.pos, "select on anything but a field or lookahead is not supported yet"
                )
            key.append(node("field", [loc.instance, loc.field]))
        result = []
        for case in tr.cases:
            nxt = self.next_state(case.state, case)
            items = (
                case.keyset.items if isinstance(case.keyset, ast.ListExpression) else [case.keyset]
            )
            if len(items) == 1 and isinstance(items[0], ast.Default | ast.DontCare):
                result.append(self.transition("default", None, None, nxt))
                continue
            values, masks, masked = [], [], False
            for item, w in zip(items, widths, strict=True):
                full = (1 << w) - 1
                if isinstance(item, ast.Default | ast.DontCare):
                    v, m, masked = 0, 0, True
                elif isinstance(item, ast.Mask):
                    v, m, masked = const_value(item.value), const_value(item.mask), True
                elif isinstance(item, ast.Range):
                    raise CompileError(item.pos, "ranges in select cases are not supported yet")
                else:
                    v, m = const_value(item), full
                if not isinstance(v, int) or not isinstance(m, int):
                    raise CompileError(item.pos, "a select case must be a compile-time constant")
                values.append(hexstr(v & m & full, w)[2:])
                masks.append(hexstr(m & full, w)[2:])
            value = "0x" + "".join(values)
            mask = "0x" + "".join(masks) if masked else None
            result.append(self.transition("hexstr", value, mask, nxt))
        return result, key

    def next_state(self, name: str, where: ast.Node) -> str | None:
        if name == "reject":
            raise CompileError(where.pos, "transitions to 'reject' are not supported yet")
        return None if name == "accept" else name

    @staticmethod
    def transition(kind: str, value: str | None, mask: str | None, nxt: str | None) -> Json:
        return {"type": kind, "value": value, "mask": mask, "next_state": nxt}

    # ---- actions -------------------------------------------------------------------

    def action(self, decl: ast.ActionDeclaration) -> int:
        """The JSON id of `decl` in the current control instance, emitting it the first
        time it is used."""
        is_global = any(d is decl for d in self.checked.program.declarations)
        name = qualified_name(decl, None) if is_global else self.qualify(decl)
        if name in self.action_ids:
            return self.action_ids[name]
        runtime: dict[int, int] = {}
        runtime_data = []
        for p in decl.params:
            if p.direction:
                raise CompileError(
                    p.pos, "action parameters with a direction are not supported yet"
                )
            runtime[id(p)] = len(runtime_data)
            runtime_data.append({"name": p.name, "bitwidth": t.width_of(self.param_type(p))})
        prims = self.body(decl.body.stmts, self.encoder(runtime), name)
        return self.add_action(name, decl, runtime_data, prims, hidden=False)

    def add_action(
        self,
        name: str,
        decl: ast.ActionDeclaration | None,
        runtime_data: list[Json],
        prims: list[Json],
        hidden: bool,
    ) -> int:
        ident = len(self.actions)
        self.actions.append(
            ActionInfo(
                name,
                decl,
                {"name": name, "id": ident, "runtime_data": runtime_data, "primitives": prims},
                hidden,
            )
        )
        if decl is not None:
            self.action_ids[name] = ident
        return ident

    def body(self, stmts: list[ast.Statement], enc: ExpressionEncoder, owner: str) -> list[Json]:
        """Primitives of an action (or inlined action) body; a `return` jumps to its end."""
        outer, self.return_jumps = self.return_jumps, []
        prims = self.primitives(stmts, enc, owner, base=0, top=True)
        for jump in self.return_jumps:
            jump["parameters"][0] = _jump_target(len(prims))
        self.return_jumps = outer
        return prims

    def primitives(
        self,
        stmts: list[ast.Statement],
        enc: ExpressionEncoder,
        owner: str,
        base: int,
        top: bool = False,
    ) -> list[Json]:
        """BMv2 primitives for the statements of an action; `base` is the index of the
        first one in the action, since BMv2's jumps name absolute primitive indices."""
        result: list[Json] = []
        for i, s in enumerate(stmts):
            here = base + len(result)
            if isinstance(s, ast.BlockStatement):
                result += self.primitives(s.stmts, enc, owner, here)
            elif isinstance(s, ast.EmptyStatement | ast.ConstantDeclaration):
                pass
            elif isinstance(s, ast.VariableDeclaration):
                self.bind_local(s, owner)
                if s.init is not None:
                    loc = self.layout.locations[(id(s), ())]
                    if not isinstance(loc, FieldRef):
                        raise CompileError(
                            s.pos, "initializing header or struct variables is not supported yet"
                        )
                    result.append(
                        externs.primitive(
                            "assign", [node("field", [loc.instance, loc.field]), enc.data(s.init)]
                        )
                    )
            elif isinstance(s, ast.Assignment):
                result.append(self.assignment(s, enc))
            elif isinstance(s, ast.MethodCallStatement):
                result += self.call_primitives(s.call, enc, here)
            elif isinstance(s, ast.ExitStatement):
                result.append(externs.primitive("exit", []))
            elif isinstance(s, ast.ReturnStatement):
                if not (top and i == len(stmts) - 1):
                    jump = externs.primitive("_jump", [_jump_target(0)])
                    self.return_jumps.append(jump)
                    result.append(jump)
            elif isinstance(s, ast.IfStatement):
                result += self.if_primitives(s, enc, owner, here)
            else:
                raise CompileError(s.pos, f"{type(s).__name__} is not supported here yet")
        return result

    def if_primitives(
        self, s: ast.IfStatement, enc: ExpressionEncoder, owner: str, base: int
    ) -> list[Json]:
        """An `if` inside an action, with BMv2's jump primitives (as newer p4c emits):
        _jump_if_zero(cond, else); then...; _jump(end); else...; end:"""
        skip = externs.primitive("_jump_if_zero", [_op("b2d", None, enc.boolean(s.cond)), {}])
        then = self.primitives([s.then], enc, owner, base + 1)
        result = [skip, *then]
        if s.otherwise is not None:
            leave = externs.primitive("_jump", [{}])
            otherwise = self.primitives([s.otherwise], enc, owner, base + len(result) + 1)
            result += [leave, *otherwise]
            skip["parameters"][1] = _jump_target(base + 2 + len(then))
            leave["parameters"][0] = _jump_target(base + len(result))
        else:
            skip["parameters"][1] = _jump_target(base + len(result))
        return result

    def assignment(self, s: ast.Assignment, enc: ExpressionEncoder) -> Json:
        ty = s.lhs.type
        if isinstance(ty, t.StructLike) and ty.kind == "header":
            return externs.primitive("assign_header", [enc.lvalue(s.lhs), enc.value(s.rhs)])
        if isinstance(ty, t.StructLike):
            raise CompileError(s.pos, "struct assignment is not supported yet")
        if isinstance(s.lhs, ast.Slice):
            return self.slice_assignment(s, enc)
        return externs.primitive("assign", [enc.lvalue(s.lhs), enc.data(s.rhs)])

    def slice_assignment(self, s: ast.Assignment, enc: ExpressionEncoder) -> Json:
        # f[hi:lo] = v  is  f = (f & ~mask) | ((v << lo) & mask)
        sl = s.lhs
        assert isinstance(sl, ast.Slice)
        hi, lo = const_value(sl.hi), const_value(sl.lo)
        base_ty = sl.expr.type
        assert isinstance(hi, int) and isinstance(lo, int) and isinstance(base_ty, t.Bits)
        w = base_ty.width
        mask = ((1 << (hi - lo + 1)) - 1) << lo
        target = enc.lvalue(sl.expr)
        keep = _op("&", target, node("hexstr", hexstr(~mask & ((1 << w) - 1), w)))
        shifted = _op("<<", enc.data(s.rhs), node("hexstr", hexstr(lo, 32)))
        new = _op("&", shifted, node("hexstr", hexstr(mask, w)))
        return externs.primitive("assign", [target, _op("|", keep, new)])

    def call_primitives(self, call: ast.Call, enc: ExpressionEncoder, base: int = 0) -> list[Json]:
        sym = call.ref
        if (
            isinstance(sym, Symbol)
            and sym.kind == "builtin"
            and sym.name in ("setValid", "setInvalid")
        ):
            assert isinstance(call.func, ast.Member)
            name = "add_header" if sym.name == "setValid" else "remove_header"
            return [externs.primitive(name, [enc.lvalue(call.func.expr)])]
        if isinstance(sym, Symbol) and sym.kind == "builtin" and sym.name == "isValid":
            return []
        if (
            isinstance(sym, Symbol)
            and sym.kind == "builtin"
            and sym.name in ("push_front", "pop_front")
        ):
            assert isinstance(call.func, ast.Member)
            count = _const_int(call.args[0].value)
            name = "push" if sym.name == "push_front" else "pop"
            return [
                externs.primitive(
                    name, [enc.lvalue(call.func.expr), node("hexstr", hexstr(count, 32))]
                )
            ]
        if isinstance(sym, Symbol) and sym.kind in ("action", "function"):
            # Action and function calls are inlined, with the arguments in place of the
            # parameters (a function's return value is ignored when it is a statement).
            callee = sym.decl
            params = callee.params if sym.kind == "action" else callee.prototype.params
            bindings = {id(p): a.value for p, a in zip(params, call.args, strict=True)}
            outer, self.return_jumps = self.return_jumps, []
            prims = self.primitives(
                callee.body.stmts, enc.with_bindings(bindings), self.prefix, base, top=True
            )
            for jump in self.return_jumps:
                jump["parameters"][0] = _jump_target(base + len(prims))
            self.return_jumps = outer
            return prims
        return externs.call_primitives(call, enc, self.ext)

    # ---- controls ------------------------------------------------------------------

    def qualify(self, decl: ast.Declaration) -> str:
        """Control-plane name of an object of the current control instance."""
        name = annotated_name(decl.annotations) or decl.name
        return name[1:] if name.startswith(".") else f"{self.prefix}.{name}"

    def enter(self, control: ast.ControlDeclaration, prefix: str) -> None:
        self.control = control
        self.prefix = prefix
        self.ext.scope = prefix
        for local in control.locals:
            if isinstance(local, ast.VariableDeclaration):
                self.bind_local(local, prefix)
            elif isinstance(local, ast.Instantiation) and isinstance(local.resolved, t.BlockType):
                pass  # a control instance: laid out when it is applied
            elif isinstance(local, ast.Instantiation):
                externs.declare_instance(local, self.qualify(local), self.ext)

    def pipeline(self, name: str, ident: int, control: ast.ControlDeclaration) -> Json:
        self.pipeline_tables = []
        self.conditionals = []
        self.bindings = {}
        self.enter(control, qualified_name(control, None))
        init = self.lower(control.body.stmts, None)
        return {
            "name": name,
            "id": ident,
            "init_table": init,
            "tables": self.pipeline_tables,
            "action_profiles": [],
            "conditionals": self.conditionals,
        }

    def lower(self, stmts: list[ast.Statement], nxt: str | None) -> str | None:
        """The first node of `stmts` in BMv2's control graph, continuing at `nxt`."""
        groups: list[list[ast.Statement] | ast.Statement] = []
        for s in stmts:
            if self.is_straight_line(s):
                if groups and isinstance(groups[-1], list):
                    groups[-1].append(s)
                else:
                    groups.append([s])
            else:
                groups.append(s)
        for g in reversed(groups):
            nxt = self.lower_group(g, nxt) if isinstance(g, list) else self.lower_stmt(g, nxt)
        return nxt

    def is_straight_line(self, s: ast.Statement) -> bool:
        if isinstance(s, ast.MethodCallStatement):
            sym = s.call.ref
            return not (
                isinstance(sym, Symbol)
                and (
                    sym.kind == "action"
                    or (sym.kind == "builtin" and sym.name in ("apply", "apply_control"))
                )
            )
        return isinstance(s, ast.Assignment | ast.VariableDeclaration | ast.ExitStatement)

    def lower_group(self, stmts: list[ast.Statement], nxt: str | None) -> str | None:
        if all(isinstance(s, ast.VariableDeclaration) and s.init is None for s in stmts):
            for s in stmts:
                assert isinstance(s, ast.VariableDeclaration)
                self.bind_local(s, self.prefix)
            return nxt
        prims = self.body(stmts, self.encoder(), self.prefix)
        name = self.unique("act")
        ident = self.add_action(name, None, [], prims, hidden=True)
        exits = any(p["op"] == "exit" for p in prims)
        return self.synthesized_table(f"tbl_{name}", ident, name, [], None if exits else nxt)

    def unique(self, base: str) -> str:
        name, n = base, 0
        while name in self.synthesized:
            name, n = f"{base}_{n}", n + 1
        self.synthesized.add(name)
        return name

    def lower_stmt(self, s: ast.Statement, nxt: str | None) -> str | None:
        if isinstance(s, ast.BlockStatement):
            return self.lower(s.stmts, nxt)
        if isinstance(s, ast.EmptyStatement | ast.ConstantDeclaration):
            return nxt
        if isinstance(s, ast.ReturnStatement):
            return None
        if isinstance(s, ast.IfStatement):
            then = self.lower([s.then], nxt)
            otherwise = self.lower([s.otherwise], nxt) if s.otherwise is not None else nxt
            applied = self.table_of_hit(s.cond)
            if applied is not None:
                table, hit = applied
                on_hit, on_miss = (then, otherwise) if hit else (otherwise, then)
                return self.table(table, nxt, hit_miss={"__HIT__": on_hit, "__MISS__": on_miss})
            name = self.new_node_name()
            self.conditionals.append(
                {
                    "name": name,
                    "id": len(self.conditionals),
                    "expression": self.encoder().boolean(s.cond),
                    "true_next": then,
                    "false_next": otherwise,
                }
            )
            return name
        if isinstance(s, ast.SwitchStatement):
            return self.switch(s, nxt)
        if isinstance(s, ast.MethodCallStatement):
            sym = s.call.ref
            if isinstance(sym, Symbol) and sym.kind == "builtin" and sym.name == "apply":
                assert isinstance(s.call.func, ast.Member)
                return self.table(referenced(s.call.func.expr), nxt)
            if isinstance(sym, Symbol) and sym.kind == "action":
                return self.direct_action(s.call, sym, nxt)
            if isinstance(sym, Symbol) and sym.kind == "builtin" and sym.name == "apply_control":
                return self.apply_control(s.call, nxt)
        raise CompileError(s.pos, f"{type(s).__name__} is not supported in an apply block yet")

    def switch(self, s: ast.SwitchStatement, nxt: str | None) -> str:
        # Lower the bodies last to first so that a case without a body can fall through
        # to the next one (spec 12.7).
        by_action: dict[int, str | None] = {}
        default = nxt
        following: str | None = nxt
        for case in reversed(s.cases):
            if case.body is not None:
                following = self.lower([case.body], nxt)
            if isinstance(case.label, ast.Default):
                default = following
            else:
                by_action[id(referenced(case.label))] = following
        decl = referenced(s.expr.expr.func.expr)  # type: ignore[attr-defined]
        actions = self.table_actions(decl)
        if decl.property("default_action") is None:
            actions.append(self.noaction())
        for a in actions:
            by_action.setdefault(id(a), default)
        return self.table(decl, nxt, by_action=by_action)

    def apply_control(self, call: ast.Call, nxt: str | None) -> str | None:
        """A control applied by another is inlined (as p4c does): its objects are named
        under the instance's path and its parameters stand for the call's arguments."""
        assert isinstance(call.func, ast.Member)
        target = call.func.expr
        sym = getattr(target, "ref", None)
        assert isinstance(sym, Symbol)
        sub: ast.ControlDeclaration = sym.type.decl
        instance = sym.decl.name if sym.kind == "instance" else sub.name
        saved = (self.control, self.prefix, self.bindings)
        outer = self.encoder()
        self.bindings = {
            **self.bindings,
            **{
                id(p): _resolve_binding(a.value, outer)
                for p, a in zip(sub.params, call.args, strict=True)
            },
        }
        self.enter(sub, f"{self.prefix}.{instance}")
        first = self.lower(sub.body.stmts, nxt)
        self.control, self.prefix, self.bindings = saved
        self.ext.scope = self.prefix
        return first

    def table_of_hit(self, cond: ast.Expression) -> tuple[ast.TableDeclaration, bool] | None:
        """`t.apply().hit` / `.miss` (possibly negated) as a condition."""
        negate = False
        while isinstance(cond, ast.Unary) and cond.op == "!":
            negate, cond = not negate, cond.operand
        if (
            isinstance(cond, ast.Member)
            and cond.member in ("hit", "miss")
            and isinstance(cond.expr, ast.Call)
        ):
            call = cond.expr
            if (
                isinstance(call.ref, Symbol)
                and call.ref.name == "apply"
                and isinstance(call.func, ast.Member)
            ):
                return referenced(call.func.expr), (cond.member == "hit") != negate
        return None

    def direct_action(self, call: ast.Call, sym: Symbol, nxt: str | None) -> str | None:
        """An action called from an apply block runs as the const default action of a
        table of its own; with non-constant arguments it is inlined into a new action."""
        values = [const_value(a.value) for a in call.args]
        if not all(isinstance(v, int) for v in values) or any(p.direction for p in sym.decl.params):
            return self.lower_group([ast.MethodCallStatement(call.pos, call)], nxt)
        ident = self.action(sym.decl)
        data = [
            hexstr(int(v), t.width_of(a.value.type))  # type: ignore[arg-type]
            for v, a in zip(values, call.args, strict=True)
        ]
        name = self.unique(f"tbl_{sym.decl.name}")
        return self.synthesized_table(name, ident, self.actions[ident].name, data, nxt)

    def synthesized_table(
        self, name: str, action_id: int, action: str, data: list[str], nxt: str | None
    ) -> str:
        self.pipeline_tables.append(
            {
                "name": name,
                "id": len(self.tables),
                "key": [],
                "match_type": "exact",
                "type": "simple",
                "max_size": 1024,
                "with_counters": False,
                "support_timeout": False,
                "direct_meters": None,
                "action_ids": [action_id],
                "actions": [action],
                "base_default_next": nxt,
                "next_tables": {action: nxt},
                "default_entry": {
                    "action_id": action_id,
                    "action_const": True,
                    "action_data": data,
                    "action_entry_const": True,
                },
            }
        )
        self.tables.append(TableInfo(name, None, self.pipeline_tables[-1], hidden=True))
        return name

    def table(
        self,
        decl: ast.TableDeclaration,
        nxt: str | None,
        hit_miss: dict[str, str | None] | None = None,
        by_action: dict[int, str | None] | None = None,
    ) -> str:
        """A table node; after it, control goes to `nxt`, or by hit/miss, or by the action
        that ran (`by_action`: id(ActionDeclaration) -> node, from a switch statement)."""
        name = self.qualify(decl)
        if name in self.applied:
            raise CompileError(
                decl.pos,
                f"table '{decl.name}' is applied more than once; this is not supported yet",
            )
        self.applied.add(name)
        enc = self.encoder()
        keys = []
        key_prop = decl.property("key")
        for el in key_prop.elements if isinstance(key_prop, ast.KeyProperty) else []:
            keys.append(self.key_element(el, enc))
        kinds = {k["match_type"] for k in keys}
        match_type = next((k for k in ("range", "ternary", "lpm") if k in kinds), "exact")
        if "optional" in kinds and match_type == "exact":
            match_type = "ternary"
        action_decls = self.table_actions(decl)
        default = decl.property("default_action")
        if default is None and all(a is not self.noaction() for a in action_decls):
            action_decls.append(self.noaction())
        ids = [self.action(a) for a in action_decls]
        names = [self.actions[i].name for i in ids]
        with_counters, direct_meters = self.direct_resources(decl, name)
        size_prop = decl.property("size")
        size = const_value(size_prop.value) if isinstance(size_prop, ast.ValueProperty) else 1024
        table = {
            "name": name,
            "id": len(self.tables),
            "key": keys,
            "match_type": match_type,
            "type": "simple",
            "max_size": size,
            "with_counters": with_counters,
            "support_timeout": False,
            "direct_meters": direct_meters,
            "action_ids": ids,
            "actions": names,
            "base_default_next": nxt,
            "next_tables": hit_miss
            if hit_miss is not None
            else {
                n: (by_action or {}).get(id(a), nxt)
                for n, a in zip(names, action_decls, strict=True)
            },
            "default_entry": self.default_entry(decl),
        }
        entries = decl.property("entries")
        if isinstance(entries, ast.EntriesProperty):
            table["entries"] = [self.entry(e, i, keys, decl) for i, e in enumerate(entries.entries)]
        self.pipeline_tables.append(table)
        self.tables.append(
            TableInfo(
                name,
                decl,
                table,
                hidden=ast.find_annotation(decl.annotations, "hidden") is not None,
            )
        )
        return name

    def entry(
        self, entry: ast.Entry, index: int, keys: list[Json], decl: ast.TableDeclaration
    ) -> Json:
        """A const entry (JSON_format.md, table "entries"); priorities follow source order
        unless the entry gives one."""
        items = (
            entry.keyset.items if isinstance(entry.keyset, ast.ListExpression) else [entry.keyset]
        )
        key_prop = decl.property("key")
        assert isinstance(key_prop, ast.KeyProperty)
        match_key = []
        for item, key, el in zip(items, keys, key_prop.elements, strict=True):
            match_key.append(self.entry_key(item, key["match_type"], t.width_of(el.expr.type)))
        call = entry.action
        assert isinstance(call, ast.Call)
        action = referenced(call.func)
        data = [hexstr(_const_int(a.value), t.width_of(a.value.type)) for a in call.args]
        priority = _const_int(entry.priority) if entry.priority is not None else index + 1
        return {
            "match_key": match_key,
            "action_entry": {"action_id": self.action(action), "action_data": data},
            "priority": priority,
        }

    @staticmethod
    def entry_key(item: ast.Expression, kind: str, width: int) -> Json:
        full = (1 << width) - 1
        wildcard = isinstance(item, ast.DontCare | ast.Default)
        if kind == "range":
            if wildcard:
                return {"match_type": kind, "start": hexstr(0, width), "end": hexstr(full, width)}
            if isinstance(item, ast.Range):
                lo, hi = _const_int(item.lo), _const_int(item.hi)
            else:
                lo = hi = _const_int(item)
            return {"match_type": kind, "start": hexstr(lo, width), "end": hexstr(hi, width)}
        if wildcard:
            value, mask = 0, 0
        elif isinstance(item, ast.Mask):
            value, mask = _const_int(item.value), _const_int(item.mask)
        else:
            value, mask = _const_int(item), full
        if kind == "exact":
            if mask != full:
                raise CompileError(item.pos, "an exact key needs an exact value")
            return {"match_type": kind, "key": hexstr(value & full, width)}
        if kind == "lpm":
            prefix = bin(mask & full).count("1")
            if mask & full != (full >> (width - prefix) << (width - prefix)) & full:
                raise CompileError(item.pos, "an lpm mask must be a prefix")
            return {
                "match_type": kind,
                "key": hexstr(value & mask & full, width),
                "prefix_length": prefix,
            }
        return {
            "match_type": kind,
            "key": hexstr(value & mask & full, width),
            "mask": hexstr(mask & full, width),
        }

    def noaction(self) -> ast.ActionDeclaration:
        """core.p4's NoAction, the default action of tables that declare none."""
        sym = self.checked.globals.lookup("NoAction")
        if sym is None or not isinstance(sym.decl, ast.ActionDeclaration):
            raise CompileError(None, "core.p4 must declare the action NoAction")
        return sym.decl

    def direct_resources(self, decl: ast.TableDeclaration, name: str) -> tuple[bool, str | None]:
        """Bind the table's `counters`/`meters` properties; (with_counters, direct meter)."""
        with_counters, meter = False, None
        for prop_name in ("counters", "meters"):
            prop = decl.property(prop_name)
            if not isinstance(prop, ast.ValueProperty):
                continue
            inst = referenced(prop.value)
            kind, qualified = self.ext.instances[(self.ext.scope, id(inst))]
            if qualified in self.ext.bindings:
                raise CompileError(prop.pos, f"'{qualified}' is already attached to a table")
            size_prop = decl.property("size")
            size = _const_int(size_prop.value) if isinstance(size_prop, ast.ValueProperty) else 1024
            self.ext.bind_direct(kind, qualified, name, size)
            if kind == "direct_counter":
                with_counters = True
            else:
                meter = qualified
        return with_counters, meter

    def table_actions(self, decl: ast.TableDeclaration) -> list[ast.ActionDeclaration]:
        prop = decl.property("actions")
        result = []
        for ref in prop.actions if isinstance(prop, ast.ActionsProperty) else []:
            e = ref.expr.func if isinstance(ref.expr, ast.Call) else ref.expr
            if isinstance(ref.expr, ast.Call) and ref.expr.args:
                raise CompileError(
                    ref.pos, "actions with bound arguments in a table are not supported yet"
                )
            result.append(referenced(e))
        return result

    def default_entry(self, decl: ast.TableDeclaration) -> Json:
        prop = decl.property("default_action")
        if isinstance(prop, ast.ValueProperty) and isinstance(prop.value, ast.Call):
            call = prop.value
            action = referenced(call.func)
            data = []
            for a in call.args:
                v = const_value(a.value)
                if not isinstance(v, int):
                    raise CompileError(a.pos, "default action arguments must be constants")
                data.append(hexstr(v, t.width_of(a.value.type)))
            const = prop.is_const
        else:
            action, data, const = self.noaction(), [], False
        return {
            "action_id": self.action(action),
            "action_const": const,
            "action_data": data,
            "action_entry_const": const,
        }

    def key_element(self, el: ast.KeyElement, enc: ExpressionEncoder) -> Json:
        name = annotated_name(el.annotations) or expression_text(el.expr)
        e, mask = el.expr, None
        if isinstance(e, ast.Slice):
            hi, lo = const_value(e.hi), const_value(e.lo)
            assert isinstance(hi, int) and isinstance(lo, int)
            base_ty = e.expr.type
            assert isinstance(base_ty, t.Bits)
            mask = hexstr(((1 << (hi - lo + 1)) - 1) << lo, base_ty.width)
            e = e.expr
        if isinstance(e, ast.Call) and isinstance(e.ref, Symbol) and e.ref.name == "isValid":
            assert isinstance(e.func, ast.Member)
            loc = enc.locate(e.func.expr)
            assert isinstance(loc, HeaderRef)
            target: list[str] = [loc.instance, "$valid$"]
        else:
            loc = enc.locate(e) if enc.is_storage(e) else None
            if not isinstance(loc, FieldRef):
                raise CompileError(
                    el.expr.pos,
                    "table keys other than fields, slices and isValid() are not supported yet",
                )
            target = [loc.instance, loc.field]
        return {"match_type": el.match_kind, "name": name, "target": target, "mask": mask}

    # ---- checksums and deparser -----------------------------------------------------

    def checksum_control(self, control: ast.ControlDeclaration, verify: bool) -> None:
        self.bindings = {}
        self.enter(control, qualified_name(control, None))
        if control.locals:
            raise CompileError(
                control.locals[0].pos, "locals in checksum controls are not supported yet"
            )
        enc = self.encoder()
        for s in _flatten(control.body.stmts):
            call = s.call if isinstance(s, ast.MethodCallStatement) else None
            sym = call.ref if call else None
            wanted = "verify_checksum" if verify else "update_checksum"
            if call is None or not isinstance(sym, Symbol) or sym.name != wanted:
                raise CompileError(
                    s.pos, f"only {wanted}() calls are supported in this control yet"
                )
            args = [a.value for a in call.args]
            calc = self.ext.new_calculation(
                externs.hash_algorithm(call.args[3]), externs.field_list(enc, args[1])
            )
            target = enc.locate(args[2])
            if not isinstance(target, FieldRef):
                raise CompileError(args[2].pos, "the checksum must be a field")
            name = "cksum" if not self.checksums else f"cksum_{len(self.checksums) - 1}"
            self.checksums.append(
                {
                    "name": name,
                    "id": len(self.checksums),
                    "target": [target.instance, target.field],
                    "type": "generic",
                    "calculation": calc,
                    "verify": verify,
                    "update": not verify,
                    # null means "always", as for p4c when the condition is `true`.
                    "if_cond": None if const_value(args[0]) is True else enc.boolean(args[0]),
                }
            )

    def deparser(self, control: ast.ControlDeclaration) -> Json:
        enc = self.encoder()
        order: list[str] = []
        for s in _flatten(control.body.stmts):
            sym = s.call.ref if isinstance(s, ast.MethodCallStatement) else None
            if not (isinstance(sym, Symbol) and sym.kind == "method" and sym.name == "emit"):
                raise CompileError(s.pos, "only packet.emit() is supported in the deparser yet")
            assert isinstance(s, ast.MethodCallStatement)
            order += self.emitted(s.call.args[0].value, enc)
        return {"name": "deparser", "id": 0, "order": order, "primitives": []}

    def emitted(self, e: ast.Expression, enc: ExpressionEncoder) -> list[str]:
        loc = enc.locate(e)
        if isinstance(loc, HeaderRef):
            return [loc.instance]
        if isinstance(loc, StackRef):
            return [f"{loc.name}[{i}]" for i in range(loc.size)]
        if isinstance(loc, StructRef):
            # Emitting a struct emits its headers in field order (spec 15.3).
            prefix_len = len(loc.path)
            return [
                v.instance
                for (root, path), v in self.layout.locations.items()
                if root == loc.root and path[:prefix_len] == loc.path and isinstance(v, HeaderRef)
            ]
        raise CompileError(e.pos, "emit needs a header or a struct of headers")


def _flatten(stmts: list[ast.Statement]) -> list[ast.Statement]:
    result: list[ast.Statement] = []
    for s in stmts:
        if isinstance(s, ast.BlockStatement):
            result += _flatten(s.stmts)
        elif not isinstance(s, ast.EmptyStatement):
            result.append(s)
    return result


def _lookahead(e: ast.Expression) -> Json | None:
    """`pk.lookahead<bit<W>>()` as BMv2's lookahead source: [bit offset, width]."""
    if not isinstance(e, ast.Call):
        return None
    sym = e.ref
    if not (isinstance(sym, Symbol) and sym.kind == "method" and sym.name == "lookahead"):
        return None
    if not isinstance(e.type, t.Bits):
        raise CompileError(e.pos, "lookahead of anything but bit<W> is not supported yet")
    return node("lookahead", [0, e.type.width])


def _const_int(e: ast.Expression) -> int:
    v = const_value(e)
    if not isinstance(v, int):
        raise CompileError(e.pos, "expected a compile-time constant")
    return int(v)


def _resolve_binding(arg: ast.Expression, outer: ExpressionEncoder) -> ast.Expression:
    """An argument that is itself a bound parameter (nested controls) is replaced by
    what that parameter stands for, so bindings never refer to each other."""
    while (bound := outer.bound(arg)) is not None:
        arg = bound
    return arg


def _jump_target(index: int) -> Json:
    return node("hexstr", hexstr(index, 32))


def _op(name: str, left: Json | None, right: Json) -> Json:
    return node("expression", {"op": name, "left": left, "right": right})


def build(checked: CheckedProgram, program_name: str) -> Bmv2Program:
    return Bmv2Builder(checked, program_name).build()

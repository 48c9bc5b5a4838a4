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
from p4compiler.backend import assignments, externs
from p4compiler.backend.expressions import ExpressionEncoder, Json, const_int, hexstr, node, op
from p4compiler.backend.parser_states import ParserLowering, ValueSetInfo
from p4compiler.backend.storage import (
    SCALARS,
    FieldRef,
    HeaderRef,
    HeaderType,
    Layout,
    StackRef,
    StructRef,
    UnionRef,
)
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
    value_sets: list[ValueSetInfo] = field(default_factory=list)


class Bmv2Builder(ParserLowering):
    def __init__(self, checked: CheckedProgram, program_name: str) -> None:
        self.checked = checked
        self.program_name = program_name
        self.layout = Layout()
        self.roots: dict[int, Any] = {}  # id(Parameter or VariableDeclaration) -> layout root
        self.ext = externs.ExternTables()
        self.value_sets: list[ValueSetInfo] = []
        self.actions: list[ActionInfo] = []
        self.action_ids: dict[str, int] = {}  # action name -> JSON id
        # id(ActionDeclaration) -> arguments of its directional parameters, as the table
        # being compiled binds them; and, per emitted action, the text of those arguments.
        self.bound_args: dict[int, list[ast.Expression]] = {}
        self.action_texts: dict[str, list[str]] = {}
        self.tables: list[TableInfo] = []
        self.applied: set[str] = set()
        self.node_count = 0
        # Names taken by synthesized actions and tables; the program's own action names
        # are taken from the start so that a synthesized action never shadows one.
        self.action_names: set[str] = _action_names(checked.program)
        self.table_names: set[str] = set()
        self.checksums: list[Json] = []
        # The control being lowered, its instance path (`MyIngress`, `MyIngress.sub`) and
        # the arguments bound to its parameters when it is a control applied by another.
        # Then the tables and conditionals of the pipeline.
        self.control: Any = None
        self.prefix = ""
        self.bindings: dict[int, ast.Expression] = {}
        # `_jump` primitives of `return` statements, patched once the body's end is known,
        # and where the value of a `return e` goes in the function being inlined.
        self.return_jumps: list[Json] = []
        self.return_target: ast.Expression | None = None
        self.pipeline_tables: list[Json] = []
        self.conditionals: list[Json] = []
        # Conditional ids are unique in the whole file, not per pipeline (JSON_format.md).
        self.conditional_count = 0

    # ---- program -------------------------------------------------------------------

    def build(self) -> Bmv2Program:
        pkg = self.checked.package
        if pkg.name != "V1Switch":
            raise CompileError(pkg.pos, "only the v1model architecture (V1Switch) is supported")
        blocks = {V1MODEL_BLOCKS[b.param]: b.decl for b in self.checked.blocks}
        self.bind_storage(blocks)
        self.top_level_instances()
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
            "header_types": [header_type_json(h, i) for i, h in enumerate(header_types)],
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
            "header_union_types": [
                {"name": name, "id": i, "headers": [list(m) for m in members]}
                for i, (name, members) in enumerate(self.layout.union_types.items())
            ],
            "header_unions": [
                {
                    "name": u.name,
                    "id": i,
                    "union_type": u.union_type,
                    "header_ids": [header_ids[m] for m in u.members],
                    "pi_omit": True,
                }
                for i, u in enumerate(self.layout.unions)
            ],
            "header_union_stacks": [],
            "field_lists": self.ext.field_lists,
            "errors": [[e, i] for i, e in enumerate(self.checked.errors)],
            "enums": [],
            "parsers": parsers,
            "parse_vsets": [
                {
                    "name": v.name,
                    "id": i,
                    "compressed_bitwidth": v.bitwidth,
                    "max_size": v.size,
                }
                for i, v in enumerate(self.value_sets)
            ],
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
        return Bmv2Program(
            program, self.tables, self.actions, self.ext, self.checked, self.value_sets
        )

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
        if isinstance(meta_type, t.StructLike):
            self.ext.meta_type = meta_type

    def top_level_instances(self) -> None:
        """Extern instances declared outside any control: one array each, named by the
        bare name as p4c names them and shared by every control that calls it."""
        self.ext.scope = externs.TOP_LEVEL
        for decl in self.checked.program.declarations:
            if isinstance(decl, ast.Instantiation) and isinstance(decl.resolved, t.Extern):
                externs.declare_instance(decl, qualified_name(decl, None), self.ext)

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
        if id(decl) in self.roots:
            return
        ty = decl.resolved
        if ty is None:
            raise CompileError(decl.pos, "internal: variable was not type checked")
        self.layout.bind_struct(
            id(decl), ty, f"{owner}.{decl.name}", f"{owner}.{decl.name}", decl.pos
        )
        self.roots[id(decl)] = id(decl)

    # ---- actions -------------------------------------------------------------------

    def action(self, decl: ast.ActionDeclaration) -> int:
        """The JSON id of `decl` in the current control instance, emitting it the first
        time it is used."""
        is_global = any(d is decl for d in self.checked.program.declarations)
        name = qualified_name(decl, None) if is_global else self.qualify(decl)
        # Parameters with a direction are bound by the table's actions list, as in
        # `actions = { a(hdr.x); }`: their arguments replace them in the body.
        bound = self.bound_args.get(id(decl), [])
        directional = [p for p in decl.params if p.direction]
        if len(bound) != len(directional):
            raise CompileError(decl.pos, f"action '{decl.name}' needs its directional arguments")
        text = [expression_text(a) for a in bound]
        if name in self.action_ids:
            if self.action_texts.get(name, []) != text:
                raise CompileError(
                    decl.pos,
                    f"action '{decl.name}' is bound to different arguments in two tables; "
                    "this is not supported yet",
                )
            return self.action_ids[name]
        self.action_texts[name] = text
        runtime: dict[int, int] = {}
        runtime_data = []
        for p in decl.params:
            if not p.direction:
                runtime[id(p)] = len(runtime_data)
                runtime_data.append({"name": p.name, "bitwidth": t.width_of(self.param_type(p))})
        outer = self.encoder()
        bindings = {
            id(p): _resolve_binding(a, outer) for p, a in zip(directional, bound, strict=True)
        }
        enc = self.encoder(runtime).with_bindings(bindings)
        prims = self.body(decl.body.stmts, enc, name)
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
        outer = (self.return_jumps, self.return_target)
        self.return_jumps, self.return_target = [], None
        prims = self.primitives(stmts, enc, owner, base=0, top=True)
        for jump in self.return_jumps:
            jump["parameters"][0] = _jump_target(len(prims))
        self.return_jumps, self.return_target = outer
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
                    result += self.assign(assignments.variable(s), s.init, enc, here)
            elif isinstance(s, ast.Assignment):
                result += self.assign(s.lhs, s.rhs, enc, here)
            elif isinstance(s, ast.MethodCallStatement):
                result += self.call_primitives(s.call, enc, here)
            elif isinstance(s, ast.ExitStatement):
                result.append(externs.primitive("exit", []))
            elif isinstance(s, ast.ReturnStatement):
                if s.value is not None and self.return_target is not None:
                    result += assignments.assign(self.return_target, s.value, enc)
                if not (top and i == len(stmts) - 1):
                    jump = externs.primitive("_jump", [_jump_target(0)])
                    self.return_jumps.append(jump)
                    result.append(jump)
            elif isinstance(s, ast.IfStatement):
                result += self.if_primitives(s, enc, owner, here)
            elif isinstance(s, ast.SwitchStatement):
                result += self.primitives([switch_as_ifs(s)], enc, owner, here)
            else:
                raise CompileError(s.pos, f"{type(s).__name__} is not supported here yet")
        return result

    def if_primitives(
        self, s: ast.IfStatement, enc: ExpressionEncoder, owner: str, base: int
    ) -> list[Json]:
        """An `if` inside an action, with BMv2's jump primitives (as newer p4c emits):
        _jump_if_zero(cond, else); then...; _jump(end); else...; end:"""
        skip = externs.primitive("_jump_if_zero", [op("b2d", None, enc.boolean(s.cond)), {}])
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

    def assign(
        self, lhs: ast.Expression, rhs: ast.Expression, enc: ExpressionEncoder, base: int
    ) -> list[Json]:
        """`lhs = rhs`; a call of a function with a body of several statements is
        inlined here, each `return e` becoming `lhs = e` and a jump to the end."""
        sym = rhs.ref if isinstance(rhs, ast.Call) else None
        if isinstance(rhs, ast.Call) and isinstance(sym, Symbol) and sym.kind == "function":
            body = sym.decl.body.stmts
            # A struct or tuple value is assigned member by member from the return.
            whole = isinstance(rhs.type, t.StructLike | t.Tuple)
            if whole or not (len(body) == 1 and isinstance(body[0], ast.ReturnStatement)):
                params = sym.decl.prototype.params
                bindings = {id(p): a.value for p, a in zip(params, rhs.args, strict=True)}
                return self.inline(body, enc.with_bindings(bindings), base, lhs)
        return assignments.assign(lhs, rhs, enc)

    def inline(
        self,
        stmts: list[ast.Statement],
        enc: ExpressionEncoder,
        base: int,
        target: ast.Expression | None,
    ) -> list[Json]:
        """The body of a called action or function, its `return`s jumping to its end;
        `target` receives the returned value."""
        outer = (self.return_jumps, self.return_target)
        self.return_jumps, self.return_target = [], target
        prims = self.primitives(stmts, enc, self.prefix, base, top=True)
        for jump in self.return_jumps:
            jump["parameters"][0] = _jump_target(base + len(prims))
        self.return_jumps, self.return_target = outer
        return prims

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
            count = const_int(call.args[0].value)
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
            return self.inline(callee.body.stmts, enc.with_bindings(bindings), base, None)
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
        init = self.lower(_apply_statements(control), None)
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
        # Groups are lowered last to first, so a local must have storage before any use.
        self.bind_locals(stmts)
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

    def bind_locals(self, stmts: list[ast.Statement | None]) -> None:
        for s in stmts:
            if isinstance(s, ast.VariableDeclaration):
                self.bind_local(s, self.prefix)
            elif isinstance(s, ast.BlockStatement):
                self.bind_locals(list(s.stmts))
            elif isinstance(s, ast.IfStatement):
                self.bind_locals([s.then, s.otherwise])
            elif isinstance(s, ast.SwitchStatement):
                self.bind_locals([c.body for c in s.cases])

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
        name = self.unique("act", self.action_names)
        ident = self.add_action(name, None, [], prims, hidden=True)
        exits = any(p["op"] == "exit" for p in prims)
        table = self.unique(f"tbl_{name}", self.table_names)
        return self.synthesized_table(table, ident, name, [], None if exits else nxt)

    @staticmethod
    def unique(base: str, taken: set[str]) -> str:
        name, n = base, 0
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        taken.add(name)
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
            return self.branch(s.cond, then, otherwise, nxt)
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

    def branch(
        self, cond: ast.Expression, then: str | None, otherwise: str | None, nxt: str | None
    ) -> str | None:
        """The node that tests `cond` and goes on to `then` or `otherwise`.  A condition
        that applies a table (`t.apply().hit`) cannot be a BMv2 expression: the table
        node's hit/miss edges decide instead, and `&&`, `||` and `!` around it become
        nodes of their own, so the table is applied only when the short-circuit
        evaluation of `&&` and `||` reaches it, as P4 requires."""
        if not _applies_table(cond):
            return self.conditional(cond, then, otherwise)
        if isinstance(cond, ast.Unary) and cond.op == "!":
            return self.branch(cond.operand, otherwise, then, nxt)
        if isinstance(cond, ast.Binary) and cond.op == "&&":
            right = self.branch(cond.right, then, otherwise, nxt)
            return self.branch(cond.left, right, otherwise, nxt)
        if isinstance(cond, ast.Binary) and cond.op == "||":
            right = self.branch(cond.right, then, otherwise, nxt)
            return self.branch(cond.left, then, right, nxt)
        applied = self.table_of_hit(cond)
        assert applied is not None, "the only boolean members of apply() are hit and miss"
        table, hit = applied
        on_hit, on_miss = (then, otherwise) if hit else (otherwise, then)
        return self.table(table, nxt, hit_miss={"__HIT__": on_hit, "__MISS__": on_miss})

    def conditional(self, cond: ast.Expression, then: str | None, otherwise: str | None) -> str:
        name = self.new_node_name()
        self.conditionals.append(
            {
                "name": name,
                "id": self.conditional_count,
                "expression": self.encoder().boolean(cond),
                "true_next": then,
                "false_next": otherwise,
            }
        )
        self.conditional_count += 1
        return name

    def switch(self, s: ast.SwitchStatement, nxt: str | None) -> str | None:
        if not isinstance(s.expr.type, t.ActionEnum):
            return self.lower([switch_as_ifs(s)], nxt)
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
        ctor_args = sym.decl.args if sym.kind == "instance" else []
        self.bindings = {
            **self.bindings,
            **{
                id(p): _resolve_binding(a.value, outer)
                for p, a in zip(sub.params, call.args, strict=True)
            },
            **{id(p): a.value for p, a in zip(sub.ctor_params, ctor_args, strict=True)},
        }
        self.enter(sub, f"{self.prefix}.{instance}")
        first = self.lower(_apply_statements(sub), nxt)
        self.control, self.prefix, self.bindings = saved
        self.ext.scope = self.prefix
        return first

    def table_of_hit(self, cond: ast.Expression) -> tuple[ast.TableDeclaration, bool] | None:
        """`t.apply().hit` / `.miss` as a condition: the table and whether a hit is true
        (`branch` has already taken any `!` off)."""
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
                return referenced(call.func.expr), cond.member == "hit"
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
        name = self.unique(f"tbl_{sym.decl.name}", self.table_names)
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
        key_prims: list[Json] = []
        key_prop = decl.property("key")
        for el in key_prop.elements if isinstance(key_prop, ast.KeyProperty) else []:
            keys.append(self.key_element(el, enc, key_prims))
        kinds = {k["match_type"] for k in keys}
        match_type = next((k for k in ("range", "ternary", "lpm") if k in kinds), "exact")
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
            ranks = _entry_ranks(entries.entries)
            table["entries"] = [
                self.entry(e, rank, keys, decl)
                for e, rank in zip(entries.entries, ranks, strict=True)
            ]
        self.pipeline_tables.append(table)
        self.tables.append(
            TableInfo(
                name,
                decl,
                table,
                hidden=ast.find_annotation(decl.annotations, "hidden") is not None,
            )
        )
        if key_prims:
            # Key expressions are computed just before the table, by a table of their own.
            action = self.unique("act", self.action_names)
            ident = self.add_action(action, None, [], key_prims, hidden=True)
            pre = self.unique(f"tbl_{action}", self.table_names)
            return self.synthesized_table(pre, ident, action, [], name)
        return name

    def entry(
        self, entry: ast.Entry, rank: int, keys: list[Json], decl: ast.TableDeclaration
    ) -> Json:
        """A const entry (JSON_format.md, table "entries"); `rank` is its BMv2 priority."""
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
        data = [
            hexstr(const_int(a.value), t.width_of(a.value.type))
            for p, a in zip(action.params, call.args, strict=True)
            if not p.direction
        ]
        return {
            "match_key": match_key,
            "action_entry": {"action_id": self.action(action), "action_data": data},
            "priority": rank,
        }

    @staticmethod
    def entry_key(item: ast.Expression, kind: str, width: int) -> Json:
        full = (1 << width) - 1
        wildcard = isinstance(item, ast.DontCare | ast.Default)
        if kind == "range":
            if wildcard:
                return {"match_type": kind, "start": hexstr(0, width), "end": hexstr(full, width)}
            if isinstance(item, ast.Range):
                lo, hi = const_int(item.lo), const_int(item.hi)
            else:
                lo = hi = const_int(item)
            return {"match_type": kind, "start": hexstr(lo, width), "end": hexstr(hi, width)}
        if wildcard:
            value, mask = 0, 0
        elif isinstance(item, ast.Mask):
            value, mask = const_int(item.value), const_int(item.mask)
        else:
            value, mask = const_int(item), full
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
            found = self.ext.instance(inst)
            assert found is not None, "the type checker resolved it to an extern instance"
            kind, qualified = found
            if qualified in self.ext.bindings:
                raise CompileError(prop.pos, f"'{qualified}' is already attached to a table")
            size_prop = decl.property("size")
            size = const_int(size_prop.value) if isinstance(size_prop, ast.ValueProperty) else 1024
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
            action = referenced(e)
            args = ref.expr.args if isinstance(ref.expr, ast.Call) else []
            self.bound_args[id(action)] = [a.value for a in args]
            result.append(action)
        return result

    def default_entry(self, decl: ast.TableDeclaration) -> Json:
        prop = decl.property("default_action")
        if isinstance(prop, ast.ValueProperty) and isinstance(prop.value, ast.Call):
            call = prop.value
            action = referenced(call.func)
            data = []
            for p, a in zip(action.params, call.args, strict=True):
                if p.direction:
                    continue
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

    def key_element(self, el: ast.KeyElement, enc: ExpressionEncoder, prims: list[Json]) -> Json:
        """A key of the table JSON; a key that is an expression, not a field, reads a
        temporary that `prims` (run before the table) computes, as p4c does."""
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
                loc = FieldRef(SCALARS, self.layout.add_scalar("key", e.type, e.pos))
                prims.append(
                    externs.primitive("assign", [node("field", [SCALARS, loc.field]), enc.data(e)])
                )
            target = [loc.instance, loc.field]
        # BMv2's key match types are valid, exact, lpm, ternary and range (JSON_format.md,
        # pipelines): an `optional` key, exact or wildcard, is a ternary one there.
        kind = "ternary" if el.match_kind == "optional" else el.match_kind
        return {"match_type": kind, "name": name, "target": target, "mask": mask}

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
            if call is None or sym is None or sym.name not in (wanted, f"{wanted}_with_payload"):
                raise CompileError(
                    s.pos,
                    f"only {wanted}() and {wanted}_with_payload() calls are supported "
                    "in this control yet",
                )
            args = [a.value for a in call.args]
            inputs = externs.field_list(enc, args[1])
            if sym.name.endswith("_with_payload"):
                # The payload follows the fields in the checksum (JSON_format.md).
                inputs.append(node("payload", None))
            calc = self.ext.new_calculation(externs.hash_algorithm(call.args[3]), inputs)
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
        if isinstance(loc, UnionRef):
            # At most one member is valid; BMv2 emits only valid headers.
            return next(u.members for u in self.layout.unions if u.name == loc.name)
        if isinstance(loc, StructRef):
            # Emitting a struct emits its headers in field order (spec 15.3).
            prefix_len = len(loc.path)
            return [
                v.instance
                for (root, path), v in self.layout.locations.items()
                if root == loc.root and path[:prefix_len] == loc.path and isinstance(v, HeaderRef)
            ]
        raise CompileError(e.pos, "emit needs a header or a struct of headers")


def switch_as_ifs(s: ast.SwitchStatement) -> ast.Statement:
    """A switch on a value as nested ifs, one per group of labels sharing a body (a
    label without a body falls through to the next, spec 12.7)."""
    groups: list[tuple[list[ast.Expression], ast.Statement]] = []
    result: ast.Statement = ast.EmptyStatement(s.pos)
    labels: list[ast.Expression] = []
    for case in s.cases:
        if isinstance(case.label, ast.Default):
            assert case.body is not None
            result = case.body
            continue
        labels.append(case.label)
        if case.body is not None:
            groups.append((labels, case.body))
            labels = []
    for group, body in reversed(groups):
        cond: ast.Expression | None = None
        for label in group:
            test = ast.Binary(label.pos, "==", s.expr, label)
            test.type = t.Bool()
            if cond is not None:
                test = ast.Binary(label.pos, "||", cond, test)
                test.type = t.Bool()
            cond = test
        assert cond is not None
        result = ast.IfStatement(s.pos, cond, body, result)
    return result


def _applies_table(e: ast.Expression) -> bool:
    """Whether the boolean expression `e` applies a table (`t.apply().hit`)."""
    if isinstance(e, ast.Unary):
        return _applies_table(e.operand)
    if isinstance(e, ast.Binary) and e.op in ("&&", "||"):
        return _applies_table(e.left) or _applies_table(e.right)
    if isinstance(e, ast.Member) and isinstance(e.expr, ast.Call):
        sym = e.expr.ref
        return isinstance(sym, Symbol) and sym.kind == "builtin" and sym.name == "apply"
    return False


def _flatten(stmts: list[ast.Statement]) -> list[ast.Statement]:
    result: list[ast.Statement] = []
    for s in stmts:
        if isinstance(s, ast.BlockStatement):
            result += _flatten(s.stmts)
        elif not isinstance(s, ast.EmptyStatement):
            result.append(s)
    return result


def _action_names(program: ast.Program) -> set[str]:
    """Names of the actions declared at top level or in a control."""
    tops = program.declarations
    inner = [d for c in tops if isinstance(c, ast.ControlDeclaration) for d in c.locals]
    return {d.name for d in [*tops, *inner] if isinstance(d, ast.ActionDeclaration)}


def _entry_ranks(entries: list[ast.Entry]) -> list[int]:
    """BMv2 priorities (1 wins over 2) of const entries.  In P4 the largest priority
    wins; an entry without one takes the previous entry's minus one, and without any
    explicit priority the first entry listed wins (spec 14.2.1.4)."""
    priorities: list[int] = []
    for entry in entries:
        if entry.priority is not None:
            priorities.append(const_int(entry.priority))
        else:
            priorities.append(priorities[-1] - 1 if priorities else len(entries))
    top = max(priorities, default=0)
    return [top - p + 1 for p in priorities]


def _resolve_binding(arg: ast.Expression, outer: ExpressionEncoder) -> ast.Expression:
    """An argument that is itself a bound parameter (nested controls) is replaced by
    what that parameter stands for, so bindings never refer to each other."""
    while (bound := outer.bound(arg)) is not None:
        arg = bound
    return arg


def _jump_target(index: int) -> Json:
    return node("hexstr", hexstr(index, 32))


def header_type_json(h: HeaderType, id_: int) -> Json:
    out: Json = {"name": h.name, "id": id_, "fields": [[n, w, s] for n, w, s in h.fields]}
    if h.max_length is not None:
        out["max_length"] = h.max_length
    return out


def build(checked: CheckedProgram, program_name: str) -> Bmv2Program:
    return Bmv2Builder(checked, program_name).build()


def _apply_statements(control: ast.ControlDeclaration) -> list[ast.Statement]:
    """What one application of a control runs: the initializers of its control-level
    variables (the spec re-executes declarations on every apply), then its apply block."""
    initialized = [
        local
        for local in control.locals
        if isinstance(local, ast.VariableDeclaration) and local.init is not None
    ]
    return [*initialized, *control.body.stmts]

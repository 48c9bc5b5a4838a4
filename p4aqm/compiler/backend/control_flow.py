"""Apply blocks as BMv2's control graph (JSON_format.md, pipelines): tables and
conditionals linked by their next nodes.  Statements that are not table applications or
conditions are moved into synthesized one-action tables (`tbl_<action>` / `tbl_act`),
which is how p4c makes them executable by BMv2; a control applied by another is inlined.
`ControlFlowLowering` is a mixin of the builder (`bmv2_json.Bmv2Builder`)."""

from __future__ import annotations

from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.backend import externs
from p4aqm.compiler.backend.actions import ActionInfo, resolve_binding
from p4aqm.compiler.backend.expressions import Json, hexstr
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.names import local_name, qualified_name
from p4aqm.compiler.rewrite import nodes, switch_as_ifs
from p4aqm.compiler.typecheck import Symbol, const_value, referenced


class ControlFlowLowering:
    # State of the builder that mixes this class in.
    ext: externs.ExternTables
    control: Any
    prefix: str
    bindings: dict[int, ast.Expression]
    pipeline_tables: list[Json]
    pipeline_profiles: list[Json]
    conditionals: list[Json]
    conditional_count: int
    actions: list[ActionInfo]
    action_names: set[str]
    table_names: set[str]

    def qualify(self, decl: ast.Declaration) -> str:
        """Control-plane name of an object of the current control instance."""
        return local_name(decl, self.prefix)

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
        self.pipeline_profiles = []
        self.conditionals = []
        self.bindings = {}
        self.enter(control, qualified_name(control, None))
        init = self.lower(_apply_statements(control), None)
        self.unused_profiles(control)
        return {
            "name": name,
            "id": ident,
            "init_table": init,
            "tables": self.pipeline_tables,
            "action_profiles": self.pipeline_profiles,
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
        if isinstance(s, ast.LoopStatement):
            # BMv2's control graph has no loops: a loop runs inside an action, which it
            # can when it applies no table and no control and does not return.
            return not any(isinstance(n, ast.ReturnStatement) or _applies(n) for n in nodes(s))
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
        # After an exit the graph has nowhere to go; an exit that may not run (in a
        # loop or a called action's if) leaves the next node to the switch, which
        # stops at an executed exit anyway.
        exits = any(isinstance(s, ast.ExitStatement) for s in stmts)
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
        if isinstance(s, ast.LoopStatement):
            raise CompileError(
                s.pos,
                "a for loop in an apply block cannot apply tables or controls or return: "
                "BMv2's control graph has no loops, and unrolled, the loop would apply a "
                "table once per pass with a different next node each time",
            )
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
        actions = [a for a, _ in self.table_actions(decl)]
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
        saved = (self.control, self.prefix, self.bindings)
        outer = self.encoder()
        ctor_args = sym.decl.args if sym.kind == "instance" else []
        self.bindings = {
            **self.bindings,
            **{
                id(p): resolve_binding(a.value, outer)
                for p, a in zip(sub.params, call.args, strict=True)
            },
            **{id(p): a.value for p, a in zip(sub.ctor_params, ctor_args, strict=True)},
        }
        if sym.kind == "instance":
            prefix = local_name(sym.decl, self.prefix)
        else:
            prefix = f"{self.prefix}.{sub.name}"
        if sym.kind == "instance" and sym.decl.shares is not None:
            # An instance passed by name: its objects are the named instance's, held by
            # the control `levels` instances above this one.
            levels, shared = sym.decl.shares
            prefix = f"{self.prefix.rsplit('.', levels)[0]}.{shared}"
        self.enter(sub, prefix)
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
        table of its own. With arguments that are not all constants, the call is inlined
        into an action of its own without parameters, which keeps the called action's
        name, as p4c's copy of it does (P4Info lists it)."""
        values = [const_value(a.value) for a in call.args]
        if not all(isinstance(v, int) for v in values) or any(p.direction for p in sym.decl.params):
            stmt = ast.MethodCallStatement(call.pos, call)
            prims = self.body([stmt], self.encoder(), self.prefix)
            ident = self.add_action(self.action_name(sym.decl), None, [], prims, hidden=False)
            table = self.unique(f"tbl_{sym.decl.name}", self.table_names)
            # An exit in the body stops the switch when it runs; the graph goes on.
            return self.synthesized_table(table, ident, self.actions[ident].name, [], nxt)
        ident = self.action(sym.decl)
        data = [
            hexstr(int(v), t.width_of(a.value.type))  # type: ignore[arg-type]
            for v, a in zip(values, call.args, strict=True)
        ]
        name = self.unique(f"tbl_{sym.decl.name}", self.table_names)
        return self.synthesized_table(name, ident, self.actions[ident].name, data, nxt)


def _applies(n: object) -> bool:
    """Whether n is a call that applies a table or a control, or a switch on the
    action a table ran."""
    if isinstance(n, ast.SwitchStatement):
        return isinstance(n.expr.type, t.ActionEnum)
    sym = n.ref if isinstance(n, ast.Call) else None
    return isinstance(sym, Symbol) and (
        sym.kind == "builtin" and sym.name in ("apply", "apply_control")
    )


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


def _apply_statements(control: ast.ControlDeclaration) -> list[ast.Statement]:
    """What one application of a control runs: the initializers of its control-level
    variables (the spec re-executes declarations on every apply), then its apply block."""
    initialized = [
        local
        for local in control.locals
        if isinstance(local, ast.VariableDeclaration) and local.init is not None
    ]
    return [*initialized, *control.body.stmts]

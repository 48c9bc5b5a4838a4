"""Actions as BMv2 actions (behavioral-model JSON_format.md, actions): statements become
primitives, `if`, loops and `return` become BMv2's jump primitives, and called actions and
functions are inlined with their arguments in place of the parameters.
`ActionLowering` is a mixin of the builder (`bmv2_json.Bmv2Builder`)."""

from __future__ import annotations

from dataclasses import dataclass

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.backend import assignments, externs
from p4aqm.compiler.backend.expressions import ExpressionEncoder, Json, const_int, hexstr, node, op
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.names import expression_text, qualified_name
from p4aqm.compiler.rewrite import switch_as_ifs
from p4aqm.compiler.typecheck import CheckedProgram, Symbol


@dataclass
class LoopJumps:
    """The jumps of the `break`s and `continue`s of the loop being lowered, whose
    targets are known once all of it is."""

    breaks: list[Json]
    continues: list[Json]


@dataclass
class ActionInfo:
    """An action of the BMv2 program, declared or synthesized (`decl` None), and whether
    P4Info hides it."""

    name: str
    decl: ast.ActionDeclaration | None
    json: Json
    hidden: bool


class ActionLowering:
    # State of the builder that mixes this class in.
    checked: CheckedProgram
    ext: externs.ExternTables
    actions: list[ActionInfo]
    action_ids: dict[tuple[str, tuple[str, ...]], int]
    prefix: str
    return_jumps: list[Json]
    return_target: ast.Expression | None
    loop_jumps: list[LoopJumps]

    def action_name(self, decl: ast.ActionDeclaration) -> str:
        """The control-plane name of `decl` in the current control instance."""
        is_global = any(d is decl for d in self.checked.program.declarations)
        return qualified_name(decl, None) if is_global else self.qualify(decl)

    def action(self, decl: ast.ActionDeclaration, bound: list[ast.Expression] | None = None) -> int:
        """The JSON id of `decl` in the current control instance, emitting it the first
        time it is used with the arguments `bound` to its directional parameters (a
        table's `actions = { a(hdr.x); }`), which replace those parameters in the body.
        Each binding is an action of its own under the one name, as p4c's
        LocalizeAllActions makes a copy per table: BMv2 finds a table's actions by name
        within the table, and P4Info lists the name once."""
        name = self.action_name(decl)
        bound = bound or []
        directional = [p for p in decl.params if p.direction]
        if len(bound) != len(directional):
            raise CompileError(decl.pos, f"action '{decl.name}' needs its directional arguments")
        key = (name, tuple(expression_text(a) for a in bound))
        if key in self.action_ids:
            return self.action_ids[key]
        runtime: dict[int, int] = {}
        runtime_data = []
        for p in decl.params:
            if not p.direction:
                runtime[id(p)] = len(runtime_data)
                runtime_data.append({"name": p.name, "bitwidth": t.width_of(self.param_type(p))})
        outer = self.encoder()
        bindings = {
            id(p): resolve_binding(a, outer) for p, a in zip(directional, bound, strict=True)
        }
        enc = self.encoder(runtime).with_bindings(bindings)
        resets = self.out_resets(directional, bound, outer)
        prims = self.body(decl.body.stmts, enc, name, resets)
        ident = self.add_action(name, decl, runtime_data, prims, hidden=False)
        self.action_ids[key] = ident
        return ident

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
        return ident

    def body(
        self,
        stmts: list[ast.Statement],
        enc: ExpressionEncoder,
        owner: str,
        first: list[Json] | None = None,
    ) -> list[Json]:
        """Primitives of an action (or inlined action) body after `first`; a `return`
        jumps to its end."""
        outer = (self.return_jumps, self.return_target)
        self.return_jumps, self.return_target = [], None
        prims = list(first or [])
        prims += self.primitives(stmts, enc, owner, base=len(prims), top=True)
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
                # A function's or action's local is one instance for every call, so its
                # headers are made invalid each time the declaration runs, as p4c does.
                target = assignments.variable(s)
                if s.init is not None:
                    result += self.assign(target, s.init, enc, here)
                else:
                    result += assignments.uninitialized(target, target.type, enc)
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
            elif _is_loop_test(s):
                # `if (!c) break;`, a loop's test (loops.py): one jump when c is false.
                assert isinstance(s, ast.IfStatement) and isinstance(s.cond, ast.Unary)
                test = op("b2d", None, enc.boolean(s.cond.operand))
                jump = externs.primitive("_jump_if_zero", [test, {}])
                self.loop_jumps[-1].breaks.append(jump)
                result.append(jump)
            elif isinstance(s, ast.IfStatement):
                result += self.if_primitives(s, enc, owner, here)
            elif isinstance(s, ast.LoopStatement):
                result += self.loop_primitives(s, enc, owner, here)
            elif isinstance(s, ast.BreakStatement | ast.ContinueStatement):
                jump = externs.primitive("_jump", [{}])
                jumps = self.loop_jumps[-1]
                (jumps.breaks if isinstance(s, ast.BreakStatement) else jumps.continues).append(
                    jump
                )
                result.append(jump)
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

    def loop_primitives(
        self, s: ast.LoopStatement, enc: ExpressionEncoder, owner: str, base: int
    ) -> list[Json]:
        """A loop inside an action, with BMv2's jump primitives as p4c emits them (its
        forloop-bmv2 test): body...; update: update...; _jump(body); end: — a `break`
        jumps to end, a `continue` to update."""
        self.loop_jumps.append(LoopJumps([], []))
        body = self.primitives([s.body], enc, owner, base)
        update = self.primitives([s.update], enc, owner, base + len(body))
        jumps = self.loop_jumps.pop()
        again = externs.primitive("_jump", [_jump_target(base)])
        result = [*body, *update, again]
        for jump in jumps.breaks:
            jump["parameters"][-1] = _jump_target(base + len(result))
        for jump in jumps.continues:
            jump["parameters"][-1] = _jump_target(base + len(body))
        return result

    def assign(
        self, lhs: ast.Expression, rhs: ast.Expression, enc: ExpressionEncoder, base: int
    ) -> list[Json]:
        """`lhs = rhs`; a call of a function with a body of several statements is
        inlined here, each `return e` becoming `lhs = e` and a jump to the end."""
        sym = rhs.ref if isinstance(rhs, ast.Call) else None
        if isinstance(rhs, ast.Call) and isinstance(sym, Symbol) and sym.kind == "function":
            body = sym.decl.body.stmts
            params = sym.decl.prototype.params
            # A struct or tuple value is assigned member by member from the return; a
            # function with out or inout parameters writes them besides.
            whole = isinstance(rhs.type, t.StructLike | t.Tuple)
            writes = any(p.direction in ("out", "inout") for p in params)
            single = len(body) == 1 and isinstance(body[0], ast.ReturnStatement)
            if whole or writes or not single:
                bindings = {id(p): a.value for p, a in zip(params, rhs.args, strict=True)}
                resets = self.out_resets(params, [a.value for a in rhs.args], enc)
                inlined = self.inline(body, enc.with_bindings(bindings), base + len(resets), lhs)
                return resets + inlined
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
            return [externs.primitive(name, [enc.lvalue(call.func.expr, run_time_index=True)])]
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
            resets = self.out_resets(params, [a.value for a in call.args], enc)
            inner = enc.with_bindings(bindings)
            return resets + self.inline(callee.body.stmts, inner, base + len(resets), None)
        return externs.call_primitives(call, enc, self.ext)

    def out_resets(
        self, params: list[ast.Parameter], args: list[ast.Expression], enc: ExpressionEncoder
    ) -> list[Json]:
        """An `out` argument starts uninitialized (spec 6.8): its headers invalid before
        the body, which writes the argument itself (copy_in_out.py made copies where
        another argument could see this)."""
        return [
            prim
            for p, a in zip(params, args, strict=True)
            if p.direction == "out" and not isinstance(a, ast.DontCare)
            for prim in assignments.uninitialized(a, self.param_type(p), enc)
        ]


def resolve_binding(arg: ast.Expression, outer: ExpressionEncoder) -> ast.Expression:
    """An argument that is itself a bound parameter (nested controls) is replaced by
    what that parameter stands for, so bindings never refer to each other."""
    while (bound := outer.bound(arg)) is not None:
        arg = bound
    return arg


def _is_loop_test(s: ast.Statement) -> bool:
    return (
        isinstance(s, ast.IfStatement)
        and isinstance(s.cond, ast.Unary)
        and s.cond.op == "!"
        and isinstance(s.then, ast.BreakStatement)
        and s.otherwise is None
    )


def _jump_target(index: int) -> Json:
    return node("hexstr", hexstr(index, 32))

"""Statements: assignments, calls, blocks, if, switch, loops, exit and return, and which
expressions may be written to."""

from __future__ import annotations

from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.typecheck.constants import const_value
from p4aqm.compiler.typecheck.symbols import Scope, referenced


class Statements:
    """A mixin of `Checker`."""

    owner: Any
    function_return: t.Type | None
    # How many loops enclose the statement being checked: break and continue need one.
    loop_depth = 0

    def stmts(self, stmts: list[ast.Statement], scope: Scope) -> None:
        for s in stmts:
            self.stmt(s, scope)
        # A call whose value is known here (a static_assert) runs nothing.
        stmts[:] = [
            s
            for s in stmts
            if not (isinstance(s, ast.MethodCallStatement) and const_value(s.call) is not None)
        ]

    def stmt(self, s: ast.Statement, scope: Scope) -> None:
        if isinstance(s, ast.Assignment):
            if s.op != "=":
                # Compound assignment `a op= b` means `a = a op b` (spec 12.1, P4_16 1.2.4).
                s.rhs = ast.Binary(s.rhs.pos, s.op[:-1], s.lhs, s.rhs)
                s.op = "="
            self.expr(s.lhs, scope)
            self.require_lvalue(s.lhs)
            self.expr(s.rhs, scope)
            self.coerce(s.rhs, s.lhs.type)
        elif isinstance(s, ast.MethodCallStatement):
            self.expr(s.call, scope)
        elif isinstance(s, ast.BlockStatement):
            self.stmts(s.stmts, Scope(scope))
        elif isinstance(s, ast.IfStatement):
            self.expr(s.cond, scope)
            self.coerce(s.cond, t.Bool())
            self.stmt(s.then, Scope(scope))
            if s.otherwise is not None:
                self.stmt(s.otherwise, Scope(scope))
        elif isinstance(s, ast.ConstantDeclaration):
            self.declare(scope, self.constant(s, scope), s.pos)
        elif isinstance(s, ast.VariableDeclaration):
            self.variable(s, scope)
        elif isinstance(s, ast.EmptyStatement):
            pass
        elif isinstance(s, ast.ExitStatement):
            if isinstance(self.owner, ast.ParserDeclaration):
                raise CompileError(s.pos, "exit is not allowed in a parser")
            if isinstance(self.owner, ast.FunctionDeclaration):
                # Spec 12.5: exit ends the whole control; p4c refuses it in functions.
                raise CompileError(s.pos, "exit is not allowed in a function")
        elif isinstance(s, ast.ReturnStatement):
            if isinstance(self.owner, ast.ParserDeclaration):
                raise CompileError(s.pos, "return is not allowed in a parser")
            if isinstance(self.owner, ast.FunctionDeclaration):
                want = self.function_return
                if s.value is None and not isinstance(want, t.Void):
                    raise CompileError(s.pos, f"this function must return a {want}")
                if s.value is not None:
                    self.expr(s.value, scope)
                    assert want is not None
                    self.coerce(s.value, want)
            elif s.value is not None:
                raise CompileError(s.pos, "an action or control cannot return a value")
        elif isinstance(s, ast.SwitchStatement):
            self.switch(s, scope)
        elif isinstance(s, ast.LoopStatement):
            if s.collection is not None:
                self.expr(s.collection, scope)
                if not isinstance(s.collection.type, t.HeaderStack):
                    raise CompileError(
                        s.collection.pos,
                        "a for-in loop runs over a range 'lo .. hi', a list expression or a "
                        f"header stack, not a value of type {s.collection.type}",
                    )
            self.loop_depth += 1
            self.stmt(s.body, scope)
            self.stmt(s.update, scope)
            self.loop_depth -= 1
        elif isinstance(s, ast.BreakStatement | ast.ContinueStatement):
            if not self.loop_depth:
                word = "break" if isinstance(s, ast.BreakStatement) else "continue"
                raise CompileError(s.pos, f"{word} is only allowed inside a for loop")
        else:
            raise CompileError(s.pos, f"{type(s).__name__} is not supported yet")

    def switch(self, s: ast.SwitchStatement, scope: Scope) -> None:
        """`switch (t.apply().action_run)`: each label names one of the table's actions."""
        self.expr(s.expr, scope)
        e = s.expr
        if isinstance(e.type, t.Bits | t.Enum | t.Error):
            self.value_switch(s, scope)
            return
        if not (
            isinstance(e, ast.Member)
            and isinstance(e.expr, ast.Call)
            and isinstance(e.expr.func, ast.Member)
            and isinstance(e.type, t.ActionEnum)
        ):
            raise CompileError(
                e.pos, f"cannot switch on a value of type {e.type}; switch on t.apply().action_run"
            )
        table = referenced(e.expr.func.expr)
        actions = table.property("actions")
        listed = {
            id(getattr(r.expr.func if isinstance(r.expr, ast.Call) else r.expr, "ref", None))
            for r in (actions.actions if isinstance(actions, ast.ActionsProperty) else [])
        }
        seen: set[int] = set()
        for i, case in enumerate(s.cases):
            label = case.label
            if isinstance(label, ast.Default):
                if i != len(s.cases) - 1:
                    raise CompileError(label.pos, "'default' must be the last switch case")
            else:
                if not isinstance(label, ast.Name):
                    raise CompileError(label.pos, "a switch case must name an action")
                sym = self.lookup(label, scope)
                if id(sym) not in listed:
                    raise CompileError(
                        label.pos, f"'{label.name}' is not an action of table '{table.name}'"
                    )
                if id(sym) in seen:
                    raise CompileError(label.pos, f"duplicate case '{label.name}'")
                seen.add(id(sym))
                label.ref = sym
            if case.body is not None:
                self.stmt(case.body, Scope(scope))
        if s.cases and s.cases[-1].body is None:
            raise CompileError(s.cases[-1].pos, "the last switch case needs a body")

    def value_switch(self, s: ast.SwitchStatement, scope: Scope) -> None:
        """`switch (x)` on a bit<W>, enum or error value: labels are distinct constants
        (spec 12.7)."""
        seen: set[Any] = set()
        for i, case in enumerate(s.cases):
            label = case.label
            if isinstance(label, ast.Default):
                if i != len(s.cases) - 1:
                    raise CompileError(label.pos, "'default' must be the last switch case")
            else:
                self.expr(label, scope)
                self.coerce(label, s.expr.type)
                value = const_value(label)
                if value is None:
                    raise CompileError(label.pos, "a switch label must be a compile-time constant")
                if value in seen:
                    raise CompileError(label.pos, "duplicate switch label")
                seen.add(value)
            if case.body is not None:
                self.stmt(case.body, Scope(scope))
        if s.cases and s.cases[-1].body is None:
            raise CompileError(s.cases[-1].pos, "the last switch case needs a body")

    def require_lvalue(self, e: ast.Expression) -> None:
        if isinstance(e, ast.Name):
            sym = e.ref
            if sym.kind == "param" and sym.direction == "in":
                raise CompileError(e.pos, f"cannot write to '{e.name}', an 'in' parameter")
            if (
                sym.kind == "param"
                and sym.direction == ""
                and isinstance(sym.owner, ast.ActionDeclaration)
            ):
                raise CompileError(e.pos, f"cannot write to '{e.name}', an action data parameter")
            if sym.kind not in ("param", "var"):
                raise CompileError(e.pos, f"cannot assign to '{e.name}'")
        elif isinstance(e, ast.Member) and e.ref is None or isinstance(e, ast.Slice | ast.Index):
            self.require_lvalue(e.expr)
        else:
            raise CompileError(e.pos, "this expression cannot be assigned to")

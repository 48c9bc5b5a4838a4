"""Calls: arguments bound to parameters (spec 8.20), then checked against their types,
for actions, functions, extern methods and functions, and applied controls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError, SourcePos
from p4aqm.compiler.typecheck.constants import const_value
from p4aqm.compiler.typecheck.symbols import Scope, Symbol


def _checked_type(p: ast.Parameter) -> t.Type | None:
    """The type the checker gave a parameter when it checked its declaration."""
    return p.resolved


def bind_arguments(
    args: list[ast.Argument], params: list[ast.Parameter], pos: SourcePos
) -> list[ast.Argument] | None:
    """`args` in the order of `params`, or None if they do not fit.  Arguments are all
    positional or all named (spec 8.20); missing ones take the parameter's default."""
    named = [a for a in args if a.name]
    if named and len(named) != len(args):
        raise CompileError(pos, "either all arguments or none must be named")
    if not named:
        if len(args) > len(params):
            return None
        rest = params[len(args) :]
        if any(p.default is None for p in rest):
            return None
        return [*args, *(ast.Argument(p.pos, p.default) for p in rest if p.default)]
    by_name = {a.name: a for a in args}
    if len(by_name) != len(args):
        raise CompileError(pos, "an argument is named twice")
    if set(by_name) - {p.name for p in params}:
        return None
    result = []
    for p in params:
        if p.name in by_name:
            result.append(by_name[p.name])
        elif p.default is not None:
            result.append(ast.Argument(p.pos, p.default))
        else:
            return None
    return result


class Calls:
    """A mixin of `Checker`."""

    globals: Scope
    owner: Any

    def bind_call(
        self,
        args: list[ast.Argument],
        params: list[ast.Parameter],
        pos: SourcePos,
        scope: Scope,
        mismatch: str,
        param_type: Callable[[ast.Parameter], t.Type | None],
    ) -> None:
        """Bind `args` to `params` in place, then check each against its parameter's
        type; an out or inout argument must be writable (calling convention). Action,
        function and control calls differ only in where a parameter's type comes from,
        and in the error (`mismatch`) when the arguments do not fit."""
        ordered = bind_arguments(args, params, pos)
        if ordered is None:
            raise CompileError(pos, mismatch)
        args[:] = ordered
        for p, a in zip(params, args, strict=True):
            self.expr(a.value, scope)
            self.coerce(a.value, param_type(p))
            if p.direction in ("out", "inout"):
                self.require_lvalue(a.value)

    def action_param_type(self, p: ast.Parameter) -> t.Type:
        """An action parameter's type, resolved in the global scope."""
        return self.resolve_type(p.type_ref, self.globals)

    def apply_control(self, e: ast.Call, control: ast.ControlDeclaration, scope: Scope) -> t.Type:
        """`c.apply(args)` of a control instance (or `C.apply(args)`, spec 15.1)."""
        if not isinstance(self.owner, ast.ControlDeclaration):
            raise CompileError(e.pos, "controls can only be applied from a control's apply block")
        if control is self.owner:
            raise CompileError(e.pos, "a control cannot apply itself")
        mismatch = f"'{control.name}' takes {len(control.params)} arguments"
        self.bind_call(e.args, control.params, e.pos, scope, mismatch, _checked_type)
        return t.Void()

    def call(self, e: ast.Call, scope: Scope) -> t.Type:
        func = e.func
        if isinstance(func, ast.Member):
            return self.method_call(e, func, scope)
        if isinstance(func, ast.Name):
            return self.named_call(e, func, scope)
        raise CompileError(e.pos, "this expression cannot be called")

    def method_call(self, e: ast.Call, func: ast.Member, scope: Scope) -> t.Type:
        """`x.m(...)`: a header, stack or table builtin, an extern method, or a control's
        apply."""
        self.expr(func, scope)
        sym = func.ref
        if sym is None:
            raise CompileError(e.pos, "this is not a method")
        e.ref = sym
        if sym.kind == "const":  # a size method: its value is known here
            if e.args or e.type_args:
                raise CompileError(e.pos, f"'{sym.name}' takes no arguments")
            return sym.type
        if sym.kind == "builtin" and sym.name == "apply_control":
            target = getattr(func.expr, "ref", None)
            if sym.decl.ctor_params and not (
                isinstance(target, Symbol) and target.kind == "instance"
            ):
                raise CompileError(
                    e.pos, f"'{sym.decl.name}' has constructor parameters: instantiate it"
                )
            return self.apply_control(e, sym.decl, scope)
        if sym.kind == "builtin" and sym.name in ("push_front", "pop_front"):
            if len(e.args) != 1 or e.type_args:
                raise CompileError(e.pos, f"'{sym.name}' takes one argument")
            self.expr(e.args[0].value, scope)
            count = const_value(e.args[0].value)
            if not isinstance(count, int) or count < 0:
                raise CompileError(e.args[0].pos, "the count must be a non-negative constant")
            self.require_lvalue(func.expr)
            return t.Void()
        if sym.kind == "builtin":
            if e.args or e.type_args:
                raise CompileError(e.pos, f"'{sym.name}' takes no arguments")
            if sym.name in ("setValid", "setInvalid"):
                self.require_lvalue(func.expr)
            # Inside an action, `owner` is the action: tables are applied only from
            # the control's own apply block (spec 14.2.2).
            if sym.name == "apply" and not isinstance(self.owner, ast.ControlDeclaration):
                raise CompileError(e.pos, "tables can only be applied from a control's apply block")
            return sym.type
        if sym.kind == "method":
            ext: t.Extern = func.expr.type
            ret = self.call_args(
                e.args,
                sym.overloads,
                e.pos,
                scope,
                ext.type_args,
                f"{ext.name}.{func.member}",
                e.type_args,
            )
            return ret
        raise CompileError(e.pos, "this is not a method")

    def named_call(self, e: ast.Call, func: ast.Name, scope: Scope) -> t.Type:
        """`f(...)`: an extern function, an action or a function."""
        sym = _overload(self.lookup(func, scope), len(e.args), scope)
        func.ref = sym
        e.ref = sym
        if sym.kind == "extern_function" and sym.name == "static_assert":
            return self.static_assert(e, sym, scope)
        if sym.kind == "extern_function":
            return self.call_args(e.args, sym.overloads, e.pos, scope, {}, sym.name, e.type_args)
        if sym.kind == "action":
            if isinstance(self.owner, ast.ParserDeclaration):
                raise CompileError(e.pos, "actions cannot be called from a parser")
            params = sym.decl.params
            mismatch = f"action '{sym.name}' takes {len(params)} arguments, not {len(e.args)}"
            self.bind_call(e.args, params, e.pos, scope, mismatch, self.action_param_type)
            return t.Void()
        if sym.kind == "function":
            params = sym.decl.prototype.params
            mismatch = f"function '{sym.name}' takes {len(params)} arguments, not {len(e.args)}"
            self.bind_call(e.args, params, e.pos, scope, mismatch, _checked_type)
            return sym.type
        raise CompileError(e.pos, f"'{func.name}' cannot be called")

    def static_assert(self, e: ast.Call, sym: Symbol, scope: Scope) -> t.Type:
        """core.p4's `static_assert(check[, message])`: checked here, a constant true
        afterwards (its statements are dropped, spec: static assertions)."""
        self.call_args(e.args, sym.overloads, e.pos, scope, {}, sym.name, e.type_args)
        check = const_value(e.args[0].value)
        if not isinstance(check, bool):
            raise CompileError(e.args[0].pos, "static_assert needs a compile-time condition")
        if not check:
            message = e.args[1].value if len(e.args) > 1 else None
            text = message.value if isinstance(message, ast.StringLiteral) else "static assert"
            raise CompileError(e.pos, f"static_assert failed: {text}")
        e.ref = Symbol("const", sym.name, t.Bool(), value=True)
        return t.Bool()

    def call_args(
        self,
        args: list[ast.Argument],
        overloads: list[ast.FunctionPrototype],
        pos: SourcePos,
        scope: Scope,
        outer_tvars: dict[str, t.Type],
        what: str,
        type_args: list[ast.TypeRef] | None = None,
    ) -> t.Type:
        """Check a call against the overload with as many parameters as arguments; bind
        type variables by unification, left to right (spec 8.20)."""
        candidates = [
            (p, bound)
            for p in overloads
            if (bound := bind_arguments(args, p.params, pos)) is not None
        ]
        if not candidates:
            counts = sorted({len(p.params) for p in overloads})
            raise CompileError(
                pos, f"{what} expects {' or '.join(map(str, counts))} arguments, not {len(args)}"
            )
        proto, args[:] = candidates[0]
        tvars = dict(outer_tvars)
        if type_args:
            if len(type_args) != len(proto.type_params):
                raise CompileError(pos, f"{what} takes {len(proto.type_params)} type arguments")
            for n, ref in zip(proto.type_params, type_args, strict=True):
                tvars[n] = self.resolve_type(ref, scope)
        else:
            for n in proto.type_params:
                tvars[n] = t.TypeVar(n, id(proto))
        bindings: dict[t.TypeVar, t.Type] = {}
        for p, a in zip(proto.params, args, strict=True):
            want = self.substitute(self.resolve_type(p.type_ref, self.globals, tvars), bindings)
            got = self.expr(a.value, scope)
            if isinstance(a.value, ast.DontCare):
                if p.direction != "out":
                    raise CompileError(a.pos, "'_' can only be passed to an 'out' parameter")
                continue
            if isinstance(want, t.TypeVar):
                if isinstance(got, t.InfInt):
                    raise CompileError(
                        a.pos,
                        f"the width of this argument of {what} cannot be inferred; "
                        "use a sized constant",
                    )
                bindings[want] = got
                # Extern instances whose type arguments were omitted learn them here.
                for name, bound in outer_tvars.items():
                    if bound == want:
                        outer_tvars[name] = got
            else:
                self.coerce(a.value, want)
            if p.direction in ("out", "inout"):
                self.require_lvalue(a.value)
        if proto.return_type is None:
            return t.Void()
        ret = self.resolve_type(proto.return_type, self.globals, tvars)
        return self.substitute(ret, bindings)

    def substitute(self, ty: t.Type, bindings: dict[t.TypeVar, t.Type]) -> t.Type:
        if isinstance(ty, t.TypeVar):
            return bindings.get(ty, ty)
        return ty


def _overload(sym: Symbol, count: int, scope: Scope) -> Symbol:
    """What a call of `count` arguments names: a type's namesake extern function; an
    action or function when its parameters take that many arguments, else the extern
    function of that name (p4c resolves by scope, then overloads by argument count)."""
    if sym.kind == "type":
        return sym.function or sym
    if sym.kind not in ("action", "function"):
        return sym
    params = sym.decl.params if sym.kind == "action" else sym.decl.prototype.params
    required = sum(1 for p in params if p.default is None)
    if required <= count <= len(params):
        return sym
    outer = sym.function or scope.root().lookup(sym.name)
    if outer is not None and outer.kind != "extern_function":
        outer = outer.function
    return outer if outer is not None and outer.kind == "extern_function" else sym

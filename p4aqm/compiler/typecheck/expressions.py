"""Expressions: names, members, operators, casts, slices and indices get their types."""

from __future__ import annotations

from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError, SourcePos
from p4aqm.compiler.typecheck.constants import const_value
from p4aqm.compiler.typecheck.symbols import Scope, Symbol

# Methods every header has (spec 8.17).
HEADER_METHODS = {"isValid": t.Bool(), "setValid": t.Void(), "setInvalid": t.Void()}
# Sizes of headers, structs, unions and stacks, compile-time `int`s (P4_16 1.2.3).
SIZE_METHODS = ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes")


def size_in_bits(ty: t.Type, largest: bool) -> int:
    """The bits a value of `ty` takes on the wire: a varbit counts 0 at least and its
    bound at most; a union as its smallest or largest member; a stack, every element."""
    if isinstance(ty, t.Varbit):
        return ty.max_width if largest else 0
    if isinstance(ty, t.HeaderStack):
        return ty.size * size_in_bits(ty.element, largest)
    if isinstance(ty, t.StructLike):
        sizes = [size_in_bits(ft, largest) for _, ft in ty.fields]
        if ty.kind == "header_union":
            return (max if largest else min)(sizes, default=0)
        return sum(sizes)
    return t.width_of(ty)


def size_symbol(method: str, ty: t.Type) -> Symbol:
    bits = size_in_bits(ty, method.startswith("max"))
    value = (bits + 7) // 8 if method.endswith("Bytes") else bits
    return Symbol("const", method, t.InfInt(), value=value)


class Expressions:
    """A mixin of `Checker`; calls are in `calls.py`, implicit conversions in
    `coercion.py`."""

    errors: list[str]
    owner: Any

    def lookup(self, name: ast.Name, scope: Scope) -> Symbol:
        sym = (scope.root() if name.is_global else scope).lookup(name.name)
        if sym is None:
            raise CompileError(name.pos, f"'{name.name}' is not declared")
        return sym

    def expr(self, e: ast.Expression, scope: Scope) -> t.Type:
        e.type = self.expr_type(e, scope)
        return e.type

    def expr_type(self, e: ast.Expression, scope: Scope) -> t.Type:
        if isinstance(e, ast.IntLiteral):
            return self.int_literal(e)
        if isinstance(e, ast.BoolLiteral):
            return t.Bool()
        if isinstance(e, ast.StringLiteral):
            return t.String()
        if isinstance(e, ast.Name):
            return self.name(e, scope)
        if isinstance(e, ast.Member):
            return self.member(e, scope)
        if isinstance(e, ast.Call):
            return self.call(e, scope)
        if isinstance(e, ast.Unary):
            return self.unary(e, scope)
        if isinstance(e, ast.Binary):
            return self.binary(e, scope)
        if isinstance(e, ast.Ternary):
            return self.ternary(e, scope)
        if isinstance(e, ast.Cast):
            return self.cast(e, scope)
        if isinstance(e, ast.Slice):
            return self.slice(e, scope)
        if isinstance(e, ast.Index):
            return self.index(e, scope)
        if isinstance(e, ast.ListExpression):
            return t.Tuple(tuple(self.expr(i, scope) for i in e.items))
        if isinstance(e, ast.StructExpression):
            return self.struct_expression(e, scope)
        if isinstance(e, ast.InvalidHeader):
            return t.DontCareType()
        if isinstance(e, ast.Dots):
            return t.DefaultValue()
        if isinstance(e, ast.DontCare | ast.Default):
            return t.DontCareType()
        if isinstance(e, ast.TypeExpression):
            return self.resolve_type(e.type_ref, scope)
        raise CompileError(e.pos, f"{type(e).__name__} is not supported here")

    @staticmethod
    def int_literal(e: ast.IntLiteral) -> t.Type:
        if e.width is None:
            return t.InfInt()
        ty = t.Bits(e.width, e.signed)
        lo, hi = (
            (-(1 << (e.width - 1)), (1 << (e.width - 1)) - 1)
            if e.signed
            else (0, (1 << e.width) - 1)
        )
        if not lo <= e.value <= hi:
            raise CompileError(e.pos, f"value {e.value} does not fit in {ty}")
        return ty

    def name(self, e: ast.Name, scope: Scope) -> t.Type:
        if e.name == "error" and not e.is_global:
            e.ref = Symbol("type", "error", t.Error())
            return t.Error()
        sym = self.lookup(e, scope)
        if sym.kind == "value_set":
            raise CompileError(e.pos, f"value set '{e.name}' can only be a select keyset")
        e.ref = sym
        return sym.type

    def ternary(self, e: ast.Ternary, scope: Scope) -> t.Type:
        self.expr(e.cond, scope)
        self.coerce(e.cond, t.Bool())
        a, b = self.expr(e.then, scope), self.expr(e.otherwise, scope)
        if isinstance(a, t.InfInt) and isinstance(b, t.InfInt):
            raise CompileError(
                e.pos,
                "the width of this conditional expression cannot be inferred; cast a branch",
            )
        self.unify_operands(e.then, e.otherwise, e.pos)
        return e.then.type

    def slice(self, e: ast.Slice, scope: Scope) -> t.Type:
        base = self.expr(e.expr, scope)
        self.expr(e.hi, scope)
        self.expr(e.lo, scope)
        hi, lo = const_value(e.hi), const_value(e.lo)
        if isinstance(base, t.InfInt) and isinstance(const_value(e.expr), int):
            # A slice of an arbitrary-precision constant, which the spec allows on
            # int: its two's complement bits hi..lo.
            if not isinstance(hi, int) or not isinstance(lo, int) or not 0 <= lo <= hi:
                raise CompileError(e.pos, "slice bounds must be constants with 0 <= low <= high")
            return t.Bits(hi - lo + 1)
        if not isinstance(base, t.Bits):
            raise CompileError(e.pos, f"cannot slice a value of type {base}")
        if e.plus_width is not None and lo is None:
            return self.run_time_slice(e, base)
        if not isinstance(hi, int) or not isinstance(lo, int) or not 0 <= lo <= hi < base.width:
            raise CompileError(
                e.pos, f"slice bounds must be constants with 0 <= low <= high < {base.width}"
            )
        return t.Bits(hi - lo + 1)

    @staticmethod
    def run_time_slice(e: ast.Slice, base: t.Bits) -> t.Type:
        """`e[L +: W]` whose start L is known only at run time (P4_16 1.2.5): W must
        be a constant, and L an unsigned value.  Bits past the top of e read as 0 and
        writes to them are dropped, as a shift by L gives."""
        assert e.plus_width is not None
        width = const_value(e.plus_width)
        if not isinstance(width, int) or not 0 < width <= base.width:
            raise CompileError(
                e.plus_width.pos,
                f"the width W of e[L +: W] must be a constant in 1..{base.width}",
            )
        if not isinstance(e.lo.type, t.Bits) or e.lo.type.signed:
            raise CompileError(e.lo.pos, "the start L of e[L +: W] must be a bit<N> value")
        e.run_time_start = True
        e.hi = ast.IntLiteral(e.plus_width.pos, width - 1, None, False)
        e.hi.type = t.InfInt()
        return t.Bits(width)

    def index(self, e: ast.Index, scope: Scope) -> t.Type:
        base = self.expr(e.expr, scope)
        if isinstance(base, t.Tuple):
            # A tuple's element, by a constant index only (spec: tuple types).
            self.expr(e.index, scope)
            index = const_value(e.index)
            if not isinstance(index, int) or not 0 <= index < len(base.items):
                raise CompileError(
                    e.index.pos,
                    f"a tuple index must be a constant in 0..{len(base.items) - 1}",
                )
            return base.items[index]
        if not isinstance(base, t.HeaderStack):
            raise CompileError(e.pos, f"cannot index a value of type {base}")
        self.expr(e.index, scope)
        index_type = _as_underlying(e.index)
        index = const_value(e.index)
        if index is None:
            # A run-time index (BMv2's dereference_header_stack); a negative one is
            # outside the stack, as a too large one is.
            if not isinstance(index_type, t.Bits):
                raise CompileError(e.index.pos, "a stack index must be a bit<W> or int<W> value")
            return base.element
        if not isinstance(index, int) or not 0 <= index < base.size:
            raise CompileError(e.index.pos, f"index out of the stack's bounds 0..{base.size - 1}")
        return base.element

    def struct_expression(self, e: ast.StructExpression, scope: Scope) -> t.Type:
        # Its own type until the context gives it a struct or header type (coerce).
        fields = []
        for name, value in e.fields:
            if any(n == name for n, _ in fields):
                raise CompileError(value.pos, f"field '{name}' is given twice")
            fields.append((name, self.expr(value, scope)))
        return t.StructLike("struct", "{...}", fields)

    def member(self, e: ast.Member, scope: Scope) -> t.Type:
        base = self.expr(e.expr, scope)
        base_sym = getattr(e.expr, "ref", None)
        is_type = isinstance(base_sym, Symbol) and base_sym.kind == "type"
        if is_type and isinstance(base, t.Error):
            if e.member not in self.errors:
                raise CompileError(e.pos, f"'{e.member}' is not an error")
            e.ref = Symbol("error_member", e.member, t.Error(), value=self.errors.index(e.member))
            return t.Error()
        if is_type and isinstance(base, t.Enum):
            if e.member not in base.members:
                raise CompileError(e.pos, f"'{e.member}' is not a member of {base}")
            value = base.values.get(e.member) if base.underlying else base.members.index(e.member)
            # A plain enum's member is numbered by position: only the back end sees it.
            e.ref = Symbol("enum_member", e.member, base, base.decl, value=value)
            return base
        # `C.apply(...)` on a control type is its direct invocation (spec: an instance
        # of its own, made where it is applied).
        if is_type and e.member in SIZE_METHODS and isinstance(base, t.StructLike):
            e.ref = size_symbol(e.member, base)
            return t.Void()
        if is_type and not (isinstance(base, t.BlockType) and e.member == "apply"):
            raise CompileError(e.pos, f"type {base} has no member '{e.member}'")
        if isinstance(base, t.StructLike):
            ft = base.field_type(e.member)
            if ft is not None:
                return ft
            # A union has isValid() only: its members are made valid one by one (spec 8.20).
            union_method = base.kind == "header_union" and e.member == "isValid"
            if (base.kind == "header" and e.member in HEADER_METHODS) or union_method:
                e.ref = Symbol("builtin", e.member, HEADER_METHODS[e.member])
                return t.Void()
            if e.member in SIZE_METHODS:
                e.ref = size_symbol(e.member, base)
                return t.Void()
            raise CompileError(e.pos, f"{base} has no field '{e.member}'")
        if isinstance(base, t.HeaderStack):
            return self.stack_member(e, base)
        if isinstance(base, t.Extern):
            methods = [
                m for m in base.decl.methods if m.name == e.member and m.return_type is not None
            ]
            if not methods:
                raise CompileError(e.pos, f"{base} has no method '{e.member}'")
            e.ref = Symbol("method", e.member, t.Void(), base.decl, overloads=methods)
            return t.Void()
        if isinstance(base, t.TableType):
            if e.member != "apply":
                raise CompileError(e.pos, f"a table has no member '{e.member}'")
            e.ref = Symbol("builtin", "apply", t.ApplyResult(base.decl))
            return t.Void()
        if isinstance(base, t.ApplyResult):
            if e.member in ("hit", "miss"):
                return t.Bool()
            if e.member == "action_run":
                return t.ActionEnum(base.table.name)
            raise CompileError(e.pos, f"a table apply result has no member '{e.member}'")
        if isinstance(base, t.BlockType) and base.kind == "control" and e.member == "apply":
            if not isinstance(base.decl, ast.ControlDeclaration):
                raise CompileError(e.pos, f"{base} has no implementation to apply")
            e.ref = Symbol("builtin", "apply_control", t.Void(), base.decl)
            return t.Void()
        if isinstance(base, t.BlockType) and base.kind in ("control", "parser"):
            raise CompileError(e.pos, f"applying a {base.kind} this way is not supported yet")
        raise CompileError(e.pos, f"{base} has no member '{e.member}'")

    def stack_member(self, e: ast.Member, stack: t.HeaderStack) -> t.Type:
        """Members of header stacks (spec 8.18)."""
        if e.member in ("next", "last"):
            if not isinstance(self.owner, ast.ParserDeclaration):
                raise CompileError(e.pos, f"'{e.member}' can only be used in a parser")
            return stack.element
        if e.member == "size":
            e.ref = Symbol("const", "size", t.Bits(32), value=stack.size)
            return t.Bits(32)
        if e.member in SIZE_METHODS:
            e.ref = size_symbol(e.member, stack)
            return t.Void()
        if e.member in ("push_front", "pop_front"):
            e.ref = Symbol("builtin", e.member, t.Void())
            return t.Void()
        if e.member == "lastIndex":
            if not isinstance(self.owner, ast.ParserDeclaration):
                raise CompileError(e.pos, "'lastIndex' can only be used in a parser")
            e.ref = Symbol("builtin", "lastIndex", t.Bits(32))
            return t.Bits(32)
        raise CompileError(e.pos, f"a header stack has no member '{e.member}'")

    def unary(self, e: ast.Unary, scope: Scope) -> t.Type:
        ty = self.expr(e.operand, scope)
        if e.op != "!":
            ty = _as_underlying(e.operand)
        if e.op == "!":
            self.coerce(e.operand, t.Bool())
            return t.Bool()
        if not t.is_numeric(ty):
            raise CompileError(e.pos, f"cannot apply '{e.op}' to a value of type {ty}")
        if e.op == "~" and isinstance(ty, t.InfInt):
            raise CompileError(e.pos, "'~' needs a value of known width")
        return ty

    def binary(self, e: ast.Binary, scope: Scope) -> t.Type:
        a = self.expr(e.left, scope)
        b = self.expr(e.right, scope)
        op = e.op
        if op in ("&&", "||"):
            self.coerce(e.left, t.Bool())
            self.coerce(e.right, t.Bool())
            return t.Bool()
        if op in ("==", "!="):
            self.unify_operands(e.left, e.right, e.pos)
            return t.Bool()
        # Other operators take a serializable enum as its underlying type (spec 8.9.2).
        a, b = _as_underlying(e.left), _as_underlying(e.right)
        if op == "++":
            if not isinstance(a, t.Bits) or not isinstance(b, t.Bits):
                raise CompileError(e.pos, "'++' needs two operands of known width")
            return t.Bits(a.width + b.width, a.signed)
        if op in ("<<", ">>"):
            if not t.is_numeric(a) or not t.is_numeric(b):
                raise CompileError(e.pos, f"cannot shift {a} by {b}")
            if isinstance(b, t.Bits) and b.signed:
                raise CompileError(e.right.pos, "a shift amount must be unsigned")
            if isinstance(a, t.InfInt) and not isinstance(b, t.InfInt):
                raise CompileError(
                    e.left.pos,
                    "the width of a shifted constant cannot be inferred; give it a width",
                )
            return a
        if not t.is_numeric(a) or not t.is_numeric(b):
            raise CompileError(e.pos, f"cannot apply '{op}' to {a} and {b}")
        self.unify_operands(e.left, e.right, e.pos)
        if op in ("<", ">", "<=", ">="):
            return t.Bool()
        if op in ("/", "%") and isinstance(e.left.type, t.Bits) and e.left.type.signed:
            raise CompileError(e.pos, f"'{op}' is not defined on signed values")
        if op in ("/", "%") and const_value(e.right) == 0:
            # p4c's constant folding refuses it even when the dividend is a run-time value.
            raise CompileError(e.pos, "division by zero" if op == "/" else "modulo by zero")
        return e.left.type

    def unify_operands(self, left: ast.Expression, right: ast.Expression, pos: SourcePos) -> None:
        a, b = left.type, right.type
        if isinstance(a, t.InfInt) and not isinstance(b, t.InfInt):
            self.coerce(left, b)
        elif isinstance(b, t.InfInt) and not isinstance(a, t.InfInt):
            self.coerce(right, a)
        elif isinstance(b, t.StructLike) and isinstance(
            left, ast.ListExpression | ast.StructExpression
        ):
            self.coerce(left, b)  # `{1, 2} == s`: the list is a value of s's type
        elif isinstance(a, t.StructLike) and isinstance(
            right, ast.ListExpression | ast.StructExpression
        ):
            self.coerce(right, a)
        elif isinstance(a, t.Enum) != isinstance(b, t.Enum) and _serializable_enum(a, b):
            # `E.a == x`: the enum value as its underlying bits (spec 8.9.2).
            _as_underlying(left)
            _as_underlying(right)
            self.unify_operands(left, right, pos)
        elif a != b and not t.same_stack_type(a, b):
            raise CompileError(pos, f"operands have different types: {a} and {b}")

    def cast(self, e: ast.Cast, scope: Scope) -> t.Type:
        target = self.resolve_type(e.type_ref, scope)
        src = self.expr(e.expr, scope)
        if isinstance(target, t.StructLike) and isinstance(
            e.expr, ast.StructExpression | ast.ListExpression
        ):
            # `(T){...}` gives an initializer its type (spec 8.13).
            self.coerce(e.expr, target)
            return target
        ok = (
            src == target
            or (isinstance(target, t.Bits) and isinstance(src, t.Bits | t.InfInt))
            or (isinstance(target, t.Bits) and isinstance(src, t.Bool) and target.width == 1)
            or (isinstance(target, t.Bool) and src == t.Bits(1))
            or (
                isinstance(target, t.Bool)
                and isinstance(src, t.InfInt)
                and const_value(e.expr) in (0, 1)
            )
            or (
                isinstance(target, t.Bits)
                and isinstance(src, t.Enum)
                and src.underlying is not None
            )
            # A serializable enum from its underlying type, any value of it (spec: enum types).
            or (
                isinstance(target, t.Enum)
                and target.underlying is not None
                and (src == target.underlying or isinstance(src, t.InfInt))
            )
        )
        if not ok:
            raise CompileError(e.pos, f"cannot cast {src} to {target}")
        return target


def _serializable_enum(*types: t.Type) -> bool:
    return any(isinstance(ty, t.Enum) and ty.underlying is not None for ty in types)


def _as_underlying(e: ast.Expression) -> t.Type:
    """`e`'s type, a serializable enum value taken as its underlying type: the implicit
    cast the spec makes wherever that type is wanted (8.9.2)."""
    if isinstance(e.type, t.Enum) and e.type.underlying is not None:
        e.type = e.type.underlying
    return e.type

"""Compile-time values: constant folding with the wrap-around of bit<W> and int<W>."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.typecheck.symbols import Symbol

# What a caller knows of values beyond the constants (parser unrolling's variables):
# the value of an expression, or None.
Known = Callable[[ast.Expression], int | None]


def const_value(expr: ast.Expression, known: Known | None = None) -> int | bool | None:
    """The compile-time value of `expr`, or None if it is not a constant; `known` gives
    the values of expressions that are not constants but are known here."""
    if known is not None and (v := known(expr)) is not None:
        return v
    if isinstance(expr, ast.IntLiteral):
        return expr.value
    if isinstance(expr, ast.BoolLiteral):
        return expr.value
    if isinstance(expr, ast.Name | ast.Member | ast.Call):
        sym = expr.ref
        if isinstance(sym, Symbol) and sym.kind in ("const", "enum_member", "error_member"):
            return sym.value if isinstance(sym.value, int) else None
        if isinstance(expr, ast.Member):
            item = aggregate_item(expr.expr, expr.member)
            return None if item is None else const_value(item)
        return None
    if isinstance(expr, ast.Index):
        index = const_value(expr.index, known)
        item = aggregate_item(expr.expr, index) if isinstance(index, int) else None
        return None if item is None else const_value(item)
    if isinstance(expr, ast.Cast):
        v = const_value(expr.expr, known)
        if isinstance(v, bool) and isinstance(expr.type, t.Bits):
            return int(v)
        if isinstance(v, int) and isinstance(expr.type, t.Bits):
            return wrap(v, expr.type)
        return v
    if isinstance(expr, ast.Unary):
        v = const_value(expr.operand, known)
        if v is None:
            return None
        if expr.op == "!":
            return not v
        if expr.op == "-":
            return wrap(-int(v), expr.type)
        if expr.op == "~":
            return wrap(~int(v), expr.type)
        return v
    if isinstance(expr, ast.Binary):
        a, b = const_value(expr.left, known), const_value(expr.right, known)
        if a is None or b is None:
            return None
        return _fold(expr.op, a, b, expr.right.type, expr.type)
    if isinstance(expr, ast.Slice):
        v, hi, lo = (
            const_value(expr.expr, known),
            const_value(expr.hi, known),
            const_value(expr.lo, known),
        )
        if isinstance(v, int) and isinstance(hi, int) and isinstance(lo, int):
            # Two's complement bits of the value (an int<W> or a negative int too).
            return (v >> lo) & ((1 << (hi - lo + 1)) - 1)
        return None
    return None


def constant_aggregate(expr: ast.Expression) -> ast.Expression | None:
    """The initializer a constant of struct, header or tuple type stands for: `expr`
    itself if it is one, or what a constant's name or a field of one holds."""
    if isinstance(expr, ast.ListExpression | ast.StructExpression | ast.InvalidHeader):
        return expr
    if isinstance(expr, ast.Cast):
        return constant_aggregate(expr.expr)
    sym = getattr(expr, "ref", None)
    if isinstance(sym, Symbol) and sym.kind == "const" and isinstance(sym.value, ast.Expression):
        return constant_aggregate(sym.value)
    if isinstance(expr, ast.Member):
        item = aggregate_item(expr.expr, expr.member)
        return None if item is None else constant_aggregate(item)
    if isinstance(expr, ast.Index):
        index = const_value(expr.index)
        item = aggregate_item(expr.expr, index) if isinstance(index, int) else None
        return None if item is None else constant_aggregate(item)
    return None


def aggregate_item(expr: ast.Expression, key: str | int) -> ast.Expression | None:
    """Field `key` (a name, or a tuple's position) of a constant aggregate `expr`."""
    agg = constant_aggregate(expr)
    if isinstance(agg, ast.StructExpression) and isinstance(key, str):
        return dict(agg.fields).get(key)
    if isinstance(agg, ast.ListExpression):
        names = [n for n, _ in agg.type.fields] if isinstance(agg.type, t.StructLike) else None
        position = names.index(key) if names and key in names else key
        if isinstance(position, int) and 0 <= position < len(agg.items):
            return agg.items[position]
    return None


def wrap(v: int, ty: t.Type | None) -> int:
    """v as a value of type ty: bit<W> and int<W> wrap around; other types keep it."""
    if isinstance(ty, t.Bits):
        v &= (1 << ty.width) - 1
        if ty.signed and v >> (ty.width - 1):
            v -= 1 << ty.width
    return v


def _fold(op: str, a: Any, b: Any, tb: t.Type, ty: t.Type) -> int | bool | None:
    """`a op b` at compile time; `tb` is the right operand's type (for `++`)."""
    simple = {
        "+": lambda: a + b,
        "-": lambda: a - b,
        "*": lambda: a * b,
        "/": lambda: a // b if b else None,
        "%": lambda: a % b if b else None,
        "&": lambda: a & b,
        "|": lambda: a | b,
        "^": lambda: a ^ b,
        "<<": lambda: a << b,
        ">>": lambda: a >> b,
        "==": lambda: a == b,
        "!=": lambda: a != b,
        "<": lambda: a < b,
        ">": lambda: a > b,
        "<=": lambda: a <= b,
        ">=": lambda: a >= b,
        "&&": lambda: a and b,
        "||": lambda: a or b,
    }
    if op == "++" and isinstance(tb, t.Bits):
        return (a << tb.width) | (b & ((1 << tb.width) - 1))
    if op not in simple:
        return None
    v = simple[op]()
    return wrap(v, ty) if isinstance(v, int) and not isinstance(v, bool) else v

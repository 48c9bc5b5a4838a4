"""Implicit conversions: a value given the type its context wants, inferring the width
of unsized constants (spec 8.9.2) and the type of initializers `{...}`."""

from __future__ import annotations

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.typecheck.constants import const_value


class Coercion:
    """A mixin of `Checker`."""

    def coerce(self, e: ast.Expression, want: t.Type) -> None:
        """Give `e` the type `want`, inferring literal widths; otherwise a type error."""
        got = e.type
        if isinstance(e, ast.Dots):
            if isinstance(want, t.DontCareType | t.TypeVar):
                raise CompileError(e.pos, "the type of this default value '...' is not known")
            e.value = self.default_value(want, e.pos)
            e.type = want
            return
        if isinstance(e, ast.ListExpression | ast.StructExpression) and e.dots:
            self.default_items(e, want)
        if got == want or isinstance(want, t.DontCareType | t.TypeVar):
            return
        if t.same_stack_type(got, want) or t.same_extern_type(got, want):
            return
        if isinstance(got, t.InfInt) and isinstance(want, t.Bits):
            self.retype_constant(e, want)
            return
        if isinstance(got, t.Enum) and got.underlying == want:
            # A serializable enum is implicitly its underlying type wherever that is
            # wanted (spec 8.9.2, "Implicit casts"); the two are the same bits.
            e.type = want
            return
        is_struct_like = isinstance(want, t.StructLike)
        if is_struct_like and isinstance(e, ast.InvalidHeader) and want.kind != "struct":
            e.type = want
            return
        if (
            is_struct_like
            and want.kind != "header_union"
            and isinstance(e, ast.ListExpression | ast.StructExpression)
        ):
            self.coerce_initializer(e, want)
            return
        if (
            isinstance(want, t.Tuple)
            and isinstance(e, ast.ListExpression)
            and len(want.items) == len(e.items)
        ):
            for item, it in zip(e.items, want.items, strict=True):
                self.coerce(item, it)
            e.items = [_without_dots(v) for v in e.items]
            e.type = want
            return
        found = "an invalid header {#}" if isinstance(e, ast.InvalidHeader) else str(got)
        raise CompileError(e.pos, f"expected a value of type {want}, found {found}")

    def coerce_initializer(
        self, e: ast.ListExpression | ast.StructExpression, want: t.StructLike
    ) -> None:
        """`{a, b}` (by position) or `{x = a, y = b}` (by name) as a value of `want`."""
        names = [n for n, _ in want.fields]
        if isinstance(e, ast.ListExpression):
            if len(e.items) != len(names):
                raise CompileError(
                    e.pos, f"{want} has {len(names)} fields; this list has {len(e.items)}"
                )
            values = list(e.items)
        else:
            given = dict(e.fields)
            missing = [n for n in names if n not in given]
            extra = [n for n in given if n not in names]
            if missing or extra:
                what = f"no field '{extra[0]}'" if extra else f"field '{missing[0]}' is missing"
                raise CompileError(e.pos, f"{want}: {what}")
            values = [given[n] for n in names]
        for value, (_, ft) in zip(values, want.fields, strict=True):
            self.coerce(value, ft)
        # A field's `...` is its default value from here on.
        if isinstance(e, ast.ListExpression):
            e.items = [_without_dots(v) for v in e.items]
        else:
            e.fields = [(n, _without_dots(v)) for n, v in e.fields]
        e.type = want

    def retype_constant(self, e: ast.Expression, want: t.Bits) -> None:
        value = const_value(e)
        if value is None:
            raise CompileError(e.pos, f"cannot give this expression type {want}")
        e.type = want
        # Sub-expressions of an unsized constant take the same width (spec 8.9.2).
        if isinstance(e, ast.Binary) and e.op not in ("<<", ">>"):
            for side in (e.left, e.right):
                if isinstance(side.type, t.InfInt):
                    self.retype_constant(side, want)
        elif isinstance(e, ast.Unary | ast.Ternary):
            for child in (
                getattr(e, "operand", None),
                getattr(e, "then", None),
                getattr(e, "otherwise", None),
            ):
                if child is not None and isinstance(child.type, t.InfInt):
                    self.retype_constant(child, want)


def _without_dots(e: ast.Expression) -> ast.Expression:
    return e.value if isinstance(e, ast.Dots) and e.value is not None else e

"""Default values (P4_16 1.2.4): `...` as a value, and `{a, ...}` or `{x = a, ...}`
whose missing items take the defaults of their types.  A bit<W> or int<W> is 0, a
bool false, an error error.NoError, an enum its first member (a serializable enum 0,
named or not), a header or union invalid, a stack all invalid with nextIndex 0, a
struct or tuple its items' defaults; `{...}` for a header is valid with every field at
its default."""

from __future__ import annotations

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError, SourcePos


class Defaults:
    """A mixin of `Checker`."""

    def default_value(self, ty: t.Type, pos: SourcePos) -> ast.Expression:
        """A checked expression holding the default value of `ty`."""
        e: ast.Expression
        if isinstance(ty, t.Bits):
            e = ast.IntLiteral(pos, 0, ty.width, ty.signed)
        elif isinstance(ty, t.Bool):
            e = ast.BoolLiteral(pos, False)
        elif isinstance(ty, t.Error):
            return self.checked(ast.Member(pos, ast.Name(pos, "error"), "NoError"))
        elif isinstance(ty, t.Enum) and ty.underlying is not None:
            zero = ast.IntLiteral(pos, 0, None, False)
            return self.checked(ast.Cast(pos, ast.NamedTypeRef(pos, ty.name), zero))
        elif isinstance(ty, t.Enum):
            return self.checked(ast.Member(pos, ast.Name(pos, ty.name), ty.members[0]))
        elif isinstance(ty, t.HeaderStack) or isinstance(ty, t.StructLike) and ty.kind != "struct":
            # Every header invalid (and a stack's nextIndex 0), as `{#}` is assigned.
            e = ast.InvalidHeader(pos)
        elif isinstance(ty, t.StructLike) and ty.kind == "struct":
            e = ast.StructExpression(pos, [(n, self.default_value(ft, pos)) for n, ft in ty.fields])
        elif isinstance(ty, t.Tuple):
            e = ast.ListExpression(pos, [self.default_value(it, pos) for it in ty.items])
        else:
            raise CompileError(pos, f"a default value '...' of type {ty} is not supported yet")
        e.type = ty
        return e

    def checked(self, e: ast.Expression) -> ast.Expression:
        self.expr(e, self.globals)
        return e

    def default_items(self, e: ast.ListExpression | ast.StructExpression, want: t.Type) -> None:
        """Complete `{a, ...}` or `{x = a, ...}` as a value of `want` with defaults."""
        if isinstance(want, t.Tuple):
            fields = [(str(i), it) for i, it in enumerate(want.items)]
        elif isinstance(want, t.StructLike) and want.kind != "header_union":
            fields = want.fields
        else:
            raise CompileError(e.pos, f"'...' in an initializer of type {want}")
        if isinstance(e, ast.ListExpression):
            if len(e.items) > len(fields):
                raise CompileError(
                    e.pos, f"{want} has {len(fields)} fields; this list has {len(e.items)}"
                )
            e.items += [self.default_value(ft, e.pos) for _, ft in fields[len(e.items) :]]
        else:
            given = {n for n, _ in e.fields}
            e.fields += [(n, self.default_value(ft, e.pos)) for n, ft in fields if n not in given]
        e.dots = False

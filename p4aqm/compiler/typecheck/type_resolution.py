"""Types: written type references resolved, and header, struct, union and enum
declarations turned into `types` values."""

from __future__ import annotations

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.typecheck.constants import const_value
from p4aqm.compiler.typecheck.symbols import Scope

# v1model externs whose omitted index type parameter `I` means bit<32>.
INDEXED_EXTERNS = ("register", "counter", "meter")


def _fixed_width(ty: t.Type) -> bool:
    """A type a header field may have besides varbit: bit<W>, int<W>, bool, a
    serializable enum, or a struct of these (spec: type nesting rules)."""
    if isinstance(ty, t.Bits | t.Bool):
        return True
    if isinstance(ty, t.Enum):
        return ty.underlying is not None
    if isinstance(ty, t.StructLike) and ty.kind == "struct":
        return all(_fixed_width(ft) for _, ft in ty.fields)
    return False


class TypeResolution:
    """A mixin of `Checker`; widths and sizes are checked with its `expr`."""

    def resolve_type(
        self, ref: ast.TypeRef, scope: Scope, tvars: dict[str, t.Type] | None = None
    ) -> t.Type:
        tvars = tvars or {}
        if isinstance(ref, ast.BaseTypeRef):
            simple: dict[str, t.Type] = {
                "bool": t.Bool(),
                "error": t.Error(),
                "string": t.String(),
                "void": t.Void(),
                "match_kind": t.MatchKind(),
            }
            if ref.kind in simple:
                return simple[ref.kind]
            if ref.width is None:
                return t.Bits(1) if ref.kind == "bit" else t.InfInt()
            self.expr(ref.width, scope)
            width = const_value(ref.width)
            if not isinstance(width, int) or isinstance(width, bool) or width < 0:
                raise CompileError(ref.width.pos, "a width must be a non-negative constant")
            if ref.kind == "varbit":
                return t.Varbit(width)
            if ref.kind == "int" and width == 0:
                raise CompileError(ref.pos, "int<0> is not a valid type")
            return t.Bits(width, ref.kind == "int")
        if isinstance(ref, ast.NamedTypeRef):
            if ref.name in tvars and not ref.is_global:
                return tvars[ref.name]
            sym = (scope.root() if ref.is_global else scope).lookup(ref.name)
            if sym is None or sym.kind != "type":
                raise CompileError(ref.pos, f"'{ref.name}' is not a type")
            ty = sym.type
            if isinstance(ty, t.Extern):
                return self.specialize_extern(ty, ref, scope, tvars)
            if isinstance(ty, t.BlockType) and ref.args:
                return t.BlockType(
                    ty.kind,
                    ty.name,
                    ty.decl,
                    dict(
                        zip(
                            ty.decl.type_params,
                            [self.resolve_type(a, scope, tvars) for a in ref.args],
                            strict=False,
                        )
                    ),
                )
            if isinstance(ty, t.StructLike) and getattr(ty.decl, "type_params", None):
                # generic_types.py specialised every use with concrete arguments.
                raise CompileError(
                    ref.pos,
                    f"generic {ty.kind} '{ref.name}' needs concrete type arguments here"
                    " (type variables are not supported as its arguments)",
                )
            if ref.args:
                raise CompileError(ref.pos, f"'{ref.name}' takes no type arguments")
            return ty
        if isinstance(ref, ast.StackTypeRef):
            element = self.resolve_type(ref.element, scope, tvars)
            # A stack holds headers or header unions (spec 7.2.3, header stacks).
            if not (isinstance(element, t.StructLike) and element.kind != "struct"):
                raise CompileError(ref.pos, f"stacks of {element} are not supported yet")
            self.expr(ref.size, scope)
            size = const_value(ref.size)
            if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
                raise CompileError(ref.size.pos, "a stack size must be a positive constant")
            return t.HeaderStack(element, size)
        if isinstance(ref, ast.TupleTypeRef):
            return t.Tuple(tuple(self.resolve_type(a, scope, tvars) for a in ref.args))
        if isinstance(ref, ast.DontCareTypeRef):
            return t.DontCareType()
        raise CompileError(ref.pos, "unsupported type")

    def specialize_extern(
        self, ty: t.Extern, ref: ast.NamedTypeRef, scope: Scope, tvars: dict[str, t.Type]
    ) -> t.Extern:
        params = ty.decl.type_params
        if len(ref.args) > len(params):
            raise CompileError(ref.pos, f"'{ref.name}' takes {len(params)} type arguments")
        args = [self.resolve_type(a, scope, tvars) for a in ref.args]
        # Missing type arguments are inferred from the first method call that fixes them,
        # except the index type of v1model's arrays: p4c's v1model indexes them with
        # bit<32> when it is not given, so `r.read(x, 0)` is legal.
        bound = {
            p: (
                args[i]
                if i < len(args)
                else t.Bits(32)
                if p == "I" and ty.name in INDEXED_EXTERNS
                else t.TypeVar(p, id(ref))
            )
            for i, p in enumerate(params)
        }
        return t.Extern(ty.name, ty.decl, bound)

    def struct_type(
        self,
        decl: ast.HeaderDeclaration | ast.StructDeclaration | ast.HeaderUnionDeclaration,
        scope: Scope,
    ) -> t.StructLike:
        kind = (
            "header"
            if isinstance(decl, ast.HeaderDeclaration)
            else "header_union"
            if isinstance(decl, ast.HeaderUnionDeclaration)
            else "struct"
        )
        if decl.type_params:
            # Only its specialisations (generic_types.py) have fields.
            return t.StructLike(kind, decl.name, [], decl)
        fields: list[tuple[str, t.Type]] = []
        for f in decl.fields:
            if any(n == f.name for n, _ in fields):
                raise CompileError(f.pos, f"duplicate field '{f.name}'")
            ft = self.resolve_type(f.type_ref, scope)
            if kind == "header" and not (isinstance(ft, t.Varbit) or _fixed_width(ft)):
                raise CompileError(f.type_ref.pos, f"a header field cannot have type {ft}")
            if isinstance(ft, t.Varbit) and any(isinstance(x, t.Varbit) for _, x in fields):
                raise CompileError(f.type_ref.pos, "a header can have only one varbit field")
            if kind == "header_union" and not (
                isinstance(ft, t.StructLike) and ft.kind == "header"
            ):
                raise CompileError(f.type_ref.pos, "a header union can only hold headers")
            fields.append((f.name, ft))
        return t.StructLike(kind, decl.name, fields, decl)

    def enum_type(self, decl: ast.EnumDeclaration, scope: Scope) -> t.Enum:
        underlying = None
        if decl.underlying is not None:
            u = self.resolve_type(decl.underlying, scope)
            if not isinstance(u, t.Bits):
                raise CompileError(
                    decl.underlying.pos, "an enum's underlying type must be bit<W> or int<W>"
                )
            underlying = u
        enum = t.Enum(decl.name, [m for m, _, _ in decl.members], underlying, decl=decl)
        seen: set[str] = set()
        for name, value, pos in decl.members:
            if name in seen:
                raise CompileError(pos, f"'{name}' is already declared")
            seen.add(name)
            if underlying is None:
                continue
            if value is None:
                raise CompileError(pos, f"member '{name}' of a serializable enum needs a value")
            self.expr(value, scope)
            self.coerce(value, underlying)
            v = const_value(value)
            if not isinstance(v, int):
                raise CompileError(value.pos, "an enum value must be a constant")
            enum.values[name] = v
        return enum

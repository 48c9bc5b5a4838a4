"""Declarations at top level and inside parsers, controls, actions and functions: each
becomes a symbol of its scope, and bodies are checked in the scope they open."""

from __future__ import annotations

from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError, SourcePos
from p4aqm.compiler.typecheck.constants import const_value, constant_aggregate
from p4aqm.compiler.typecheck.parser_states import value_set_fields
from p4aqm.compiler.typecheck.symbols import Scope, Symbol


class Declarations:
    """A mixin of `Checker`."""

    globals: Scope
    errors: list[str]
    match_kinds: list[str]
    owner: Any
    function_return: t.Type | None

    def declare(self, scope: Scope, sym: Symbol, pos: SourcePos) -> None:
        old = scope.names.get(sym.name)
        if old is not None:
            if sym.kind == "extern_function" and old.kind == "extern_function":
                old.overloads.extend(sym.overloads)
                return
            if {sym.kind, old.kind} == {"type", "extern_function"}:
                # p4c accepts a type named as an extern function (p4c's issue1670-bmv2
                # names its checksum control verify_checksum): a call means the function.
                named, function = (sym, old) if sym.kind == "type" else (old, sym)
                named.function = function
                scope.names[sym.name] = named
                return
            if {sym.kind, old.kind} in (
                {"action", "extern_function"},
                {"function", "extern_function"},
            ):
                # p4c overloads by argument count (an action named `hash` beside
                # v1model's): the name is the action or function, which knows the extern.
                named, function = (old, sym) if sym.kind == "extern_function" else (sym, old)
                named.function = function
                scope.names[sym.name] = named
                return
            raise CompileError(pos, f"'{sym.name}' is already declared")
        scope.names[sym.name] = sym

    def top_level(self, decl: ast.Declaration) -> None:
        g = self.globals
        if isinstance(decl, ast.ErrorDeclaration | ast.MatchKindDeclaration):
            is_error = isinstance(decl, ast.ErrorDeclaration)
            target = self.errors if is_error else self.match_kinds
            for name, pos in decl.members:
                if name in target:
                    raise CompileError(pos, f"'{name}' is already declared")
                target.append(name)
                if not is_error:
                    self.declare(g, Symbol("match_kind", name, t.MatchKind(), decl), pos)
        elif isinstance(decl, ast.ConstantDeclaration):
            self.declare(g, self.constant(decl, g), decl.pos)
        elif isinstance(
            decl, ast.HeaderDeclaration | ast.StructDeclaration | ast.HeaderUnionDeclaration
        ):
            self.declare(g, Symbol("type", decl.name, self.struct_type(decl, g), decl), decl.pos)
            for f in decl.fields:
                # v1model's `@field_list(E.a)` may name its index by a constant or enum.
                anno = ast.find_annotation(f.annotations, "field_list")
                for e in anno.exprs if anno else []:
                    self.expr(e, g)
        elif isinstance(decl, ast.EnumDeclaration):
            self.declare(g, Symbol("type", decl.name, self.enum_type(decl, g), decl), decl.pos)
        elif isinstance(decl, ast.TypedefDeclaration):
            ty = self.resolve_type(decl.type_ref, g)
            self.declare(g, Symbol("type", decl.name, ty, decl), decl.pos)
        elif isinstance(decl, ast.ExternDeclaration):
            self.declare(g, Symbol("type", decl.name, t.Extern(decl.name, decl), decl), decl.pos)
        elif isinstance(decl, ast.ExternFunctionDeclaration):
            sym = Symbol("extern_function", decl.name, t.Void(), decl, overloads=[decl.prototype])
            self.declare(g, sym, decl.pos)
        elif isinstance(decl, ast.ParserTypeDeclaration | ast.ControlTypeDeclaration):
            kind = "parser" if isinstance(decl, ast.ParserTypeDeclaration) else "control"
            self.declare(
                g, Symbol("type", decl.name, t.BlockType(kind, decl.name, decl), decl), decl.pos
            )
        elif isinstance(decl, ast.PackageTypeDeclaration):
            ty = t.BlockType("package", decl.name, decl)
            self.declare(g, Symbol("type", decl.name, ty, decl), decl.pos)
        elif isinstance(decl, ast.ActionDeclaration):
            self.declare(g, Symbol("action", decl.name, t.ActionType(), decl), decl.pos)
            self.action(decl, g)
        elif isinstance(decl, ast.ParserDeclaration | ast.ControlDeclaration):
            kind = "parser" if isinstance(decl, ast.ParserDeclaration) else "control"
            self.declare(
                g, Symbol("type", decl.name, t.BlockType(kind, decl.name, decl), decl), decl.pos
            )
            self.block(decl, g)
        elif isinstance(decl, ast.Instantiation):
            self.instantiation(decl, g)
        elif isinstance(decl, ast.FunctionDeclaration):
            self.function(decl, g)
        else:
            raise CompileError(decl.pos, f"{type(decl).__name__} is not supported yet")

    def constant(self, decl: ast.ConstantDeclaration, scope: Scope) -> Symbol:
        ty = self.resolve_type(decl.type_ref, scope)
        self.expr(decl.value, scope)
        self.coerce(decl.value, ty)
        if isinstance(decl.value, ast.Dots) and decl.value.value is not None:
            decl.value = decl.value.value
        value: Any = const_value(decl.value)
        if isinstance(ty, t.StructLike | t.Tuple) and _constant_aggregate(decl.value):
            value = decl.value  # uses become copies of it (replacements.py)
        if value is None:
            raise CompileError(
                decl.value.pos, "the value of a constant must be a compile-time constant"
            )
        return Symbol("const", decl.name, ty, decl, value=value, owner=self.owner)

    def params(
        self, params: list[ast.Parameter], scope: Scope, tvars: dict[str, t.Type] | None = None
    ) -> None:
        for p in params:
            ty = self.resolve_type(p.type_ref, scope, tvars)
            p.resolved = ty
            self.declare(
                scope,
                Symbol("param", p.name, ty, p, direction=p.direction, owner=self.owner),
                p.pos,
            )

    def ctor_params(self, params: list[ast.Parameter], scope: Scope) -> None:
        """A control's constructor parameters: read-only values that each instance
        binds to compile-time constants (spec 15.1); the back end substitutes them."""
        for p in params:
            if p.direction:
                raise CompileError(p.pos, "a constructor parameter cannot have a direction")
            ty = self.resolve_type(p.type_ref, scope)
            if not isinstance(ty, t.Bits | t.Bool):
                raise CompileError(
                    p.type_ref.pos, f"constructor parameters of type {ty} are not supported yet"
                )
            p.resolved = ty
            self.declare(scope, Symbol("ctor_param", p.name, ty, p, owner=self.owner), p.pos)

    def action(self, decl: ast.ActionDeclaration, scope: Scope) -> None:
        outer = self.owner
        self.owner = decl
        inner = Scope(scope)
        self.params(decl.params, inner)
        self.stmts(decl.body.stmts, Scope(inner))
        self.owner = outer

    def function(self, decl: ast.FunctionDeclaration, scope: Scope) -> None:
        proto = decl.prototype
        if proto.type_params:
            raise CompileError(decl.pos, "generic functions are not supported yet")
        assert proto.return_type is not None
        ret = self.resolve_type(proto.return_type, scope)
        self.declare(scope, Symbol("function", decl.name, ret, decl), decl.pos)
        outer, outer_ret = self.owner, self.function_return
        self.owner, self.function_return = decl, ret
        inner = Scope(scope)
        self.params(proto.params, inner)
        self.stmts(decl.body.stmts, Scope(inner))
        self.owner, self.function_return = outer, outer_ret

    def block(self, decl: ast.ParserDeclaration | ast.ControlDeclaration, scope: Scope) -> None:
        if decl.type_params:
            raise CompileError(decl.pos, "generic parsers and controls are not supported yet")
        if decl.ctor_params and isinstance(decl, ast.ParserDeclaration):
            raise CompileError(
                decl.ctor_params[0].pos, "constructor parameters of parsers are not supported yet"
            )
        self.owner = decl
        inner = Scope(scope)
        self.ctor_params(decl.ctor_params, inner)
        self.params(decl.params, inner)
        for local in decl.locals:
            self.local(local, inner)
        if isinstance(decl, ast.ParserDeclaration):
            self.parser_states(decl, inner)
        else:
            self.stmts(decl.body.stmts, Scope(inner))
        self.owner = None

    def local(self, decl: ast.Declaration, scope: Scope) -> None:
        if isinstance(decl, ast.ConstantDeclaration):
            self.declare(scope, self.constant(decl, scope), decl.pos)
        elif isinstance(decl, ast.VariableDeclaration):
            self.variable(decl, scope)
        elif isinstance(decl, ast.ActionDeclaration):
            self.declare(
                scope, Symbol("action", decl.name, t.ActionType(), decl, owner=self.owner), decl.pos
            )
            self.action(decl, scope)
        elif isinstance(decl, ast.TableDeclaration):
            self.declare(
                scope,
                Symbol("table", decl.name, t.TableType(decl), decl, owner=self.owner),
                decl.pos,
            )
            self.table(decl, scope)
        elif isinstance(decl, ast.Instantiation):
            self.instantiation(decl, scope)
        elif isinstance(decl, ast.ValueSetDeclaration):
            self.value_set(decl, scope)
        else:
            raise CompileError(decl.pos, f"{type(decl).__name__} is not allowed here")

    def value_set(self, decl: ast.ValueSetDeclaration, scope: Scope) -> None:
        """`value_set<T>(size) name;` in a parser: T is bit<W> or a struct of bit<W>
        fields (what P4Runtime can express), and the size a constant."""
        if not isinstance(self.owner, ast.ParserDeclaration):
            raise CompileError(decl.pos, "a value set can only be declared in a parser")
        ty = self.resolve_type(decl.type_ref, scope)
        fields = value_set_fields(ty)
        if fields is None:
            raise CompileError(
                decl.type_ref.pos,
                f"a value set holds bit<W> or a struct of bit<W> fields, not {ty}",
            )
        self.expr(decl.size, scope)
        size = const_value(decl.size)
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            raise CompileError(decl.size.pos, "a value set's size must be a positive constant")
        self.value_set_matches(ty)
        decl.resolved = ty
        self.declare(scope, Symbol("value_set", decl.name, ty, decl, owner=self.owner), decl.pos)

    def value_set_matches(self, ty: t.Type) -> None:
        """The `@match` of each field of a value set's struct, nested structs' too."""
        if isinstance(ty, t.StructLike) and isinstance(ty.decl, ast.StructDeclaration):
            for (_, ft), f in zip(ty.fields, ty.decl.fields, strict=True):
                self.value_set_match(f)
                self.value_set_matches(ft)

    def value_set_match(self, f: ast.StructField) -> None:
        """A value set's struct field may say how it is matched, `@match(ternary)` (P4_16
        spec 13.6, value sets; P4Info gives it as the member field's match type)."""
        anno = ast.find_annotation(f.annotations, "match")
        if anno is None:
            return
        kinds = anno.exprs or []
        if len(kinds) != 1 or not isinstance(kinds[0], ast.Name):
            raise CompileError(anno.pos, "@match takes one match kind, e.g. @match(ternary)")
        if kinds[0].name not in self.match_kinds:
            raise CompileError(kinds[0].pos, f"'{kinds[0].name}' is not a match kind")

    def variable(self, decl: ast.VariableDeclaration, scope: Scope) -> None:
        if decl.name == "_":
            # `_` is the don't-care of arguments and keysets (p4c's ValidateParsedProgram).
            raise CompileError(decl.pos, "'_' is an illegal variable name")
        ty = self.resolve_type(decl.type_ref, scope)
        decl.resolved = ty
        if decl.init is not None:
            self.expr(decl.init, scope)
            self.coerce(decl.init, ty)
        self.declare(scope, Symbol("var", decl.name, ty, decl, owner=self.owner), decl.pos)


def _constant_aggregate(e: ast.Expression) -> bool:
    """Whether `e` is a struct, header or tuple value made of compile-time constants."""
    agg = constant_aggregate(e)
    if isinstance(agg, ast.InvalidHeader):
        return True
    if isinstance(agg, ast.StructExpression):
        items = [v for _, v in agg.fields]
    elif isinstance(agg, ast.ListExpression):
        items = agg.items
    else:
        return False
    return all(_constant_aggregate(i) or const_value(i) is not None for i in items)

"""Name resolution and type checking (spec sections 6.8, 7, 8).

The checker walks the tree once, in declaration order (P4 requires declaration before
use), fills `Expression.type` and the `ref` of names, members and calls, and infers the
width of unsized integer literals from their context.  Whatever the back ends cannot yet
compile is rejected here by name ("... are not supported yet") with a position, so that
an unsupported program never turns into wrong JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p4compiler import ast
from p4compiler import types as t
from p4compiler.diagnostics import CompileError, SourcePos

# v1model table properties that attach a direct resource, and the extern they need.
DIRECT_RESOURCES = {"counters": "direct_counter", "meters": "direct_meter"}
# v1model externs whose omitted index type parameter `I` means bit<32>.
INDEXED_EXTERNS = ("register", "counter", "meter")
# Methods every header has (spec 8.17).
HEADER_METHODS = {"isValid": t.Bool(), "setValid": t.Void(), "setInvalid": t.Void()}


@dataclass(eq=False)
class Symbol:
    """What a name means.  `kind` is one of: type, const, param, var, action, table,
    instance, function, extern_function, state, enum_member, error_member, match_kind,
    ctor_param (a control's constructor parameter),
    method, builtin."""

    kind: str
    name: str
    type: t.Type
    decl: Any = None
    value: Any = None  # compile-time value of constants and enum/error members
    direction: str = ""  # parameters
    overloads: list[ast.FunctionPrototype] = field(default_factory=list)
    owner: Any = None  # the enclosing parser/control/action declaration, if any


class Scope:
    def __init__(self, parent: Scope | None = None) -> None:
        self.parent = parent
        self.names: dict[str, Symbol] = {}

    def lookup(self, name: str) -> Symbol | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def root(self) -> Scope:
        return self if self.parent is None else self.parent.root()


@dataclass
class BlockInstance:
    """A parser or control passed to the package, with its arguments' types bound."""

    param: str  # the package parameter it is bound to
    decl: ast.ParserDeclaration | ast.ControlDeclaration


@dataclass
class CheckedProgram:
    program: ast.Program
    errors: list[str]
    match_kinds: list[str]
    package: ast.PackageTypeDeclaration
    blocks: list[BlockInstance]
    globals: Scope


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


def as_action_call(e: ast.Expression) -> ast.Expression:
    """A table's default action or entry action written as a bare name (`NoAction`), as
    p4c accepts it: the call with no arguments."""
    if isinstance(e, ast.Name):
        return ast.Call(e.pos, e, [], [])
    return e


def referenced(e: ast.Expression) -> Any:
    """The declaration a checked name (or member naming an object) refers to."""
    sym = getattr(e, "ref", None)
    if not isinstance(sym, Symbol) or sym.decl is None:
        raise CompileError(e.pos, "internal: this name was not resolved")
    return sym.decl


def value_set_fields(ty: t.Type) -> list[t.Type] | None:
    """The bit<W> parts of a value set's element type, in key order; None if T is
    not bit<W> or a struct of bit<W> fields."""
    if isinstance(ty, t.Bits) and not ty.signed:
        return [ty]
    if isinstance(ty, t.StructLike) and ty.kind == "struct" and ty.fields:
        parts = [ft for _, ft in ty.fields]
        if all(isinstance(ft, t.Bits) and not ft.signed for ft in parts):
            return parts
    return None


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


def const_value(expr: ast.Expression) -> int | bool | None:
    """The compile-time value of `expr`, or None if it is not a constant."""
    if isinstance(expr, ast.IntLiteral):
        return expr.value
    if isinstance(expr, ast.BoolLiteral):
        return expr.value
    if isinstance(expr, ast.Name | ast.Member):
        sym = expr.ref
        if isinstance(sym, Symbol) and sym.kind in ("const", "enum_member", "error_member"):
            return sym.value
        return None
    if isinstance(expr, ast.Cast):
        v = const_value(expr.expr)
        if isinstance(v, bool) and isinstance(expr.type, t.Bits):
            return int(v)
        if isinstance(v, int) and isinstance(expr.type, t.Bits):
            return _wrap(v, expr.type)
        return v
    if isinstance(expr, ast.Unary):
        v = const_value(expr.operand)
        if v is None:
            return None
        if expr.op == "!":
            return not v
        if expr.op == "-":
            return _wrap(-int(v), expr.type)
        if expr.op == "~":
            return _wrap(~int(v), expr.type)
        return v
    if isinstance(expr, ast.Binary):
        a, b = const_value(expr.left), const_value(expr.right)
        if a is None or b is None:
            return None
        return _fold(expr.op, a, b, expr.right.type, expr.type)
    if isinstance(expr, ast.Slice):
        v, hi, lo = const_value(expr.expr), const_value(expr.hi), const_value(expr.lo)
        if isinstance(v, int) and isinstance(hi, int) and isinstance(lo, int):
            # Two's complement bits of the value (an int<W> or a negative int too).
            return (v >> lo) & ((1 << (hi - lo + 1)) - 1)
        return None
    return None


def _wrap(v: int, ty: t.Type | None) -> int:
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
    return _wrap(v, ty) if isinstance(v, int) and not isinstance(v, bool) else v


class Checker:
    def __init__(self) -> None:
        self.globals = Scope()
        self.errors: list[str] = []
        self.match_kinds: list[str] = []
        self.main: ast.Instantiation | None = None
        self.blocks: list[BlockInstance] = []
        self.package: ast.PackageTypeDeclaration | None = None
        # The enclosing parser, control or action: what is legal depends on it (exit,
        # table application, stack `next`, ...).
        self.owner: Any = None
        # The return type of the function being checked.
        self.function_return: t.Type | None = None

    # ---- entry point ---------------------------------------------------------------

    def check(self, program: ast.Program) -> CheckedProgram:
        for decl in program.declarations:
            self.top_level(decl)
        if self.main is None or self.package is None:
            raise CompileError(program.pos, "the program has no 'main' package instance")
        return CheckedProgram(
            program, self.errors, self.match_kinds, self.package, self.blocks, self.globals
        )

    def declare(self, scope: Scope, sym: Symbol, pos: SourcePos) -> None:
        old = scope.names.get(sym.name)
        if old is not None:
            if sym.kind == "extern_function" and old.kind == "extern_function":
                old.overloads.extend(sym.overloads)
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

    # ---- types ---------------------------------------------------------------------

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
            if ref.args:
                raise CompileError(ref.pos, f"'{ref.name}' takes no type arguments")
            return ty
        if isinstance(ref, ast.StackTypeRef):
            element = self.resolve_type(ref.element, scope, tvars)
            if not (isinstance(element, t.StructLike) and element.kind == "header"):
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
            raise CompileError(decl.pos, f"generic {kind}s are not supported yet")
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
        for name, value, pos in decl.members:
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

    # ---- declarations inside blocks -------------------------------------------------

    def constant(self, decl: ast.ConstantDeclaration, scope: Scope) -> Symbol:
        ty = self.resolve_type(decl.type_ref, scope)
        self.expr(decl.value, scope)
        self.coerce(decl.value, ty)
        value = const_value(decl.value)
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
        if (
            isinstance(ty, t.StructLike)
            and isinstance(ty.decl, ast.StructDeclaration)
            and any(ast.find_annotation(f.annotations, "match") for f in ty.decl.fields)
        ):
            raise CompileError(decl.pos, "@match on value set fields is not supported yet")
        decl.resolved = ty
        self.declare(scope, Symbol("value_set", decl.name, ty, decl, owner=self.owner), decl.pos)

    def variable(self, decl: ast.VariableDeclaration, scope: Scope) -> None:
        ty = self.resolve_type(decl.type_ref, scope)
        decl.resolved = ty
        if decl.init is not None:
            self.expr(decl.init, scope)
            self.coerce(decl.init, ty)
        self.declare(scope, Symbol("var", decl.name, ty, decl, owner=self.owner), decl.pos)

    def instantiation(self, decl: ast.Instantiation, scope: Scope) -> None:
        ty = self.resolve_type(decl.type_ref, scope)
        decl.resolved = ty
        if decl.initializer is not None:
            raise CompileError(decl.pos, "abstract method implementations are not supported yet")
        if isinstance(ty, t.Extern):
            ctors = [m for m in ty.decl.methods if m.return_type is None]
            self.call_args(decl.args, ctors, decl.pos, scope, dict(ty.type_args), ty.decl.name)
        elif (
            isinstance(ty, t.BlockType)
            and ty.kind == "control"
            and isinstance(ty.decl, ast.ControlDeclaration)
            and isinstance(self.owner, ast.ControlDeclaration)
        ):
            self.ctor_args(decl, ty.decl, scope)
        elif isinstance(ty, t.BlockType) and ty.kind == "package":
            if decl.name != "main" or scope.parent is not None:
                raise CompileError(
                    decl.pos, "only the top-level 'main' package instance is supported"
                )
            self.package_instance(decl, ty, scope)
        else:
            raise CompileError(decl.type_ref.pos, f"cannot instantiate {ty}")
        self.declare(scope, Symbol("instance", decl.name, ty, decl, owner=self.owner), decl.pos)

    def ctor_args(
        self, decl: ast.Instantiation, control: ast.ControlDeclaration, scope: Scope
    ) -> None:
        bound = bind_arguments(decl.args, control.ctor_params, decl.pos)
        if bound is None:
            raise CompileError(
                decl.pos,
                f"'{control.name}' takes {len(control.ctor_params)} constructor arguments",
            )
        decl.args[:] = bound
        for p, a in zip(control.ctor_params, decl.args, strict=True):
            self.expr(a.value, scope)
            self.coerce(a.value, p.resolved)
            if const_value(a.value) is None:
                raise CompileError(a.pos, "a constructor argument must be a compile-time constant")

    def package_instance(self, decl: ast.Instantiation, ty: t.BlockType, scope: Scope) -> None:
        pkg: ast.PackageTypeDeclaration = ty.decl
        bound = bind_arguments(decl.args, pkg.params, decl.pos)
        if bound is None:
            raise CompileError(
                decl.pos,
                f"package {pkg.name} takes the arguments {', '.join(p.name for p in pkg.params)}",
            )
        decl.args[:] = bound
        for param, arg in zip(pkg.params, decl.args, strict=True):
            value = arg.value
            if not (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and not value.args
            ):
                raise CompileError(
                    value.pos, "expected a parser or control instance such as 'MyParser()'"
                )
            sym = scope.lookup(value.func.name)
            if sym is None or not isinstance(
                sym.decl, ast.ParserDeclaration | ast.ControlDeclaration
            ):
                raise CompileError(value.pos, f"'{value.func.name}' is not a parser or control")
            want = self.resolve_type(
                param.type_ref, scope, {n: t.DontCareType() for n in pkg.type_params}
            )
            got = sym.type
            if not isinstance(want, t.BlockType) or want.kind != got.kind:
                raise CompileError(
                    value.pos,
                    f"argument '{param.name}' of {pkg.name} must be a "
                    f"{getattr(want, 'kind', want)}, not {got}",
                )
            if len(sym.decl.params) != len(want.decl.params):
                raise CompileError(
                    value.pos,
                    f"'{sym.name}' must have {len(want.decl.params)} parameters like {want.name}",
                )
            for mine, theirs in zip(sym.decl.params, want.decl.params, strict=True):
                if mine.direction != theirs.direction:
                    raise CompileError(
                        mine.pos,
                        f"parameter '{mine.name}' must be "
                        f"'{theirs.direction or 'directionless'}' as in {want.name}",
                    )
            value.ref = sym
            value.func.ref = sym
            value.type = got
            self.blocks.append(BlockInstance(param.name, sym.decl))
        self.main = decl
        self.package = pkg

    def table(self, decl: ast.TableDeclaration, scope: Scope) -> None:
        for prop in decl.properties:
            if isinstance(prop, ast.KeyProperty):
                for el in prop.elements:
                    self.expr(el.expr, scope)
                    if el.match_kind not in self.match_kinds:
                        raise CompileError(el.pos, f"'{el.match_kind}' is not a match kind")
                    if not isinstance(el.expr.type, t.Bits | t.Bool | t.Enum | t.Error):
                        raise CompileError(
                            el.expr.pos, f"a table key cannot have type {el.expr.type}"
                        )
            elif isinstance(prop, ast.ActionsProperty):
                for ref in prop.actions:
                    self.action_ref(ref.expr, scope, allow_unbound=True)
            elif isinstance(prop, ast.ValueProperty) and prop.name == "default_action":
                prop.value = as_action_call(prop.value)
                self.action_ref(prop.value, scope, allow_unbound=False)
                self.require_listed(decl, prop.value, "the default action")
            elif isinstance(prop, ast.ValueProperty) and prop.name in ("size", "max_size"):
                self.expr(prop.value, scope)
                if not isinstance(const_value(prop.value), int):
                    raise CompileError(prop.value.pos, "a table size must be a constant integer")
            elif isinstance(prop, ast.EntriesProperty):
                self.entries(decl, prop, scope)
            elif isinstance(prop, ast.ValueProperty) and prop.name in DIRECT_RESOURCES:
                self.expr(prop.value, scope)
                ty = prop.value.type
                want = DIRECT_RESOURCES[prop.name]
                if not (isinstance(prop.value, ast.Name) and isinstance(ty, t.Extern)) or (
                    ty.name != want
                ):
                    raise CompileError(prop.value.pos, f"'{prop.name}' needs a {want} instance")
            elif isinstance(prop, ast.ValueProperty):
                raise CompileError(prop.pos, f"table property '{prop.name}' is not supported yet")

    def entries(self, decl: ast.TableDeclaration, prop: ast.EntriesProperty, scope: Scope) -> None:
        key = decl.property("key")
        if not isinstance(key, ast.KeyProperty) or not key.elements:
            raise CompileError(prop.pos, "a table with entries needs a key")
        key_types = [el.expr.type for el in key.elements]
        for entry in prop.entries:
            self.keyset(entry.keyset, key_types, scope)
            entry.action = as_action_call(entry.action)
            self.action_ref(entry.action, scope, allow_unbound=False)
            self.require_listed(decl, entry.action, "an entry's action")
            if entry.priority is not None:
                self.expr(entry.priority, scope)
                if not isinstance(const_value(entry.priority), int):
                    raise CompileError(entry.priority.pos, "a priority must be a constant integer")

    def require_listed(self, decl: ast.TableDeclaration, value: ast.Expression, what: str) -> None:
        actions = decl.property("actions")
        target = value.func if isinstance(value, ast.Call) else value
        listed = []
        if isinstance(actions, ast.ActionsProperty):
            for ref in actions.actions:
                e = ref.expr.func if isinstance(ref.expr, ast.Call) else ref.expr
                listed.append(getattr(e, "ref", None))
        if getattr(target, "ref", None) not in listed:
            raise CompileError(value.pos, f"{what} must be one of the table's actions")

    def action_ref(self, e: ast.Expression, scope: Scope, allow_unbound: bool) -> None:
        call = e if isinstance(e, ast.Call) else None
        name = call.func if call else e
        if not isinstance(name, ast.Name):
            raise CompileError(e.pos, "expected an action")
        sym = self.lookup(name, scope)
        if sym.kind != "action":
            raise CompileError(e.pos, f"'{name.name}' is not an action")
        name.ref = sym
        params = sym.decl.params
        args = call.args if call else []
        # Directionless parameters are bound by the control plane (spec 14.2.1.2).
        bound = [p for p in params if p.direction]
        want = params if not allow_unbound else bound
        ordered = bind_arguments(args, want, e.pos)
        if ordered is None:
            raise CompileError(
                e.pos, f"action '{name.name}' expects {len(want)} arguments here, not {len(args)}"
            )
        args[:] = ordered
        action_scope = Scope(self.globals)
        for p, a in zip(want, args, strict=True):
            self.expr(a.value, scope)
            self.coerce(a.value, self.resolve_type(p.type_ref, action_scope))
            if p.direction in ("out", "inout"):
                self.require_lvalue(a.value)
        if call is not None:
            call.ref = sym
            call.type = t.Void()

    # ---- parsers -------------------------------------------------------------------

    def parser_states(self, decl: ast.ParserDeclaration, scope: Scope) -> None:
        states = {s.name: s for s in decl.states}
        for builtin in ("accept", "reject"):
            if builtin in states:
                raise CompileError(states[builtin].pos, f"state '{builtin}' is predefined")
        if "start" not in states:
            raise CompileError(decl.pos, f"parser '{decl.name}' has no 'start' state")
        known = {*states, "accept", "reject"}
        for state in decl.states:
            inner = Scope(scope)
            self.stmts(state.stmts, inner)
            tr = state.transition
            if isinstance(tr, ast.Name):
                self.check_state(tr.name, known, tr.pos)
            elif isinstance(tr, ast.SelectExpression):
                for k in tr.keys:
                    self.expr(k, inner)
                key_types = [k.type for k in tr.keys]
                for case in tr.cases:
                    self.keyset(case.keyset, key_types, inner)
                    self.check_state(case.state, known, case.pos)
                tr.type = t.Void()

    def check_state(self, name: str, known: set[str], pos: SourcePos) -> None:
        if name not in known:
            raise CompileError(pos, f"'{name}' is not a state of this parser")

    def keyset(self, ks: ast.Expression, key_types: list[t.Type], scope: Scope) -> None:
        if isinstance(ks, ast.Default | ast.DontCare):
            ks.type = t.DontCareType()
            return
        sym = scope.lookup(ks.name) if isinstance(ks, ast.Name) else None
        if isinstance(ks, ast.Name) and sym is not None and sym.kind == "value_set":
            self.value_set_keyset(ks, sym, key_types)
            return
        if len(key_types) > 1:
            if not isinstance(ks, ast.ListExpression) or len(ks.items) != len(key_types):
                raise CompileError(ks.pos, f"expected a tuple of {len(key_types)} keysets")
            for item, kt in zip(ks.items, key_types, strict=True):
                self.keyset(item, [kt], scope)
            ks.type = t.Tuple(tuple(key_types))
            return
        kt = key_types[0]
        if isinstance(ks, ast.Mask):
            parts = [ks.value, ks.mask]
        elif isinstance(ks, ast.Range):
            parts = [ks.lo, ks.hi]
        else:
            parts = [ks]
        for part in parts:
            self.expr(part, scope)
            self.coerce(part, kt)
            if const_value(part) is None:
                raise CompileError(part.pos, "a keyset must be a compile-time constant")
        ks.type = kt

    @staticmethod
    def value_set_keyset(ks: ast.Name, sym: Symbol, key_types: list[t.Type]) -> None:
        """A value set as a keyset: its fields are the select key, one by one."""
        fields = value_set_fields(sym.type) or []
        if [str(ft) for ft in fields] != [str(kt) for kt in key_types]:
            want = ", ".join(str(kt) for kt in key_types)
            raise CompileError(
                ks.pos,
                f"value set '{ks.name}' holds {sym.type}, which does not match"
                f" the select key ({want})",
            )
        ks.ref = sym
        ks.type = sym.type

    # ---- statements ----------------------------------------------------------------

    def stmts(self, stmts: list[ast.Statement], scope: Scope) -> None:
        for s in stmts:
            self.stmt(s, scope)

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

    # ---- expressions ---------------------------------------------------------------

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
        if isinstance(e, ast.BoolLiteral):
            return t.Bool()
        if isinstance(e, ast.StringLiteral):
            return t.String()
        if isinstance(e, ast.Name):
            if e.name == "error" and not e.is_global:
                e.ref = Symbol("type", "error", t.Error())
                return t.Error()
            sym = self.lookup(e, scope)
            if sym.kind == "value_set":
                raise CompileError(e.pos, f"value set '{e.name}' can only be a select keyset")
            e.ref = sym
            return sym.type
        if isinstance(e, ast.Member):
            return self.member(e, scope)
        if isinstance(e, ast.Call):
            return self.call(e, scope)
        if isinstance(e, ast.Unary):
            return self.unary(e, scope)
        if isinstance(e, ast.Binary):
            return self.binary(e, scope)
        if isinstance(e, ast.Ternary):
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
        if isinstance(e, ast.Cast):
            return self.cast(e, scope)
        if isinstance(e, ast.Slice):
            base = self.expr(e.expr, scope)
            self.expr(e.hi, scope)
            self.expr(e.lo, scope)
            hi, lo = const_value(e.hi), const_value(e.lo)
            if isinstance(base, t.InfInt) and isinstance(const_value(e.expr), int):
                # A slice of an arbitrary-precision constant, which the spec allows on
                # int: its two's complement bits hi..lo.
                if not isinstance(hi, int) or not isinstance(lo, int) or not 0 <= lo <= hi:
                    raise CompileError(
                        e.pos, "slice bounds must be constants with 0 <= low <= high"
                    )
                return t.Bits(hi - lo + 1)
            if not isinstance(base, t.Bits):
                raise CompileError(e.pos, f"cannot slice a value of type {base}")
            if not isinstance(hi, int) or not isinstance(lo, int) or not 0 <= lo <= hi < base.width:
                raise CompileError(
                    e.pos, f"slice bounds must be constants with 0 <= low <= high < {base.width}"
                )
            return t.Bits(hi - lo + 1)
        if isinstance(e, ast.Index):
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
            index_type = self.expr(e.index, scope)
            index = const_value(e.index)
            if index is None:
                # A run-time index: the back end selects the element by comparisons.
                if not isinstance(index_type, t.Bits) or index_type.signed:
                    raise CompileError(e.index.pos, "a stack index must be a bit<W> value")
                return base.element
            if not isinstance(index, int) or not 0 <= index < base.size:
                raise CompileError(
                    e.index.pos, f"index out of the stack's bounds 0..{base.size - 1}"
                )
            return base.element
        if isinstance(e, ast.ListExpression):
            return t.Tuple(tuple(self.expr(i, scope) for i in e.items))
        if isinstance(e, ast.StructExpression):
            # Its own type until the context gives it a struct or header type (coerce).
            fields = []
            for name, value in e.fields:
                if any(n == name for n, _ in fields):
                    raise CompileError(value.pos, f"field '{name}' is given twice")
                fields.append((name, self.expr(value, scope)))
            return t.StructLike("struct", "{...}", fields)
        if isinstance(e, ast.InvalidHeader):
            return t.DontCareType()
        if isinstance(e, ast.DontCare | ast.Default):
            return t.DontCareType()
        if isinstance(e, ast.TypeExpression):
            return self.resolve_type(e.type_ref, scope)
        raise CompileError(e.pos, f"{type(e).__name__} is not supported here")

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
        if is_type:
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

    def apply_control(self, e: ast.Call, control: ast.ControlDeclaration, scope: Scope) -> t.Type:
        """`c.apply(args)` of a control instance (or `C.apply(args)`, spec 15.1)."""
        if not isinstance(self.owner, ast.ControlDeclaration):
            raise CompileError(e.pos, "controls can only be applied from a control's apply block")
        if control is self.owner:
            raise CompileError(e.pos, "a control cannot apply itself")
        ordered = bind_arguments(e.args, control.params, e.pos)
        if ordered is None:
            raise CompileError(e.pos, f"'{control.name}' takes {len(control.params)} arguments")
        e.args[:] = ordered
        for p, a in zip(control.params, e.args, strict=True):
            self.expr(a.value, scope)
            self.coerce(a.value, p.resolved)
            if p.direction in ("out", "inout"):
                self.require_lvalue(a.value)
        return t.Void()

    def stack_member(self, e: ast.Member, stack: t.HeaderStack) -> t.Type:
        """Members of header stacks (spec 8.18)."""
        if e.member in ("next", "last"):
            if not isinstance(self.owner, ast.ParserDeclaration):
                raise CompileError(e.pos, f"'{e.member}' can only be used in a parser")
            return stack.element
        if e.member == "size":
            e.ref = Symbol("const", "size", t.Bits(32), value=stack.size)
            return t.Bits(32)
        if e.member in ("push_front", "pop_front"):
            e.ref = Symbol("builtin", e.member, t.Void())
            return t.Void()
        if e.member == "lastIndex":
            if not isinstance(self.owner, ast.ParserDeclaration):
                raise CompileError(e.pos, "'lastIndex' can only be used in a parser")
            e.ref = Symbol("builtin", "lastIndex", t.Bits(32))
            return t.Bits(32)
        raise CompileError(e.pos, f"a header stack has no member '{e.member}'")

    def call(self, e: ast.Call, scope: Scope) -> t.Type:
        func = e.func
        if isinstance(func, ast.Member):
            self.expr(func, scope)
            sym = func.ref
            if sym is None:
                raise CompileError(e.pos, "this is not a method")
            e.ref = sym
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
                    raise CompileError(
                        e.pos, "tables can only be applied from a control's apply block"
                    )
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
        if isinstance(func, ast.Name):
            sym = self.lookup(func, scope)
            func.ref = sym
            e.ref = sym
            if sym.kind == "extern_function":
                return self.call_args(
                    e.args, sym.overloads, e.pos, scope, {}, sym.name, e.type_args
                )
            if sym.kind == "action":
                if isinstance(self.owner, ast.ParserDeclaration):
                    raise CompileError(e.pos, "actions cannot be called from a parser")
                params = sym.decl.params
                ordered = bind_arguments(e.args, params, e.pos)
                if ordered is None:
                    raise CompileError(
                        e.pos,
                        f"action '{sym.name}' takes {len(params)} arguments, not {len(e.args)}",
                    )
                e.args[:] = ordered
                for p, a in zip(params, e.args, strict=True):
                    self.expr(a.value, scope)
                    self.coerce(a.value, self.resolve_type(p.type_ref, self.globals))
                    if p.direction in ("out", "inout"):
                        self.require_lvalue(a.value)
                return t.Void()
            if sym.kind == "function":
                params = sym.decl.prototype.params
                ordered = bind_arguments(e.args, params, e.pos)
                if ordered is None:
                    raise CompileError(
                        e.pos,
                        f"function '{sym.name}' takes {len(params)} arguments, not {len(e.args)}",
                    )
                e.args[:] = ordered
                for p, a in zip(params, e.args, strict=True):
                    self.expr(a.value, scope)
                    self.coerce(a.value, p.resolved)
                    if p.direction in ("out", "inout"):
                        self.require_lvalue(a.value)
                return sym.type
            raise CompileError(e.pos, f"'{func.name}' cannot be called")
        raise CompileError(e.pos, "this expression cannot be called")

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

    def unary(self, e: ast.Unary, scope: Scope) -> t.Type:
        ty = self.expr(e.operand, scope)
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
        return e.left.type

    def unify_operands(self, left: ast.Expression, right: ast.Expression, pos: SourcePos) -> None:
        a, b = left.type, right.type
        if isinstance(a, t.InfInt) and not isinstance(b, t.InfInt):
            self.coerce(left, b)
        elif isinstance(b, t.InfInt) and not isinstance(a, t.InfInt):
            self.coerce(right, a)
        elif a != b:
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

    def coerce(self, e: ast.Expression, want: t.Type) -> None:
        """Give `e` the type `want`, inferring literal widths; otherwise a type error."""
        got = e.type
        if got == want or isinstance(want, t.DontCareType | t.TypeVar):
            return
        if t.same_stack_type(got, want):
            return
        if isinstance(got, t.InfInt) and isinstance(want, t.Bits):
            self.retype_constant(e, want)
            return
        if isinstance(want, t.StructLike) and want.kind != "header_union":
            if isinstance(e, ast.InvalidHeader) and want.kind == "header":
                e.type = want
                return
            if isinstance(e, ast.ListExpression | ast.StructExpression):
                self.coerce_initializer(e, want)
                return
        if (
            isinstance(want, t.Tuple)
            and isinstance(e, ast.ListExpression)
            and len(want.items) == len(e.items)
        ):
            for item, it in zip(e.items, want.items, strict=True):
                self.coerce(item, it)
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


def check(program: ast.Program) -> CheckedProgram:
    return Checker().check(program)

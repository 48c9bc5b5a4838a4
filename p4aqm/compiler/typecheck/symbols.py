"""What names mean: symbols, scopes, and the checked program handed to the back end."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError


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
    # A type's namesake extern function (`control verify_checksum(...)` beside v1model's
    # verify_checksum): p4c resolves a call to the function, anything else to the type.
    function: Symbol | None = None


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


def referenced(e: ast.Expression) -> Any:
    """The declaration a checked name (or member naming an object) refers to."""
    sym = getattr(e, "ref", None)
    if not isinstance(sym, Symbol) or sym.decl is None:
        raise CompileError(e.pos, "internal: this name was not resolved")
    return sym.decl

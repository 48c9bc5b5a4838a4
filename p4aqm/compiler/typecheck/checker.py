"""The type checker: one class made of one mixin per kind of construct."""

from __future__ import annotations

from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.typecheck.calls import Calls
from p4aqm.compiler.typecheck.coercion import Coercion
from p4aqm.compiler.typecheck.declarations import Declarations
from p4aqm.compiler.typecheck.defaults import Defaults
from p4aqm.compiler.typecheck.expressions import Expressions
from p4aqm.compiler.typecheck.instances import Instances
from p4aqm.compiler.typecheck.parser_states import ParserStates
from p4aqm.compiler.typecheck.replacements import replace_values
from p4aqm.compiler.typecheck.statements import Statements
from p4aqm.compiler.typecheck.symbols import BlockInstance, CheckedProgram, Scope
from p4aqm.compiler.typecheck.tables import Tables
from p4aqm.compiler.typecheck.type_resolution import TypeResolution


class Checker(
    Declarations,
    TypeResolution,
    Instances,
    Tables,
    ParserStates,
    Statements,
    Expressions,
    Calls,
    Coercion,
    Defaults,
):
    """Checks a program in one walk; each mixin checks one kind of construct and calls
    the others through `self` (`expr`, `coerce`, `resolve_type`, `declare`, ...)."""

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

    def check(self, program: ast.Program) -> CheckedProgram:
        for decl in program.declarations:
            self.top_level(decl)
        if self.main is None or self.package is None:
            raise CompileError(program.pos, "the program has no 'main' package instance")
        replace_values(program)
        return CheckedProgram(
            program, self.errors, self.match_kinds, self.package, self.blocks, self.globals
        )


def check(program: ast.Program) -> CheckedProgram:
    return Checker().check(program)

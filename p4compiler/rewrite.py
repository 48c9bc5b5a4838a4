"""What the syntax-tree rewrites share (subparsers.py, specialize.py, hoist.py,
copy_in_out.py, parser_functions.py, parser_ifs.py): a walk over a tree's nodes, names
replaced by expressions, fresh names for temporaries, and the traversal of every
statement list a rewrite of statements must see."""

import copy
import dataclasses
from collections.abc import Iterator
from typing import Any

from p4compiler import ast


def nodes(node: Any) -> Iterator[Any]:  # noqa: ANN401 - any AST node or list of them
    """node and every node below it, the type checker's annotations left out."""
    if isinstance(node, list | tuple):
        for item in node:
            yield from nodes(item)
    elif dataclasses.is_dataclass(node):
        yield node
        for f in dataclasses.fields(node):
            if f.compare:  # `type`, `ref` and `resolved` are the checker's, not the tree's
                yield from nodes(getattr(node, f.name))


def substitute(node: Any, names: dict[str, ast.Expression]) -> Any:  # noqa: ANN401
    """node with every Name in names replaced by a copy of its expression (in place
    where it can be; the result is what to store)."""
    if isinstance(node, ast.Name) and not node.is_global and node.name in names:
        return copy.deepcopy(names[node.name])
    if isinstance(node, list):
        return [substitute(item, names) for item in node]
    if isinstance(node, tuple):
        return tuple(substitute(item, names) for item in node)
    if isinstance(node, ast.Node):
        for f in dataclasses.fields(node):
            if f.compare:
                setattr(node, f.name, substitute(getattr(node, f.name), names))
    return node


class NameSource:
    """Names for compiler temporaries, tmp_0, tmp_1, ..., none the program already uses."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.count = 0

    def fresh(self) -> str:
        while f"tmp_{self.count}" in self.taken:
            self.count += 1
        name = f"tmp_{self.count}"
        self.taken.add(name)
        return name


def fresh_names(program: ast.Program) -> NameSource:
    return NameSource({n.name for n in nodes(program) if isinstance(n, ast.Name | ast.Declaration)})


class StatementRewriter:
    """Rewrites each statement into a list of statements, in every function, action
    (top-level or a control's), apply block and parser state."""

    def stmt(self, s: ast.Statement) -> list[ast.Statement]:
        raise NotImplementedError

    def branch(self, s: ast.Statement) -> ast.Statement:
        """An if's branch: one statement, a block where the rewrite made several."""
        result = self.stmt(s)
        return result[0] if len(result) == 1 else ast.BlockStatement(s.pos, result)

    def stmts(self, stmts: list[ast.Statement]) -> list[ast.Statement]:
        return [out for s in stmts for out in self.stmt(s)]

    def enter_control(self, control: ast.ControlDeclaration) -> None:
        """Called before a control's actions and apply block are rewritten."""

    def leave_control(self, control: ast.ControlDeclaration) -> None:
        """Called after them."""

    def parser_state(self, state: ast.ParserState) -> None:
        state.stmts = self.stmts(state.stmts)

    def program(self, program: ast.Program) -> None:
        for decl in program.declarations:
            if isinstance(decl, ast.FunctionDeclaration | ast.ActionDeclaration):
                decl.body.stmts = self.stmts(decl.body.stmts)
            elif isinstance(decl, ast.ControlDeclaration):
                self.enter_control(decl)
                for local in decl.locals:
                    if isinstance(local, ast.ActionDeclaration):
                        local.body.stmts = self.stmts(local.body.stmts)
                decl.body.stmts = self.stmts(decl.body.stmts)
                self.leave_control(decl)
            elif isinstance(decl, ast.ParserDeclaration):
                for state in decl.states:
                    self.parser_state(state)

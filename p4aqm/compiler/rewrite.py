"""What the syntax-tree rewrites share (generic_types.py, subparsers.py, specialize.py,
hoist.py, copy_in_out.py, parser_functions.py, parser_ifs.py): a walk over a tree's
nodes, names replaced by expressions, fresh names for temporaries, and the traversal of
every statement list a rewrite of statements must see."""

import copy
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t


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


def replaced(node: Any, replacement: Callable[[Any], Any]) -> Any:  # noqa: ANN401
    """node with every node for which `replacement` gives a value (not None) replaced by
    that value (in place where it can be; the result is what to store)."""
    new = replacement(node)
    if new is not None:
        return new
    if isinstance(node, list):
        return [replaced(item, replacement) for item in node]
    if isinstance(node, tuple):
        return tuple(replaced(item, replacement) for item in node)
    if isinstance(node, ast.Node):
        for f in dataclasses.fields(node):
            if f.compare:
                setattr(node, f.name, replaced(getattr(node, f.name), replacement))
    return node


def substitute(node: Any, names: dict[str, ast.Expression]) -> Any:  # noqa: ANN401
    """node with every Name in names replaced by a copy of its expression."""

    def copy_of(n: Any) -> Any:  # noqa: ANN401
        if isinstance(n, ast.Name) and not n.is_global and n.name in names:
            return copy.deepcopy(names[n.name])
        return None

    return replaced(node, copy_of)


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


def declarations_to_locals(
    parser: ast.ParserDeclaration, state: ast.ParserState, names: NameSource
) -> None:
    """A state's variables and constants, at any depth, as the parser's locals with
    fresh names, an initializer becoming an assignment where the declaration stood: a
    state split in two (parser_ifs.py, subparsers.py) keeps them visible to both."""
    renamed: dict[str, ast.Expression] = {}
    for node in list(nodes(state.stmts)):
        if isinstance(node, ast.VariableDeclaration | ast.ConstantDeclaration):
            fresh = f"{state.name}_{node.name}_{names.fresh()}"
            renamed[node.name] = ast.Name(node.pos, fresh)
    if not renamed:
        return
    state.stmts = substitute(state.stmts, renamed)
    state.transition = substitute(state.transition, renamed)
    state.stmts = _hoisted(parser, state.stmts, renamed)


def _hoisted(
    parser: ast.ParserDeclaration, stmts: list[ast.Statement], renamed: dict[str, ast.Expression]
) -> list[ast.Statement]:
    out: list[ast.Statement] = []
    for stmt in stmts:
        if isinstance(stmt, ast.VariableDeclaration) and stmt.name in renamed:
            name = renamed[stmt.name]
            assert isinstance(name, ast.Name)
            init, stmt.init, stmt.name = stmt.init, None, name.name
            parser.locals.append(stmt)
            if init is not None:
                out.append(ast.Assignment(stmt.pos, ast.Name(stmt.pos, stmt.name), init))
        elif isinstance(stmt, ast.ConstantDeclaration) and stmt.name in renamed:
            name = renamed[stmt.name]
            assert isinstance(name, ast.Name)
            stmt.name = name.name
            parser.locals.append(stmt)
        elif isinstance(stmt, ast.BlockStatement):
            stmt.stmts = _hoisted(parser, stmt.stmts, renamed)
            out.append(stmt)
        elif isinstance(stmt, ast.IfStatement):
            stmt.then = ast.BlockStatement(stmt.pos, _hoisted(parser, [stmt.then], renamed))
            if stmt.otherwise is not None:
                otherwise = _hoisted(parser, [stmt.otherwise], renamed)
                stmt.otherwise = ast.BlockStatement(stmt.pos, otherwise)
            out.append(stmt)
        else:
            out.append(stmt)
    return out


def switch_as_ifs(s: ast.SwitchStatement, copy_value: bool = False) -> ast.Statement:
    """A switch on a value as nested ifs, one per group of labels sharing a body (a
    label without a body falls through to the next, spec 12.7). Only the first group
    that matches runs, and no label after it is tested. Each test reads the switched
    value (hoisting has taken calls out of it); `copy_value` gives each test a copy of
    its own, for rewrites that later edit the tree in place."""
    groups: list[tuple[list[ast.Expression], ast.Statement]] = []
    result: ast.Statement = ast.EmptyStatement(s.pos)
    labels: list[ast.Expression] = []
    for case in s.cases:
        if isinstance(case.label, ast.Default):
            assert case.body is not None
            result = case.body
            continue
        labels.append(case.label)
        if case.body is not None:
            groups.append((labels, case.body))
            labels = []
    for group, body in reversed(groups):
        cond: ast.Expression | None = None
        for label in group:
            value = copy.deepcopy(s.expr) if copy_value else s.expr
            test = ast.Binary(label.pos, "==", value, label)
            test.type = t.Bool()
            if cond is not None:
                test = ast.Binary(label.pos, "||", cond, test)
                test.type = t.Bool()
            cond = test
        assert cond is not None
        result = ast.IfStatement(s.pos, cond, body, result)
    return result

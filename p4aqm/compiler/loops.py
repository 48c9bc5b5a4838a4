"""`for` loops (spec 12.8, P4_16 1.2.5) as LoopStatements, right after parsing, so that
every later pass knows one kind of loop: a body run again and again, then its update,
until a `break`.

    for (init; cond; update) body
becomes
    { init; loop { if (!cond) break; body } update { update } }

A `for (T x in c)` loop counts with a temporary index and gives `x` the current element
at the start of each pass, so writing `x` in the body does not change which element
comes next (as p4c's unrolling, which reads the index as a constant). The collection is
evaluated once, before the first pass (spec):

- a range `lo .. hi` includes both ends; `lo` and `hi` are read into temporaries of
  x's type, and the index stops after `hi` without being incremented past it, so a
  range ending at the type's largest value does not wrap around;
- a list expression's items are read into temporaries, left to right;
- any other collection is a header stack, its elements taken in index order.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler.diagnostics import CompileError, SourcePos
from p4aqm.compiler.rewrite import NameSource, fresh_names, nodes


def lower_loops(program: ast.Program) -> ast.Program:
    """program with every for statement a LoopStatement (in place; returned for
    chaining)."""
    loops = ast.ForStatement | ast.ForInStatement
    if not any(isinstance(n, loops) for n in nodes(program)):
        return program
    for decl in program.declarations:
        if isinstance(decl, ast.ParserDeclaration):
            for n in nodes(decl.states):
                if isinstance(n, loops):
                    # The spec's parser statements have no loops: states loop.
                    raise CompileError(
                        n.pos, "a for loop cannot run in a parser; loop through its states"
                    )
    _Lowering(fresh_names(program)).visit(program)
    return program


class _Lowering:
    def __init__(self, names: NameSource) -> None:
        self.names = names

    def visit(self, node: Any) -> Any:  # noqa: ANN401 - any AST node or list of them
        """node with its loops lowered, innermost first."""
        if isinstance(node, list):
            return [self.visit(item) for item in node]
        if not isinstance(node, ast.Node) or isinstance(node, ast.Expression):
            return node
        for f in dataclasses.fields(node):
            if f.compare:
                setattr(node, f.name, self.visit(getattr(node, f.name)))
        if isinstance(node, ast.ForStatement):
            return self.three_clause(node)
        if isinstance(node, ast.ForInStatement):
            return self.for_in(node)
        return node

    def three_clause(self, s: ast.ForStatement) -> ast.Statement:
        pos = s.pos
        guard = _break_unless(pos, s.cond)
        body = ast.BlockStatement(pos, [guard, s.body])
        loop = ast.LoopStatement(pos, body, ast.BlockStatement(pos, s.update))
        return ast.BlockStatement(pos, [*s.init, loop])

    def for_in(self, s: ast.ForInStatement) -> ast.Statement:
        c = s.collection
        if isinstance(c, ast.Range):
            return self.over_range(s, c)
        if isinstance(c, ast.ListExpression):
            return self.over_list(s, c)
        return self.over_stack(s, c)

    def over_range(self, s: ast.ForInStatement, c: ast.Range) -> ast.Statement:
        pos = s.pos
        index, last, more = self.names.fresh(), self.names.fresh(), self.names.fresh()
        before: list[ast.Statement] = [
            _declare(pos, index, s.var.type_ref, c.lo),
            _declare(pos, last, s.var.type_ref, c.hi),
            _declare(pos, more, ast.BaseTypeRef(pos, "bool"), _op(pos, "<=", index, last)),
        ]
        body = [_break_unless(pos, ast.Name(pos, more)), self.element(s, ast.Name(pos, index))]
        update = [
            _assign(pos, more, _op(pos, "!=", index, last)),
            _assign(pos, index, _op(pos, "+", index, _int(pos, 1))),
        ]
        return self.loop(s, before, body, update)

    def over_list(self, s: ast.ForInStatement, c: ast.ListExpression) -> ast.Statement:
        pos = s.pos
        items = [self.names.fresh() for _ in c.items]
        before: list[ast.Statement] = [
            _declare(item.pos, name, s.var.type_ref, item)
            for name, item in zip(items, c.items, strict=True)
        ]
        index = self.names.fresh()
        before.append(_declare(pos, index, _index_type(pos), _int(pos, 0)))
        element = ast.VariableDeclaration(
            s.var.pos, s.var.name, s.var.type_ref, None, annotations=s.var.annotations
        )
        chosen: ast.Statement = ast.EmptyStatement(pos)
        for k in reversed(range(len(items))):
            chosen = ast.IfStatement(
                pos,
                _op(pos, "==", index, _int(pos, k)),
                _assign(pos, s.var.name, ast.Name(pos, items[k])),
                chosen,
            )
        body = [_break_unless(pos, _op(pos, "<", index, _int(pos, len(items)))), element, chosen]
        update = [_assign(pos, index, _op(pos, "+", index, _int(pos, 1)))]
        return self.loop(s, before, body, update)

    def over_stack(self, s: ast.ForInStatement, stack: ast.Expression) -> ast.Statement:
        pos = s.pos
        index = self.names.fresh()
        before: list[ast.Statement] = [_declare(pos, index, _index_type(pos), _int(pos, 0))]
        size = ast.Member(stack.pos, copy.deepcopy(stack), "size")
        body = [
            _break_unless(pos, ast.Binary(pos, "<", ast.Name(pos, index), size)),
            self.element(s, ast.Index(stack.pos, stack, ast.Name(pos, index))),
        ]
        update = [_assign(pos, index, _op(pos, "+", index, _int(pos, 1)))]
        lowered = self.loop(s, before, body, update)
        loop = lowered.stmts[-1]
        assert isinstance(loop, ast.LoopStatement)
        loop.collection = size.expr
        return lowered

    @staticmethod
    def element(s: ast.ForInStatement, value: ast.Expression) -> ast.Statement:
        return ast.VariableDeclaration(
            s.var.pos,
            s.var.name,
            copy.deepcopy(s.var.type_ref),
            value,
            annotations=s.var.annotations,
        )

    @staticmethod
    def loop(
        s: ast.ForInStatement,
        before: list[ast.Statement],
        body: list[ast.Statement],
        update: list[ast.Statement],
    ) -> ast.BlockStatement:
        pos = s.pos
        loop = ast.LoopStatement(
            pos, ast.BlockStatement(pos, [*body, s.body]), ast.BlockStatement(pos, update)
        )
        return ast.BlockStatement(pos, [*before, loop])


def _break_unless(pos: SourcePos, cond: ast.Expression) -> ast.Statement:
    return ast.IfStatement(pos, ast.Unary(pos, "!", cond), ast.BreakStatement(pos), None)


def _declare(
    pos: SourcePos, name: str, type_ref: ast.TypeRef, init: ast.Expression
) -> ast.VariableDeclaration:
    return ast.VariableDeclaration(pos, name, copy.deepcopy(type_ref), init)


def _assign(pos: SourcePos, name: str, value: ast.Expression) -> ast.Statement:
    return ast.Assignment(pos, ast.Name(pos, name), value)


def _op(pos: SourcePos, op: str, left: str, right: str | ast.Expression) -> ast.Expression:
    rhs = ast.Name(pos, right) if isinstance(right, str) else right
    return ast.Binary(pos, op, ast.Name(pos, left), rhs)


def _int(pos: SourcePos, value: int) -> ast.Expression:
    return ast.IntLiteral(pos, value, None, False)


def _index_type(pos: SourcePos) -> ast.TypeRef:
    """A stack or list index, as p4c types them: no stack or list has 2^32 elements."""
    return ast.BaseTypeRef(pos, "bit", _int(pos, 32))

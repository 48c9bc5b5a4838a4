"""If and switch statements in parser states become states, before type checking.

A parser state may hold conditional statements (spec: parser states), but BMv2's parser
ops have no jumps. As p4c does, a state is split at its first `if`, whose condition
becomes a select on a boolean:

    state s { A; if (c) { B } else { C } D; transition T; }
becomes
    state s { A; transition select(c) { true: s_tmp_0_then; default: s_tmp_0_else; } }
    state s_tmp_0_then { B; transition s_tmp_0_join; }
    state s_tmp_0_else { C; transition s_tmp_0_join; }
    state s_tmp_0_join { D; transition T; }

and each new state is split in turn. A switch statement on a value becomes ifs first
(`rewrite.switch_as_ifs`). A variable or constant declared in the state is
scoped to it, yet D may use it: such declarations become the parser's locals, renamed
apart, and an initializer becomes an assignment where the declaration stood.
"""

from p4aqm.compiler import ast
from p4aqm.compiler.rewrite import (
    NameSource,
    declarations_to_locals,
    fresh_names,
    nodes,
    switch_as_ifs,
)


def _without_switches(stmt: ast.Statement) -> ast.Statement:
    """stmt with every switch statement in it, at any depth, turned into ifs."""
    if isinstance(stmt, ast.SwitchStatement):
        for case in stmt.cases:
            if case.body is not None:
                case.body.stmts = [_without_switches(x) for x in case.body.stmts]
        return switch_as_ifs(stmt, copy_value=True)
    if isinstance(stmt, ast.BlockStatement):
        stmt.stmts = [_without_switches(x) for x in stmt.stmts]
    elif isinstance(stmt, ast.IfStatement):
        stmt.then = _without_switches(stmt.then)
        if stmt.otherwise is not None:
            stmt.otherwise = _without_switches(stmt.otherwise)
    return stmt


def _has_if(stmt: ast.Statement) -> bool:
    return any(isinstance(n, ast.IfStatement) for n in nodes(stmt))


def _flatten(stmts: list[ast.Statement]) -> list[ast.Statement]:
    """Blocks that hold an `if` opened up, so that the split can reach it (their
    declarations are moved to the parser's locals, so no scope is lost)."""
    flat: list[ast.Statement] = []
    for stmt in stmts:
        if isinstance(stmt, ast.BlockStatement) and _has_if(stmt):
            flat += _flatten(stmt.stmts)
        else:
            flat.append(stmt)
    return flat


class ParserIfSplitter:
    def __init__(self, parser: ast.ParserDeclaration, names: NameSource) -> None:
        self.parser = parser
        self.names = names

    def run(self) -> None:
        states: list[ast.ParserState] = []
        pending = list(self.parser.states)
        while pending:
            state = pending.pop(0)
            state.stmts = [_without_switches(x) for x in state.stmts]
            states.append(state)
            if any(_has_if(s) for s in state.stmts):
                declarations_to_locals(self.parser, state, self.names)
                pending[:0] = self.split(state)
        self.parser.states = states

    def split(self, state: ast.ParserState) -> list[ast.ParserState]:
        """The states that follow `state` once it is split at its first `if`."""
        stmts = _flatten(state.stmts)
        k, stmt = next((i, s) for i, s in enumerate(stmts) if isinstance(s, ast.IfStatement))
        assert isinstance(stmt, ast.IfStatement)
        pos = stmt.pos
        base = f"{state.name}_{self.names.fresh()}"
        join = ast.ParserState(pos, f"{base}_join", stmts[k + 1 :], state.transition)
        then = ast.ParserState(pos, f"{base}_then", [stmt.then], ast.Name(pos, join.name))
        after: list[ast.ParserState] = [then]
        otherwise = join.name
        if stmt.otherwise is not None:
            other = ast.ParserState(pos, f"{base}_else", [stmt.otherwise], ast.Name(pos, join.name))
            after.append(other)
            otherwise = other.name
        state.stmts = stmts[:k]
        state.transition = ast.SelectExpression(
            pos,
            [stmt.cond],
            [
                ast.SelectCase(pos, ast.BoolLiteral(pos, True), then.name),
                ast.SelectCase(pos, ast.Default(pos), otherwise),
            ],
        )
        return [*after, join]


def split_parser_ifs(program: ast.Program) -> ast.Program:
    """program with every parser state's `if` turned into states (in place)."""
    names = fresh_names(program)
    for decl in program.declarations:
        if isinstance(decl, ast.ParserDeclaration):
            ParserIfSplitter(decl, names).run()
    return program

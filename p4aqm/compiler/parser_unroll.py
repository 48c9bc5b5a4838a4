"""Parser unrolling: a stack element extracted at an index that only the path through the
parser knows, after type checking.

BMv2's `extract` takes a header instance, so `pk.extract(hdr.s[i])` needs `i` known when
the program is compiled. When `i` is a variable counted from state to state,

    state start { i = 0; transition more; }
    state more  { pk.extract(hdr.s[i]); i = i + 1;
                  transition select(hdr.s[i - 1].y) { 1: more; default: accept; } }

p4c's ParserUnroll runs the parser symbolically and copies each state once for every
value the index variables have when the state is entered: `more` (i = 0), `more1`
(i = 1), `more2`, each with its indices made constants. A copy whose index falls outside
its stack ends, where it would read or write out of bounds, by going to the state
`stateOutOfBound`: `verify(false, error.StackOutOfBounds); transition reject;`, the
spec's outcome of extracting past a stack's end (8.18). The variables stay variables:
their assignments are kept, only the indices become constants.

Only a parser with such an extract is unrolled, and only the variables that an index
reads (and those assigned into them) are followed. A value nothing determines (a packet
field, a variable not yet assigned) stays unknown, and an extract that needs it keeps
the back end's "extract needs a header".
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.rewrite import nodes
from p4aqm.compiler.typecheck import CheckedProgram, Symbol, const_value
from p4aqm.compiler.typecheck.constants import Known, wrap

OUT_OF_BOUND = "stateOutOfBound"
# Copies of one state before unrolling gives up: a stack of 64 hops (p4c's axon test)
# needs 65; a count that never reaches a stack's end would go on forever.
MAX_COPIES = 1024

Env = dict[str, int]


def _path(e: ast.Expression) -> str | None:
    """`i`, `meta.n` or `hdr.h.f` as text: an l-value unrolling can follow."""
    if isinstance(e, ast.Name) and not e.is_global:
        return e.name
    if isinstance(e, ast.Member) and (base := _path(e.expr)) is not None:
        return f"{base}.{e.member}"
    return None


def _overlaps(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _clone(node: Any) -> Any:  # noqa: ANN401 - any AST node or list of them
    """A copy of the tree that shares the checker's annotations (types, symbols)."""
    if isinstance(node, list):
        return [_clone(item) for item in node]
    if isinstance(node, tuple):
        return tuple(_clone(item) for item in node)
    if isinstance(node, ast.Node):
        new = copy.copy(node)
        for f in dataclasses.fields(node):
            if f.compare:
                setattr(new, f.name, _clone(getattr(node, f.name)))
        return new
    return node


def _run_time_indices(node: Any) -> list[ast.Index]:  # noqa: ANN401
    return [
        n
        for n in nodes(node)
        if isinstance(n, ast.Index)
        and isinstance(n.expr.type, t.HeaderStack)
        and const_value(n.index) is None
    ]


def _extracts_at_run_time_index(state: ast.ParserState) -> bool:
    for n in nodes(state.stmts):
        if isinstance(n, ast.Call) and isinstance(n.ref, Symbol) and n.ref.name == "extract":
            arg = n.args[0].value if n.args else None
            if isinstance(arg, ast.Index) and _run_time_indices(arg):
                return True
    return False


def _followed(parser: ast.ParserDeclaration) -> set[str]:
    """The paths the run-time indices read, and those assigned into them, to a fixpoint."""
    paths = {
        p
        for index in _run_time_indices(parser.states)
        for n in nodes(index.index)
        if (p := _path(n)) is not None
    }
    assignments = [n for n in nodes(parser.states) if isinstance(n, ast.Assignment)]
    while True:
        more = {
            p
            for a in assignments
            if (lhs := _path(a.lhs)) is not None and lhs in paths
            for n in nodes(a.rhs)
            if (p := _path(n)) is not None and p not in paths
        }
        if not more:
            return paths
        paths |= more


def _targets(state: ast.ParserState) -> list[str]:
    tr = state.transition
    if isinstance(tr, ast.Name):
        return [tr.name]
    if isinstance(tr, ast.SelectExpression):
        return [c.state for c in tr.cases]
    return []


def _states_reaching_run_time_indices(parser: ast.ParserDeclaration) -> set[str]:
    """The states from which a state with a run-time index can be reached (itself too)."""
    states = {s.name: s for s in parser.states}
    reaching = {s.name for s in parser.states if _run_time_indices(s)}
    while True:
        more = {
            s.name
            for s in parser.states
            if s.name not in reaching and any(n in reaching for n in _targets(s) if n in states)
        }
        if not more:
            return reaching
        reaching |= more


class _OutOfBounds(Exception):
    """A statement reads or writes a stack element past its end."""


class ParserUnroller:
    def __init__(self, parser: ast.ParserDeclaration, checked: CheckedProgram) -> None:
        self.parser = parser
        self.checked = checked
        self.followed = _followed(parser)
        self.states = {s.name: s for s in parser.states}
        self.taken = set(self.states) | {"accept", "reject"}
        # (state, the followed values on entry) -> the copy's name
        self.copies: dict[tuple[str, frozenset[tuple[str, int]]], str] = {}
        self.count: dict[str, int] = {}
        self.out_of_bound: str | None = None
        self.unrolled = _states_reaching_run_time_indices(parser)

    def run(self) -> None:
        env: Env = {}
        for local in self.parser.locals:
            if isinstance(local, ast.VariableDeclaration) and local.name in self.followed:
                value = None if local.init is None else const_value(local.init)
                if isinstance(value, int) and not isinstance(value, bool):
                    env[local.name] = wrap(value, local.resolved)
        pending: list[tuple[ast.ParserState, Env, str]] = []
        result: list[ast.ParserState] = []
        self.enter("start", env, pending)
        while pending:
            state, env, name = pending.pop(0)
            copy_ = ast.ParserState(state.pos, name, [], None, annotations=state.annotations)
            env = dict(env)
            try:
                self.statements(state.stmts, env, copy_.stmts)
                copy_.transition = self.transition(state.transition, env, pending)
            except _OutOfBounds:
                # The statements before the access run; the parser stops at it.
                copy_.transition = ast.Name(state.pos, self.out_of_bound_state())
            result.append(copy_)
        if self.out_of_bound is not None:
            result.append(self.out_of_bound_decl())
        self.parser.states = result

    def enter(self, state: str, env: Env, pending: list[tuple[ast.ParserState, Env, str]]) -> str:
        """The copy of `state` entered with `env`, queued the first time: the state's own
        name for its first copy, then name1, name2, ... as p4c names them."""
        if state not in self.unrolled:
            env = {}  # no index ahead depends on it: one copy, as p4c's
        key = (state, frozenset(env.items()))
        if key in self.copies:
            return self.copies[key]
        n = self.count.get(state, 0)
        name = state
        if n:
            while (name := f"{state}{n}") in self.taken:
                n += 1
        if n >= MAX_COPIES:
            raise CompileError(
                self.states[state].pos,
                f"parser unrolling: state '{state}' would be copied more than {MAX_COPIES}"
                " times; the stack index it uses never reaches a bound",
            )
        self.count[state] = n + 1
        self.taken.add(name)
        self.copies[key] = name
        pending.append((self.states[state], dict(env), name))
        return name

    def known(self, env: Env) -> Known:
        """const_value's hook: the followed paths' values in `env`."""

        def value(e: ast.Expression) -> int | None:
            path = _path(e)
            return env.get(path) if path is not None else None

        return value

    def constant_indices(self, node: Any, env: Env) -> Any:  # noqa: ANN401
        """A copy of `node` whose run-time indices that `env` determines are constants."""
        new = _clone(node)
        for index in _run_time_indices(new):
            value = const_value(index.index, self.known(env))
            if not isinstance(value, int) or isinstance(value, bool):
                continue
            assert isinstance(index.expr.type, t.HeaderStack)
            if not 0 <= value < index.expr.type.size:
                raise _OutOfBounds
            literal = ast.IntLiteral(index.index.pos, value, None, False)
            literal.type = index.index.type
            index.index = literal
        return new

    def statements(self, stmts: list[ast.Statement], env: Env, out: list[ast.Statement]) -> None:
        """The statements with constant indices appended to `out`, `env` updated past
        them; raises _OutOfBounds at an access past a stack's end, `out` holding those
        before it."""
        for stmt in stmts:
            if isinstance(stmt, ast.BlockStatement):
                block = copy.copy(stmt)
                block.stmts = []
                out.append(block)
                self.statements(stmt.stmts, env, block.stmts)
                continue
            out.append(self.constant_indices(stmt, env))
            self.assign(stmt, env)

    def assign(self, stmt: ast.Statement, env: Env) -> None:
        """What `stmt` does to the followed values."""
        if isinstance(stmt, ast.Assignment) and (lhs := _path(stmt.lhs)) in self.followed:
            assert lhs is not None
            value = const_value(stmt.rhs, self.known(env))
            for path in [p for p in env if _overlaps(p, lhs)]:
                del env[path]
            if isinstance(value, int) and not isinstance(value, bool):
                env[lhs] = wrap(value, stmt.lhs.type)
            return
        # Anything else that writes a followed path (an assignment to a whole struct, an
        # extract into the header that holds it) leaves it unknown.
        written = [stmt.lhs] if isinstance(stmt, ast.Assignment) else []
        written += [a.value for n in nodes(stmt) if isinstance(n, ast.Call) for a in n.args]
        for e in written:
            while isinstance(e, ast.Index | ast.Slice | ast.Cast):
                e = e.expr
            target = _path(e)
            if target is not None:
                for path in [p for p in env if _overlaps(p, target)]:
                    del env[path]

    def transition(
        self,
        tr: ast.Expression | None,
        env: Env,
        pending: list[tuple[ast.ParserState, Env, str]],
    ) -> ast.Expression | None:
        def target(state: str) -> str:
            # accept and reject are not states of the parser's own
            return self.enter(state, env, pending) if state in self.states else state

        if tr is None:
            return None
        if isinstance(tr, ast.Name):
            return ast.Name(tr.pos, target(tr.name))
        assert isinstance(tr, ast.SelectExpression)
        select = self.constant_indices(tr, env)
        for case in select.cases:
            case.state = target(case.state)
        return select

    def out_of_bound_state(self) -> str:
        if self.out_of_bound is None:
            name = OUT_OF_BOUND
            n = 0
            while name in self.taken:
                n += 1
                name = f"{OUT_OF_BOUND}_{n}"
            self.taken.add(name)
            self.out_of_bound = name
        return self.out_of_bound

    def out_of_bound_decl(self) -> ast.ParserState:
        """`verify(false, error.StackOutOfBounds); transition reject;`, typed as the
        checker would have typed it."""
        pos = self.parser.pos
        verify = self.checked.globals.lookup("verify")
        assert self.out_of_bound is not None and verify is not None
        func = ast.Name(pos, "verify")
        func.ref = verify
        false = ast.BoolLiteral(pos, False)
        false.type = t.Bool()
        error = ast.Member(pos, ast.Name(pos, "error"), "StackOutOfBounds")
        error.type = t.Error()
        error.ref = Symbol(
            "error_member",
            "StackOutOfBounds",
            t.Error(),
            value=self.checked.errors.index("StackOutOfBounds"),
        )
        call = ast.Call(pos, func, [], [ast.Argument(pos, false), ast.Argument(pos, error)])
        call.ref = verify
        call.type = t.Void()
        return ast.ParserState(
            pos, self.out_of_bound, [ast.MethodCallStatement(pos, call)], ast.Name(pos, "reject")
        )


def unroll_parsers(checked: CheckedProgram) -> CheckedProgram:
    """checked with each parser that extracts at a run-time stack index unrolled (in
    place)."""
    for decl in checked.program.declarations:
        if isinstance(decl, ast.ParserDeclaration) and any(
            _extracts_at_run_time_index(s) for s in decl.states
        ):
            ParserUnroller(decl, checked).run()
    return checked

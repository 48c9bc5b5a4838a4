"""Sub-parsers inlined into the parsers that apply them, before type checking.

A parser may instantiate another (`Sub() sub;`) and call it from a state
(`sub.apply(pk, hdr);`, spec: parser invocation). BMv2 has one parse graph, so, as p4c
does, the call becomes a jump into a copy of the sub-parser's states:

    state s { A; sub.apply(pk, hdr); B; transition T; }
becomes
    state s { A; transition sub_0_entry; }
    state sub_0_entry { locals' initialisers; transition sub_0_start; }
    state sub_0_start { ... }                      // the sub-parser's states, renamed,
    ...                                            // its accept going on to:
    state s_after_sub_0 { B; transition T; }

with the sub-parser's parameters standing for the call's arguments, its constructor
parameters for its constructor arguments, and its locals renamed into the caller. Its
`reject` is the caller's. An `out` argument starts uninitialized (spec: calling
convention): the entry state makes its headers invalid, found through the declared
type (typedefs, structs and unions followed); other values keep what they held, which
the spec leaves unspecified. An `out` header stack, or an argument of a type parameter,
is refused: a stack's next index cannot be reset here, and a type parameter's type is
not known before type checking.
"""

import copy

from p4compiler import ast
from p4compiler.diagnostics import CompileError, SourcePos
from p4compiler.rewrite import fresh_names, substitute


def _rename_states(state: ast.ParserState, states: dict[str, str], accept: str) -> None:
    def target(name: str) -> str:
        if name == "accept":
            return accept
        return states.get(name, name)  # reject stays the caller's reject

    state.name = states[state.name]
    tr = state.transition
    if isinstance(tr, ast.Name):
        tr.name = target(tr.name)
    elif isinstance(tr, ast.SelectExpression):
        for case in tr.cases:
            case.state = target(case.state)


def _set_invalid(pos: SourcePos, target: ast.Expression) -> ast.Statement:
    call = ast.Call(pos, ast.Member(pos, target, "setInvalid"), [], [])
    return ast.MethodCallStatement(pos, call)


TypeDeclaration = (
    ast.HeaderDeclaration
    | ast.HeaderUnionDeclaration
    | ast.StructDeclaration
    | ast.TypedefDeclaration
    | ast.EnumDeclaration
)


class SubparserInliner:
    def __init__(self, program: ast.Program) -> None:
        self.parsers = {
            d.name: d for d in program.declarations if isinstance(d, ast.ParserDeclaration)
        }
        self.types = {d.name: d for d in program.declarations if isinstance(d, TypeDeclaration)}
        self.names = fresh_names(program)
        self.done: set[str] = set()
        self.active: set[str] = set()
        self.inlined: set[str] = set()  # parsers copied into another

    def instances(self, parser: ast.ParserDeclaration) -> dict[str, ast.Instantiation]:
        return {
            local.name: local
            for local in parser.locals
            if isinstance(local, ast.Instantiation)
            and isinstance(local.type_ref, ast.NamedTypeRef)
            and local.type_ref.name in self.parsers
        }

    def parser(self, parser: ast.ParserDeclaration) -> None:
        if parser.name in self.done:
            return
        if parser.name in self.active:
            raise CompileError(parser.pos, f"parser '{parser.name}' applies itself")
        self.active.add(parser.name)
        instances = self.instances(parser)
        for inst in instances.values():
            self.parser(self.parsers[inst.type_ref.name])  # type: ignore[attr-defined]
        if instances:
            parser.locals = [loc for loc in parser.locals if loc.name not in instances]
            states: list[ast.ParserState] = []
            pending = list(parser.states)
            while pending:
                state = pending.pop(0)
                states.append(state)
                pending[:0] = self.split(parser, state, instances)
            parser.states = states
        self.active.discard(parser.name)
        self.done.add(parser.name)

    def split(
        self,
        caller: ast.ParserDeclaration,
        state: ast.ParserState,
        instances: dict[str, ast.Instantiation],
    ) -> list[ast.ParserState]:
        """The states that follow `state` once its first sub-parser call is inlined:
        the sub-parser's, then the rest of `state` (to be split in turn)."""
        for k, stmt in enumerate(state.stmts):
            inst = self.applied(stmt, instances)
            if inst is None:
                continue
            assert isinstance(stmt, ast.MethodCallStatement)
            prefix = self.names.fresh().replace("tmp", inst.name)
            rest = ast.ParserState(
                stmt.pos, f"{state.name}_after_{prefix}", state.stmts[k + 1 :], state.transition
            )
            state.stmts = state.stmts[:k]
            state.transition = ast.Name(stmt.pos, f"{prefix}_entry")
            return [*self.copy_of(caller, inst, stmt.call, prefix, rest.name), rest]
        return []

    def applied(
        self, stmt: ast.Statement, instances: dict[str, ast.Instantiation]
    ) -> ast.Instantiation | None:
        if not isinstance(stmt, ast.MethodCallStatement):
            return None
        func = stmt.call.func
        if (
            isinstance(func, ast.Member)
            and func.member == "apply"
            and isinstance(func.expr, ast.Name)
            and func.expr.name in instances
        ):
            return instances[func.expr.name]
        return None

    def copy_of(
        self,
        caller: ast.ParserDeclaration,
        inst: ast.Instantiation,
        call: ast.Call,
        prefix: str,
        accept: str,
    ) -> list[ast.ParserState]:
        sub = copy.deepcopy(self.parsers[inst.type_ref.name])  # type: ignore[attr-defined]
        self.inlined.add(sub.name)
        names: dict[str, ast.Expression] = {}
        resets: list[ast.Statement] = []  # out arguments' headers, invalid at the call
        for params, args, what in (
            (sub.params, call.args, "apply"),
            (sub.ctor_params, inst.args, "constructor"),
        ):
            if len(args) != len(params) or any(a.name for a in args):
                raise CompileError(
                    call.pos if what == "apply" else inst.pos,
                    f"parser '{sub.name}' takes {len(params)} {what} arguments, by position",
                )
            for param, argument in zip(params, args, strict=True):
                if param.direction == "out":
                    resets += self.uninitialized(param, param.type_ref, argument.value)
                names[param.name] = argument.value
        for local in sub.locals:
            if not isinstance(local, ast.VariableDeclaration | ast.ConstantDeclaration):
                raise CompileError(local.pos, "this local of a sub-parser is not supported yet")
            renamed = f"{prefix}_{local.name}"
            names[local.name] = ast.Name(local.pos, renamed)
            local.name = renamed
        state_names = {s.name: f"{prefix}_{s.name}" for s in sub.states}
        # Locals are initialised at each call, as the sub-parser starts; resets name the
        # caller's arguments, so they are added after the substitution below.
        starts: list[ast.Statement] = []
        for local in sub.locals:
            if isinstance(local, ast.VariableDeclaration) and local.init is not None:
                target = ast.Name(local.pos, local.name)
                starts.append(ast.Assignment(local.pos, target, local.init))
                local.init = None
            caller.locals.append(substitute(local, names))
        # A state of its own, since the sub-parser's start may be entered again.
        entry = ast.ParserState(
            call.pos, f"{prefix}_entry", starts, ast.Name(call.pos, state_names["start"])
        )
        states = [substitute(entry, names)]
        states[0].stmts[:0] = resets
        for state in sub.states:
            _rename_states(state, state_names, accept)
            states.append(substitute(state, names))
        return states

    def uninitialized(
        self, param: ast.Parameter, type_ref: ast.TypeRef, target: ast.Expression
    ) -> list[ast.Statement]:
        """Statements making every header in `target` (of type `type_ref`) invalid."""
        pos = target.pos
        if isinstance(type_ref, ast.BaseTypeRef):
            return []
        if isinstance(type_ref, ast.StackTypeRef):
            raise CompileError(
                pos,
                f"sub-parser out parameter '{param.name}' holds a header stack, whose next"
                " index cannot be reset at the call yet; declare it inout",
            )
        decl = self.types.get(type_ref.name) if isinstance(type_ref, ast.NamedTypeRef) else None
        if decl is None:
            raise CompileError(
                pos,
                f"sub-parser out parameter '{param.name}' has a type not known before type"
                " checking (a type parameter?); declare it inout",
            )
        if isinstance(decl, ast.TypedefDeclaration):
            return self.uninitialized(param, decl.type_ref, target)
        if isinstance(decl, ast.HeaderDeclaration):
            return [_set_invalid(pos, copy.deepcopy(target))]
        if isinstance(decl, ast.HeaderUnionDeclaration | ast.StructDeclaration):
            resets: list[ast.Statement] = []
            for f in decl.fields:
                member = ast.Member(pos, copy.deepcopy(target), f.name)
                resets += self.uninitialized(param, f.type_ref, member)
            return resets
        return []  # an enum: its value is unspecified, as a bit<W>'s


def inline_subparsers(program: ast.Program) -> ast.Program:
    """program with every sub-parser call inlined (in place; returned for chaining)."""
    inliner = SubparserInliner(program)
    for parser in list(inliner.parsers.values()):
        inliner.parser(parser)
    # A parser used only as a sub-parser lives on in its copies, which are checked where
    # they stand; its declaration goes (its constructor parameters are bound there).
    program.declarations = [d for d in program.declarations if d.name not in inliner.inlined]
    return program

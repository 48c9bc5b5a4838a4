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
parameters for its constructor arguments, and its locals renamed into the caller (a
value set once per instance, since the control plane sees one per instance). Its
`reject` is the caller's. An `out` argument starts uninitialized (spec: calling
convention): the entry state makes its headers invalid, found through the declared
type (typedefs, structs, unions and stacks followed; for a type parameter, the type of
the argument as the caller declares it); other values keep what they held, which the
spec leaves unspecified. A stack's elements become invalid and its next index 0 (spec
6.8), by `pop_front(size)`.
"""

import copy

from p4aqm.compiler import ast
from p4aqm.compiler.diagnostics import CompileError, SourcePos
from p4aqm.compiler.names import annotated_name, local_name
from p4aqm.compiler.rewrite import declarations_to_locals, fresh_names, substitute


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
        self.value_sets: dict[tuple[int, str, str], str] = {}

    def instances(self, parser: ast.ParserDeclaration) -> dict[str, ast.Instantiation]:
        """The sub-parser instances `parser` declares, and those its states apply by the
        parser's own name (`Sub.apply(...)`, direct invocation: an instance without
        constructor arguments, spec 15.1)."""
        declared = {
            local.name: local
            for local in parser.locals
            if isinstance(local, ast.Instantiation)
            and isinstance(local.type_ref, ast.NamedTypeRef)
            and local.type_ref.name in self.parsers
        }
        direct = {
            name: ast.Instantiation(pos, name, ast.NamedTypeRef(pos, name), [])
            for name, pos in self.directly_applied(parser)
            if name not in declared
        }
        return {**declared, **direct}

    def directly_applied(self, parser: ast.ParserDeclaration) -> list[tuple[str, SourcePos]]:
        found = []
        for state in parser.states:
            for stmt in state.stmts:
                if not isinstance(stmt, ast.MethodCallStatement):
                    continue
                func = stmt.call.func
                if (
                    isinstance(func, ast.Member)
                    and func.member == "apply"
                    and isinstance(func.expr, ast.Name)
                    and func.expr.name in self.parsers
                ):
                    found.append((func.expr.name, func.pos))
        return found

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
        if not any(self.applied(stmt, instances) for stmt in state.stmts):
            return []
        # The state's own variables stay visible to the part after the call.
        declarations_to_locals(caller, state, self.names)
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
        for params, given, what in (
            (sub.params, call.args, "apply"),
            (sub.ctor_params, inst.args, "constructor"),
        ):
            # Parameters left out at the end take their default values (spec 6.8.2).
            args = [*given, *(ast.Argument(p.pos, p.default) for p in params[len(given) :])]
            if (
                len(given) > len(params)
                or any(a.value is None for a in args)
                or any(a.name for a in given)
            ):
                raise CompileError(
                    call.pos if what == "apply" else inst.pos,
                    f"parser '{sub.name}' takes {len(params)} {what} arguments, by position",
                )
            for param, argument in zip(params, args, strict=True):
                if param.direction == "out":
                    type_ref = self.argument_type(caller, sub, inst, param, argument.value)
                    resets += self.uninitialized(param, type_ref, argument.value)
                names[param.name] = argument.value
        for local in sub.locals:
            if isinstance(local, ast.ValueSetDeclaration):
                names[local.name] = ast.Name(local.pos, self.value_set(caller, inst, local))
                continue
            if not isinstance(local, ast.VariableDeclaration | ast.ConstantDeclaration):
                raise CompileError(local.pos, "this local of a sub-parser is not supported yet")
            renamed = f"{prefix}_{local.name}"
            names[local.name] = ast.Name(local.pos, renamed)
            local.name = renamed
        sub.locals = [loc for loc in sub.locals if not isinstance(loc, ast.ValueSetDeclaration)]
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

    def value_set(
        self, caller: ast.ParserDeclaration, inst: ast.Instantiation, vset: ast.ValueSetDeclaration
    ) -> str:
        """The caller's name for a value set of the sub-parser instance `inst`. There is
        one per instance, however many times it is applied, as for any instance's
        objects; the control plane sees it as `Caller.inst.vset`, as p4c names it."""
        key = (id(caller), inst.name, vset.name)
        if key not in self.value_sets:
            moved = copy.deepcopy(vset)
            moved.name = self.names.fresh().replace("tmp", f"{inst.name}_{vset.name}")
            path = local_name(vset, annotated_name(inst.annotations) or inst.name)
            moved.annotations = [a for a in moved.annotations if a.name != "name"]
            moved.annotations.append(
                ast.Annotation(vset.pos, "name", exprs=[ast.StringLiteral(vset.pos, path)])
            )
            caller.locals.append(moved)
            self.value_sets[key] = moved.name
        return self.value_sets[key]

    def argument_type(
        self,
        caller: ast.ParserDeclaration,
        sub: ast.ParserDeclaration,
        inst: ast.Instantiation,
        param: ast.Parameter,
        argument: ast.Expression,
    ) -> ast.TypeRef:
        """The type of an out parameter; for a type parameter, the instantiation's type
        argument, or else the argument's type as the caller declares it."""
        ref = param.type_ref
        if not (isinstance(ref, ast.NamedTypeRef) and ref.name in sub.type_params):
            return ref
        type_args = getattr(inst.type_ref, "args", [])
        if len(type_args) == len(sub.type_params):
            return type_args[sub.type_params.index(ref.name)]
        declared = self.declared_type(caller, argument)
        if declared is None:
            raise CompileError(
                argument.pos,
                f"sub-parser out parameter '{param.name}' is of type parameter "
                f"'{ref.name}', and the type of this argument cannot be found before type "
                "checking; pass a parameter, a local or a member of one, or declare it inout",
            )
        return declared

    def declared_type(self, caller: ast.ParserDeclaration, e: ast.Expression) -> ast.TypeRef | None:
        """The declared type of a parameter or local of `caller`, or of a member or
        element of one; None for any other expression."""
        if isinstance(e, ast.Name):
            for d in [*caller.params, *caller.locals]:
                if d.name == e.name and isinstance(d, ast.Parameter | ast.VariableDeclaration):
                    return d.type_ref
            return None
        if isinstance(e, ast.Index):
            base = self.declared_type(caller, e.expr)
            return base.element if isinstance(base, ast.StackTypeRef) else None
        if isinstance(e, ast.Member):
            decl = self.type_declaration(self.declared_type(caller, e.expr))
            if isinstance(
                decl, ast.HeaderDeclaration | ast.HeaderUnionDeclaration | ast.StructDeclaration
            ):
                return next((f.type_ref for f in decl.fields if f.name == e.member), None)
        return None

    def type_declaration(self, type_ref: ast.TypeRef | None) -> TypeDeclaration | None:
        """The declaration a named type stands for, typedefs followed."""
        if not isinstance(type_ref, ast.NamedTypeRef):
            return None
        decl = self.types.get(type_ref.name)
        if isinstance(decl, ast.TypedefDeclaration):
            return self.type_declaration(decl.type_ref)
        return decl

    def uninitialized(
        self, param: ast.Parameter, type_ref: ast.TypeRef, target: ast.Expression
    ) -> list[ast.Statement]:
        """Statements making every header in `target` (of type `type_ref`) invalid."""
        pos = target.pos
        if isinstance(type_ref, ast.BaseTypeRef):
            return []
        if isinstance(type_ref, ast.StackTypeRef):
            # pop_front(size) leaves every element invalid and the next index 0.
            size = ast.Argument(pos, copy.deepcopy(type_ref.size))
            pop = ast.Member(pos, copy.deepcopy(target), "pop_front")
            return [ast.MethodCallStatement(pos, ast.Call(pos, pop, [], [size]))]
        decl = self.types.get(type_ref.name) if isinstance(type_ref, ast.NamedTypeRef) else None
        if decl is None:
            raise CompileError(
                pos,
                f"sub-parser out parameter '{param.name}' has a type not declared at top "
                "level, whose headers cannot be found before type checking; declare it inout",
            )
        if isinstance(decl, ast.TypedefDeclaration):
            return self.uninitialized(param, decl.type_ref, target)
        if isinstance(decl, ast.HeaderDeclaration):
            return [_set_invalid(pos, copy.deepcopy(target))]
        if isinstance(decl, ast.HeaderUnionDeclaration | ast.StructDeclaration):
            resets = []
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

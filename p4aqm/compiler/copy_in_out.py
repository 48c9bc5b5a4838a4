"""Copy-in and copy-out made explicit where arguments alias.

The back end inlines an action or function call by putting each argument in place of its
parameter. That is the spec's copy-in/copy-out ("Calling convention: call by copy
in/copy out") only while no argument can see another's writes. Where an out or inout
argument overlaps another argument, an index in one depends on what the call writes, or
an argument overlaps what the body writes besides its parameters (an action writing its
control's variables), the call is rewritten as the spec describes it, before type
checking:

    T1 tmp_1 = arg1;        // in and inout: copied in, left to right
    T2 tmp_2;               // out: uninitialised
    a(tmp_1, tmp_2);        // or `R tmp_3 = f(...)` for a function's value
    arg1 = tmp_1;           // inout and out: copied out, left to right
    arg2 = tmp_2;
    x = tmp_3;              // then the value, so it wins over a copy-out to x

Calls whose arguments do not overlap are left as they are (their JSON stays as p4c's
without the copies it would optimise away).
"""

import copy
from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler.rewrite import StatementRewriter, fresh_names, nodes

Path = tuple[str, ...]
ANY_INDEX = "[*]"


def _path(e: ast.Expression) -> Path | None:
    """An l-value's path (`hdr.s[2].f` -> hdr, s, [2], f; a run-time index is [*])."""
    if isinstance(e, ast.Name):
        return (e.name,)
    if isinstance(e, ast.Member):
        base = _path(e.expr)
        return None if base is None else (*base, e.member)
    if isinstance(e, ast.Index):
        base = _path(e.expr)
        index = e.index.value if isinstance(e.index, ast.IntLiteral) else None
        return None if base is None else (*base, ANY_INDEX if index is None else f"[{index}]")
    if isinstance(e, ast.Slice):
        return _path(e.expr)
    return None


def _reads(e: ast.Expression | None) -> list[Path]:
    """The paths an expression reads: its l-value chains, and those in their indices."""
    if e is None:
        return []
    path = _path(e)
    if path is not None:
        indices = []
        node: Any = e
        while isinstance(node, ast.Member | ast.Index | ast.Slice):
            if isinstance(node, ast.Index):
                indices += _reads(node.index)
            node = node.expr
        return [path, *indices]
    children = []
    for name in ("left", "right", "operand", "cond", "then", "otherwise", "expr", "index"):
        child = getattr(e, name, None)
        if isinstance(child, ast.Expression):
            children.append(child)
    if isinstance(e, ast.Call):
        children += [a.value for a in e.args]
    if isinstance(e, ast.ListExpression):
        children += e.items
    if isinstance(e, ast.StructExpression):
        children += [v for _, v in e.fields]
    return [p for c in children for p in _reads(c)]


def _overlap(a: Path, b: Path) -> bool:
    """One path is a prefix of the other, a run-time index matching any index."""
    return all(x == y or ANY_INDEX in (x, y) for x, y in zip(a, b, strict=False))


def _index_reads(e: ast.Expression) -> list[Path]:
    """Paths read by the run-time indices of an l-value (evaluated once, at the call)."""
    reads: list[Path] = []
    node: Any = e
    while isinstance(node, ast.Member | ast.Index | ast.Slice):
        if isinstance(node, ast.Index):
            reads += _reads(node.index)
        node = node.expr
    return reads


# Header and stack methods that change their object.
_HEADER_WRITES = ("setValid", "setInvalid", "push_front", "pop_front")


class CopyInOut(StatementRewriter):
    def __init__(self, program: ast.Program) -> None:
        self.top = {
            d.name: d
            for d in program.declarations
            if isinstance(d, ast.ActionDeclaration | ast.FunctionDeclaration)
        }
        self.names = fresh_names(program)
        self.local: dict[str, ast.ActionDeclaration] = {}

    def callee_decl(self, call: ast.Call) -> ast.ActionDeclaration | ast.FunctionDeclaration | None:
        if not isinstance(call.func, ast.Name):
            return None
        decl = None if call.func.is_global else self.local.get(call.func.name)
        return decl or self.top.get(call.func.name)

    def callee(self, call: ast.Call) -> list[ast.Parameter] | None:
        decl = self.callee_decl(call)
        if isinstance(decl, ast.ActionDeclaration):
            return decl.params
        if isinstance(decl, ast.FunctionDeclaration):
            return decl.prototype.params
        return None

    def outer_writes(
        self, decl: ast.ActionDeclaration | ast.FunctionDeclaration, seen: frozenset[int]
    ) -> list[Path]:
        """What the body of `decl` writes besides its own parameters and locals: the
        variables and parameters of the control around an action. A call's argument
        that overlaps one of them must be a copy (spec: copy-in happens at the call)."""
        params = decl.params if isinstance(decl, ast.ActionDeclaration) else decl.prototype.params
        own = {p.name for p in params} | {
            n.name
            for n in nodes(decl.body)
            if isinstance(n, ast.VariableDeclaration | ast.ConstantDeclaration)
        }
        writes: list[Path | None] = []
        for n in nodes(decl.body):
            if isinstance(n, ast.Assignment):
                writes.append(_path(n.lhs))
            elif isinstance(n, ast.Call):
                writes += self.call_writes(n, seen | {id(decl)})
        return [w for w in writes if w is not None and w[0] not in own]

    def call_writes(self, call: ast.Call, seen: frozenset[int]) -> list[Path | None]:
        """What a call inside a body may write: a header method's object, a called
        action's or function's out and inout arguments and its own outer writes, and
        (not knowing an extern's directions) every l-value argument of anything else."""
        func = call.func
        if isinstance(func, ast.Member) and func.member in _HEADER_WRITES:
            return [_path(func.expr)]
        if isinstance(func, ast.Member) and func.member in ("isValid", "apply"):
            return []
        decl = self.callee_decl(call)
        params = self.callee(call)
        if decl is None or params is None:
            return [_path(a.value) for a in call.args]
        writes: list[Path | None] = [
            _path(a.value)
            for p, a in self.pairs(call, params) or []
            if p.direction in ("out", "inout")
        ]
        if id(decl) not in seen:
            writes += self.outer_writes(decl, seen)
        return writes

    def pairs(
        self, call: ast.Call, params: list[ast.Parameter]
    ) -> list[tuple[ast.Parameter, ast.Argument]] | None:
        """(parameter, argument) in the order the arguments are written."""
        named = any(a.name for a in call.args)
        pairs = []
        for i, argument in enumerate(call.args):
            if named:
                param = next((p for p in params if p.name == argument.name), None)
            else:
                param = params[i] if i < len(params) else None
            if param is None:
                return None  # the type checker reports it
            pairs.append((param, argument))
        return pairs

    def aliased(
        self,
        pairs: list[tuple[ast.Parameter, ast.Argument]],
        decl: ast.ActionDeclaration | ast.FunctionDeclaration,
    ) -> bool:
        body_writes = self.outer_writes(decl, frozenset())
        for _, argument in pairs:
            if any(_overlap(w, r) for w in body_writes for r in _reads(argument.value)):
                return True
        written = [
            (i, _path(a.value)) for i, (p, a) in enumerate(pairs) if p.direction in ("out", "inout")
        ]
        for i, path in written:
            if path is None:
                return False  # not an l-value: the type checker reports it
            for j, (_, other) in enumerate(pairs):
                reads = _index_reads(other.value) if j == i else _reads(other.value)
                if any(_overlap(path, r) for r in reads):
                    return True
        return False

    def rewrite(
        self, call: ast.Call, pairs: list[tuple[ast.Parameter, ast.Argument]]
    ) -> tuple[list[ast.Statement], list[ast.Statement]]:
        """The copies in (before the call, which now reads temporaries) and out."""
        before: list[ast.Statement] = []
        after: list[ast.Statement] = []
        for param, argument in pairs:
            if isinstance(argument.value, ast.IntLiteral | ast.BoolLiteral | ast.DontCare):
                continue
            pos = argument.pos
            if param.direction in ("out", "inout"):
                # The l-value is fixed at the call: its run-time indices are read now.
                self.fix_indices(argument.value, before)
            name = self.names.fresh()
            init = None if param.direction == "out" else argument.value
            before.append(ast.VariableDeclaration(pos, name, param.type_ref, init))
            if param.direction in ("out", "inout"):
                target = copy.deepcopy(argument.value)
                after.append(ast.Assignment(pos, target, ast.Name(pos, name)))
            argument.value = ast.Name(pos, name)
        return before, after

    def fix_indices(self, e: ast.Expression, before: list[ast.Statement]) -> None:
        """Each run-time index of l-value e read into a temporary (as bit<32>: a stack
        index is an unsigned bit<W>, and no stack has 2^32 elements)."""
        node: Any = e
        while isinstance(node, ast.Member | ast.Index | ast.Slice):
            if isinstance(node, ast.Index) and not isinstance(node.index, ast.IntLiteral):
                pos = node.index.pos
                name = self.names.fresh()
                width = ast.IntLiteral(pos, 32, None, False)
                bits = ast.BaseTypeRef(pos, "bit", width)
                before.append(
                    ast.VariableDeclaration(pos, name, bits, ast.Cast(pos, bits, node.index))
                )
                node.index = ast.Name(pos, name)
            node = node.expr

    def stmt(self, s: ast.Statement) -> list[ast.Statement]:
        if isinstance(s, ast.BlockStatement):
            s.stmts = self.stmts(s.stmts)
            return [s]
        if isinstance(s, ast.LoopStatement):
            s.body.stmts = self.stmts(s.body.stmts)
            s.update.stmts = self.stmts(s.update.stmts)
            return [s]
        if isinstance(s, ast.IfStatement):
            s.then = self.branch(s.then)
            if s.otherwise is not None:
                s.otherwise = self.branch(s.otherwise)
            return [s]
        if isinstance(s, ast.SwitchStatement):
            for case in s.cases:
                if case.body is not None:
                    case.body.stmts = self.stmts(case.body.stmts)
            return [s]
        call = None
        if isinstance(s, ast.MethodCallStatement):
            call = s.call
        elif isinstance(s, ast.Assignment | ast.VariableDeclaration):
            value = s.rhs if isinstance(s, ast.Assignment) else s.init
            call = value if isinstance(value, ast.Call) else None
        decl = self.callee_decl(call) if call is not None else None
        params = self.callee(call) if call is not None else None
        if call is None or params is None:
            return [s]
        pairs = self.pairs(call, params)
        if pairs is None or decl is None or not self.aliased(pairs, decl):
            return [s]
        returns = decl.prototype.return_type if isinstance(decl, ast.FunctionDeclaration) else None
        if isinstance(s, ast.Assignment) and returns is None:
            return [s]  # an action's or a void function's value: the type checker says so
        before, after = self.rewrite(call, pairs)
        if isinstance(s, ast.Assignment):
            # The value is assigned after the copies out (spec), through a temporary.
            assert returns is not None
            value = self.names.fresh()
            before.append(ast.VariableDeclaration(s.pos, value, returns, call))
            assign = ast.Assignment(s.pos, s.lhs, ast.Name(s.pos, value), s.op)
            return [*before, *after, assign]
        return [*before, s, *after]

    def enter_control(self, control: ast.ControlDeclaration) -> None:
        self.local = {a.name: a for a in control.locals if isinstance(a, ast.ActionDeclaration)}

    def leave_control(self, control: ast.ControlDeclaration) -> None:
        self.local = {}

    def parser_state(self, state: ast.ParserState) -> None:
        """Parsers call no actions, and the back end inlines no function there."""


def copy_in_out(program: ast.Program) -> ast.Program:
    """program with the calls whose arguments alias made copy-in/copy-out (in place)."""
    CopyInOut(program).program(program)
    return program

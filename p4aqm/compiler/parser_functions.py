"""Functions with conditionals called from parser states, inlined before type checking.

BMv2's parser ops have no jumps, so the back end cannot inline a function whose body
branches (an `if`, or a `return` before its end) into a parser state, as it does into
an action. Such a call is inlined here instead, and parser_ifs.py then turns its ifs
into states. After hoist.py, a call of a many-statement function stands alone:
`f(a);`, `x = f(a);` or `T x = f(a);`. It becomes, with the spec's calling convention
(copy-in, then copy-out in parameter order):

    T1 c_p1 = a1; T2 c_p2;           // in and inout copied in; out left uninitialized
    bool c_done = false; R c_ret;    // when the body returns early, or a value
    body, with `return e;` as `c_ret = e; c_done = true;` and what follows a statement
         that may return guarded by `if (!c_done)`
    a2 = c_p2;                       // out and inout copied out
    x = c_ret;

with `c` a fresh prefix for each call and the body's own locals renamed with it.
"""

import copy

from p4aqm.compiler import ast
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.rewrite import NameSource, fresh_names, nodes, substitute, switch_as_ifs


def _branches(decl: ast.FunctionDeclaration) -> bool:
    kinds = ast.IfStatement | ast.ReturnStatement | ast.SwitchStatement
    return any(isinstance(n, kinds) for n in nodes(decl.body))


def _returns(stmt: ast.Statement) -> bool:
    return any(isinstance(n, ast.ReturnStatement) for n in nodes(stmt))


class ParserFunctionInliner:
    def __init__(self, program: ast.Program) -> None:
        self.functions = {
            d.name: d
            for d in program.declarations
            if isinstance(d, ast.FunctionDeclaration) and _branches(d)
        }
        self.names: NameSource = fresh_names(program)

    def called(self, stmt: ast.Statement) -> tuple[ast.Call, ast.FunctionDeclaration] | None:
        call: ast.Expression | None = None
        if isinstance(stmt, ast.MethodCallStatement):
            call = stmt.call
        elif isinstance(stmt, ast.Assignment) and stmt.op == "=":
            call = stmt.rhs
        elif isinstance(stmt, ast.VariableDeclaration):
            call = stmt.init
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
            decl = self.functions.get(call.func.name)
            if decl is not None:
                return call, decl
        return None

    def stmts(self, stmts: list[ast.Statement]) -> list[ast.Statement]:
        out: list[ast.Statement] = []
        for stmt in stmts:
            if isinstance(stmt, ast.BlockStatement):
                stmt.stmts = self.stmts(stmt.stmts)
            elif isinstance(stmt, ast.IfStatement):
                stmt.then = ast.BlockStatement(stmt.pos, self.stmts([stmt.then]))
                if stmt.otherwise is not None:
                    stmt.otherwise = ast.BlockStatement(stmt.pos, self.stmts([stmt.otherwise]))
            found = self.called(stmt)
            if found is None:
                out.append(stmt)
            else:
                # The inlined body may call another such function: inline that too.
                out += self.stmts(self.inline(stmt, *found))
        return out

    def inline(
        self, stmt: ast.Statement, call: ast.Call, decl: ast.FunctionDeclaration
    ) -> list[ast.Statement]:
        proto = decl.prototype
        pos = call.pos
        if proto.type_params:
            raise CompileError(pos, f"generic function '{decl.name}' called in a parser state")
        if any(isinstance(n, ast.LoopStatement) for n in nodes(decl.body)):
            raise CompileError(pos, f"'{decl.name}' has a for loop, which cannot run in a parser")
        if len(call.args) != len(proto.params) or any(a.name for a in call.args):
            raise CompileError(
                pos, f"'{decl.name}' takes {len(proto.params)} arguments here, by position"
            )
        prefix = self.names.fresh().replace("tmp", decl.name)
        body = copy.deepcopy(decl.body)
        names: dict[str, ast.Expression] = {}
        for node in nodes(body):
            if isinstance(node, ast.VariableDeclaration | ast.ConstantDeclaration):
                names[node.name] = ast.Name(node.pos, f"{prefix}_{node.name}")
                node.name = f"{prefix}_{node.name}"
        copy_in: list[ast.Statement] = []
        copy_out: list[ast.Statement] = []
        for param, arg in zip(proto.params, call.args, strict=True):
            local = f"{prefix}_{param.name}"
            names[param.name] = ast.Name(param.pos, local)
            init = None if param.direction == "out" else arg.value
            copy_in.append(ast.VariableDeclaration(pos, local, copy.deepcopy(param.type_ref), init))
            if param.direction in ("out", "inout"):
                copy_out.append(ast.Assignment(pos, arg.value, ast.Name(pos, local)))
        done = ast.Name(pos, f"{prefix}_done")
        result = ast.Name(pos, f"{prefix}_ret")
        flags: list[ast.Statement] = [
            ast.VariableDeclaration(
                pos, done.name, ast.BaseTypeRef(pos, "bool"), ast.BoolLiteral(pos, False)
            )
        ]
        if proto.return_type is not None and not (
            isinstance(proto.return_type, ast.BaseTypeRef) and proto.return_type.kind == "void"
        ):
            flags.append(ast.VariableDeclaration(pos, result.name, proto.return_type, None))
        lowered = self.returns(substitute(body.stmts, names), done, result)
        value: list[ast.Statement] = []
        if isinstance(stmt, ast.Assignment):
            value = [ast.Assignment(stmt.pos, stmt.lhs, copy.deepcopy(result))]
        elif isinstance(stmt, ast.VariableDeclaration):
            stmt.init = copy.deepcopy(result)
            value = [stmt]
        return [*copy_in, *flags, *lowered, *copy_out, *value]

    def returns(
        self, stmts: list[ast.Statement], done: ast.Name, result: ast.Name
    ) -> list[ast.Statement]:
        """stmts with each return as assignments, and what follows one guarded."""
        out: list[ast.Statement] = []
        for k, stmt in enumerate(stmts):
            returns = _returns(stmt)  # before lowering takes its returns away
            out.append(self.lowered(stmt, done, result))
            if returns and k + 1 < len(stmts):
                rest = self.returns(stmts[k + 1 :], done, result)
                guard = ast.Unary(stmt.pos, "!", copy.deepcopy(done))
                out.append(
                    ast.IfStatement(stmt.pos, guard, ast.BlockStatement(stmt.pos, rest), None)
                )
                break
        return out

    def lowered(self, stmt: ast.Statement, done: ast.Name, result: ast.Name) -> ast.Statement:
        pos = stmt.pos
        if isinstance(stmt, ast.ReturnStatement):
            stmts: list[ast.Statement] = []
            if stmt.value is not None:
                stmts.append(ast.Assignment(pos, copy.deepcopy(result), stmt.value))
            stmts.append(ast.Assignment(pos, copy.deepcopy(done), ast.BoolLiteral(pos, True)))
            return ast.BlockStatement(pos, stmts)
        if isinstance(stmt, ast.BlockStatement):
            stmt.stmts = self.returns(stmt.stmts, done, result)
        elif isinstance(stmt, ast.IfStatement):
            stmt.then = ast.BlockStatement(pos, self.returns([stmt.then], done, result))
            if stmt.otherwise is not None:
                otherwise = self.returns([stmt.otherwise], done, result)
                stmt.otherwise = ast.BlockStatement(pos, otherwise)
        elif isinstance(stmt, ast.SwitchStatement) and _returns(stmt):
            # As ifs (each test with its own copy of the value, as this edits in place),
            # whose returns are lowered like any other.
            return self.lowered(switch_as_ifs(stmt, copy_value=True), done, result)
        return stmt


def inline_parser_functions(program: ast.Program) -> ast.Program:
    """program with every branching function called from a parser state inlined there
    (in place; returned for chaining)."""
    inliner = ParserFunctionInliner(program)
    if inliner.functions:
        for decl in program.declarations:
            if isinstance(decl, ast.ParserDeclaration):
                for state in decl.states:
                    state.stmts = inliner.stmts(state.stmts)
    return program

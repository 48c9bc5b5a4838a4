"""Values the back end cannot compute inside an expression, taken out of it: calls of
functions with a body of several statements, a table's `apply().hit` or `.miss`, and a
parser's `pk.lookahead<T>()` (BMv2 reads the bits ahead only into a field, or as a
select key). Alike, `pk.extract<H>(_)` extracts into a temporary header.

The back end inlines such a function only where its value goes straight into a variable
(`x = f(...);`, `T x = f(...);`), and branches on a table's hit only in an if's
condition. Anywhere else (`x = f(a) + 1;`, `if (f(a) == 2)`, `bool h = t.apply().hit;`)
the value is hoisted before its statement into a new temporary, `T tmp = f(...);` or
`bool tmp; if (t.apply().hit) tmp = true; else tmp = false;`, and the expression reads
the temporary, as p4c's side-effect ordering does. A table key that needs hoisting
reads a variable of its own, assigned before each statement that applies the table.
(In a parser state a function whose body branches is then inlined by
parser_functions.py, since the back end cannot.)

The P4_16 spec evaluates an expression left to right ("Expression evaluation order")
and calls with copy-in and copy-out ("Calling convention"). Hoisting keeps that order:
- values are hoisted in the order they are evaluated, innermost arguments first;
- a call with out or inout parameters, or a table's apply (its actions run), can change
  what an operand evaluated before it reads, so each such operand is first saved in a
  temporary of its own;
- the right operand of `&&` and `||` and the branches of `?:` are evaluated only
  sometimes: a call there that cannot change anything (no out or inout parameter, no
  table) is hoisted as any other; one that can makes the whole operation an if
  statement, `bool tmp = a; if (tmp) { tmp = b; }`, so that it runs only when the
  spec evaluates it.

This runs on the parsed program, before type checking, which then checks the
temporaries as any declaration. Where an operand must be saved, its type comes from a
type check of an untouched copy of the program.
"""

import copy
from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError, SourcePos
from p4aqm.compiler.rewrite import StatementRewriter, fresh_names, nodes
from p4aqm.compiler.typecheck import check


def _is_expression_function(decl: ast.FunctionDeclaration) -> bool:
    """A function the back end inlines as an expression: `return e;` alone, in params."""
    body = decl.body.stmts
    return (
        len(body) == 1
        and isinstance(body[0], ast.ReturnStatement)
        and body[0].value is not None
        and all(p.direction in ("", "in") for p in decl.prototype.params)
    )


def _type_ref(ty: t.Type | None, pos: SourcePos) -> ast.TypeRef | None:
    """A declarable type as P4 writes it: bit<W>, int<W>, bool, error, a named type, a
    stack or a tuple of these."""
    if isinstance(ty, t.Bits):
        width = ast.IntLiteral(pos, ty.width, None, False)
        return ast.BaseTypeRef(pos, "int" if ty.signed else "bit", width)
    if isinstance(ty, t.Bool):
        return ast.BaseTypeRef(pos, "bool")
    if isinstance(ty, t.Error):
        return ast.BaseTypeRef(pos, "error")
    if isinstance(ty, t.StructLike | t.Enum):
        return ast.NamedTypeRef(pos, ty.name, is_global=True)
    if isinstance(ty, t.HeaderStack):
        element = _type_ref(ty.element, pos)
        size = ast.IntLiteral(pos, ty.size, None, False)
        return ast.StackTypeRef(pos, element, size) if element is not None else None
    if isinstance(ty, t.Tuple):
        items = [_type_ref(item, pos) for item in ty.items]
        known = [item for item in items if item is not None]
        return ast.TupleTypeRef(pos, "tuple", known) if len(known) == len(items) else None
    return None


def _own_expressions(s: ast.Statement) -> list[ast.Expression | None]:
    """The expressions a statement evaluates itself, not those of statements inside it."""
    if isinstance(s, ast.MethodCallStatement):
        return [s.call]
    if isinstance(s, ast.IfStatement):
        return [s.cond]
    if isinstance(s, ast.SwitchStatement):
        return [s.expr]
    if isinstance(s, ast.Assignment):
        return [s.lhs, s.rhs]
    if isinstance(s, ast.VariableDeclaration):
        return [s.init]
    if isinstance(s, ast.ReturnStatement):
        return [s.value]
    return []


def _table_hit(e: Any) -> bool:  # noqa: ANN401 - any AST node
    """`t.apply().hit` or `.miss`: only a table's apply() has these members."""
    return (
        isinstance(e, ast.Member)
        and e.member in ("hit", "miss")
        and isinstance(e.expr, ast.Call)
        and isinstance(e.expr.func, ast.Member)
        and e.expr.func.member == "apply"
        and not e.expr.args
    )


def _lookahead(e: Any) -> bool:  # noqa: ANN401 - any AST node
    """`pk.lookahead<T>()`: BMv2 reads the bits ahead only as a parser `set` source or a
    select key, so inside an expression it is read into a temporary first."""
    return (
        isinstance(e, ast.Call)
        and isinstance(e.func, ast.Member)
        and e.func.member == "lookahead"
        and len(e.type_args) == 1
        and not e.args
    )


def _peek(e: ast.Expression | None) -> bool:
    """A lookahead, or a field of one, that the back end reads where it stands (the
    whole value of an assignment, or a select key)."""
    return _lookahead(e) or (isinstance(e, ast.Member) and _lookahead(e.expr))


def _extract_to_dont_care(call: ast.Call) -> bool:
    return (
        isinstance(call.func, ast.Member)
        and call.func.member == "extract"
        and len(call.type_args) == 1
        and len(call.args) == 1
        and isinstance(call.args[0].value, ast.DontCare)
    )


def _is_constant(e: ast.Expression) -> bool:
    return isinstance(e, ast.IntLiteral | ast.BoolLiteral | ast.StringLiteral)


class Hoister(StatementRewriter):
    def __init__(self, program: ast.Program) -> None:
        self.functions = {
            d.name: d
            for d in program.declarations
            if isinstance(d, ast.FunctionDeclaration) and not _is_expression_function(d)
        }
        # Any function: a member of its value (`f(x).y`) needs the value stored first.
        self.all_functions = {
            d.name: d for d in program.declarations if isinstance(d, ast.FunctionDeclaration)
        }
        self.names = fresh_names(program)
        # A copy as written, type checked only if an operand's type is needed (the copy
        # itself is cheap: the tree is small beside what the back end does).
        self.copies: dict[int, Any] = {}
        self.pristine = copy.deepcopy(program, self.copies)
        self.checked: ast.Program | None = None
        # Per control: table name -> (variable, key expression) of its hoisted keys.
        self.key_values: dict[str, list[tuple[str, ast.Expression]]] = {}

    # ---- which calls ---------------------------------------------------------------

    def hoisted_function(self, e: ast.Expression) -> ast.FunctionDeclaration | None:
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
            return self.functions.get(e.func.name)
        return None

    def changes_state(self, e: ast.Expression) -> bool:
        """e holds a hoisted call with an out or inout parameter, or applies a table."""
        for n in nodes(e):
            if _table_hit(n):
                return True
            f = self.hoisted_function(n) if isinstance(n, ast.Call) else None
            if f is not None and any(p.direction in ("out", "inout") for p in f.prototype.params):
                return True
        return False

    def member_of_call(self, e: Any) -> bool:  # noqa: ANN401 - any AST node
        """`f(...).y`: a member of a function's value, which has no storage."""
        return (
            isinstance(e, ast.Member)
            and isinstance(e.expr, ast.Call)
            and isinstance(e.expr.func, ast.Name)
            and e.expr.func.name in self.all_functions
        )

    def needs_hoisting(self, e: ast.Expression, in_condition: bool = False) -> bool:
        """e holds a call to hoist, a member of a function's value, or (outside an if's
        condition, where the back end branches on the table's hit and miss) a table's
        `apply().hit`."""
        return any(
            (isinstance(n, ast.Call) and self.hoisted_function(n))
            or self.member_of_call(n)
            or (not in_condition and _table_hit(n))
            or _lookahead(n)
            or self.choice_of_aggregates(n)
            for n in nodes(e)
        )

    def choice_of_aggregates(self, e: Any) -> bool:  # noqa: ANN401 - any AST node
        """`c ? x : y` of structs, headers, header unions, stacks or tuples: BMv2's `?`
        chooses between scalars only, so the choice becomes an if statement."""
        return isinstance(e, ast.Ternary) and isinstance(
            self.type_of(e), t.StructLike | t.HeaderStack | t.Tuple
        )

    # ---- temporaries ---------------------------------------------------------------

    def temporary(
        self, pos: SourcePos, type_ref: ast.TypeRef, value: ast.Expression | None, pre: list
    ) -> ast.Name:
        name = self.names.fresh()
        pre.append(ast.VariableDeclaration(pos, name, type_ref, value))
        return ast.Name(pos, name)

    def saved(self, e: ast.Expression, pre: list) -> ast.Expression:
        """e evaluated now, into a temporary of its type."""
        if _is_constant(e):
            return e
        ty = self.type_of(e)
        if isinstance(ty, t.InfInt):  # a compile-time constant: nothing can change it
            return e
        if ty is None and isinstance(e, ast.Name):  # a temporary made here: nor this
            return e
        type_ref = _type_ref(ty, e.pos)
        if type_ref is None:
            raise CompileError(
                e.pos,
                f"this operand (of type {ty}) is evaluated before a call that may change it"
                " (out or inout arguments) and cannot be saved; assign the call to a"
                " variable first",
            )
        return self.temporary(e.pos, type_ref, e, pre)

    def type_of(self, e: ast.Expression) -> t.Type | None:
        """e's type, from a type check of the program as written (made once, on a copy,
        since the temporaries are declared by their type as P4 writes it)."""
        if self.checked is None:
            check(self.pristine)
            self.checked = self.pristine
        clone = self.copies.get(id(e))
        return clone.type if clone is not None else None

    # ---- expressions, left to right --------------------------------------------------

    def expr(
        self, e: ast.Expression, pre: list, conditional: bool = False, in_condition: bool = False
    ) -> ast.Expression:
        if not self.needs_hoisting(e, in_condition):
            return e
        if _lookahead(e):
            return self.temporary(e.pos, e.type_args[0], e, pre)
        if isinstance(e, ast.Call):
            return self.call(e, pre, conditional)
        if _table_hit(e) and not in_condition:
            return self.table_hit(e, pre, conditional)
        if isinstance(e, ast.Binary) and e.op in ("&&", "||"):
            e.left = self.expr(e.left, pre, conditional, in_condition)
            if self.changes_state(e.right):
                return self.short_circuit(e, pre)
            e.right = self.expr(e.right, pre, True, in_condition)
            return e
        if isinstance(e, ast.Unary) and e.op == "!":
            e.operand = self.expr(e.operand, pre, conditional, in_condition)
            return e
        if isinstance(e, ast.Ternary):
            e.cond = self.expr(e.cond, pre, conditional)
            if (
                self.changes_state(e.then)
                or self.changes_state(e.otherwise)
                or self.choice_of_aggregates(e)
            ):
                return self.branches(e, pre)
            e.then = self.expr(e.then, pre, True)
            e.otherwise = self.expr(e.otherwise, pre, True)
            return e
        if isinstance(e, ast.Binary):
            e.left, e.right = self.operands([e.left, e.right], pre, conditional)
        elif isinstance(e, ast.Unary):
            e.operand = self.expr(e.operand, pre, conditional)
        elif self.member_of_call(e):
            assert isinstance(e, ast.Member) and isinstance(e.expr, ast.Call)
            call = e.expr
            f = self.all_functions[call.func.name]  # type: ignore[union-attr]
            self.arguments(call, pre, conditional)
            if conditional and self.changes_state(call):
                raise CompileError(call.pos, "this call is made only sometimes; use an if")
            if f.prototype.return_type is None:
                raise CompileError(call.pos, f"'{f.name}' has no value")
            e.expr = self.temporary(call.pos, f.prototype.return_type, call, pre)
        elif isinstance(e, ast.Cast | ast.Member):
            e.expr = self.expr(e.expr, pre, conditional)
        elif isinstance(e, ast.Index):
            e.expr, e.index = self.operands([e.expr, e.index], pre, conditional)
        elif isinstance(e, ast.Slice):
            e.expr, e.hi, e.lo = self.operands([e.expr, e.hi, e.lo], pre, conditional)
        elif isinstance(e, ast.ListExpression):
            e.items = self.operands(e.items, pre, conditional)
        elif isinstance(e, ast.StructExpression):
            values = self.operands([v for _, v in e.fields], pre, conditional)
            e.fields = [(n, v) for (n, _), v in zip(e.fields, values, strict=True)]
        elif isinstance(e, ast.SelectExpression):
            keys = self.operands([k for k in e.keys if not _peek(k)], pre, conditional)
            e.keys = [k if _peek(k) else keys.pop(0) for k in e.keys]
        else:
            raise CompileError(e.pos, "a function call is not supported inside this expression")
        return e

    def short_circuit(self, e: ast.Binary, pre: list) -> ast.Expression:
        """`a && b` or `a || b` whose right operand changes state (an out or inout call,
        a table's apply): `bool tmp = a; if (tmp) { tmp = b; }` (`if (!tmp)` for ||), so
        that b runs only when the spec evaluates it."""
        flag = self.temporary(e.pos, ast.BaseTypeRef(e.pos, "bool"), e.left, pre)
        when: ast.Expression = ast.Name(e.pos, flag.name)
        if e.op == "||":
            when = ast.Unary(e.pos, "!", when)
        pre.append(ast.IfStatement(e.pos, when, self.evaluated(e.right, flag), None))
        return ast.Name(e.pos, flag.name)

    def branches(self, e: ast.Ternary, pre: list) -> ast.Expression:
        """`c ? x : y` whose branch changes state, or of structs or headers: `T tmp;
        if (c) { tmp = x; } else { tmp = y; }`, so that only the chosen branch runs."""
        ty = self.type_of(e)
        type_ref = _type_ref(ty, e.pos)
        if type_ref is None:
            raise CompileError(
                e.pos,
                f"a branch of this ?: (of type {ty}) calls a function with out or inout"
                " parameters or applies a table; write it as an if statement",
            )
        value = self.temporary(e.pos, type_ref, None, pre)
        then, otherwise = self.evaluated(e.then, value), self.evaluated(e.otherwise, value)
        pre.append(ast.IfStatement(e.pos, e.cond, then, otherwise))
        return ast.Name(e.pos, value.name)

    def evaluated(self, e: ast.Expression, target: ast.Name) -> ast.BlockStatement:
        """A block that evaluates `e` (its calls hoisted inside it) into `target`."""
        inner: list[ast.Statement] = []
        value = self.expr(e, inner)
        inner.append(ast.Assignment(e.pos, ast.Name(e.pos, target.name), value))
        return ast.BlockStatement(e.pos, inner)

    def operands(
        self, items: list[ast.Expression], pre: list, conditional: bool
    ) -> list[ast.Expression]:
        """Operands evaluated in order; those before one that changes state are saved."""
        result = []
        for i, item in enumerate(items):
            later_changes = any(self.changes_state(x) for x in items[i + 1 :])
            item = self.expr(item, pre, conditional)
            if later_changes:
                item = self.saved(item, pre)
            result.append(item)
        return result

    def arguments(self, e: ast.Call, pre: list, conditional: bool) -> None:
        """e's arguments in order: calls in them hoisted, and those before an argument
        that changes state saved first (an out or inout one cannot be: refused)."""
        f = self.hoisted_function(e)
        params = f.prototype.params if f is not None else None
        for i, argument in enumerate(e.args):
            param = None
            if params is not None:
                if argument.name is not None:
                    param = next((p for p in params if p.name == argument.name), None)
                elif i < len(params):
                    param = params[i]
            if param is not None and param.direction in ("out", "inout"):
                if self.needs_hoisting(argument.value):
                    raise CompileError(
                        argument.pos, "a function call inside an out or inout argument"
                    )
                continue
            argument.value = self.expr(argument.value, pre, conditional)
            if any(self.changes_state(a.value) for a in e.args[i + 1 :]):
                if param is None:  # a direction we do not know: saving could be wrong
                    raise CompileError(
                        argument.pos,
                        "this argument is evaluated before a call that may change it;"
                        " assign the call to a variable first",
                    )
                argument.value = self.saved(argument.value, pre)

    def table_hit(self, e: ast.Member, pre: list, conditional: bool) -> ast.Expression:
        """`t.apply().hit` as a value: the table applied by an if statement of its own,
        which sets a new bool (the back end branches on a table's hit and miss)."""
        if conditional:
            raise CompileError(
                e.pos,
                "this table is applied only sometimes (after && or ||, or in a branch of"
                " ?:); apply it in an if statement",
            )
        flag = self.temporary(e.pos, ast.BaseTypeRef(e.pos, "bool"), None, pre)

        def set_flag(value: bool) -> ast.Statement:
            return ast.Assignment(e.pos, ast.Name(e.pos, flag.name), ast.BoolLiteral(e.pos, value))

        pre.append(ast.IfStatement(e.pos, e, set_flag(True), set_flag(False)))
        return ast.Name(e.pos, flag.name)

    def call(self, e: ast.Call, pre: list, conditional: bool) -> ast.Expression:
        if isinstance(e.func, ast.Member) and self.needs_hoisting(e.func.expr):
            # A method of a function's value, `f().isValid()` (p4c's issue3001-1): the
            # object first, then the arguments.
            e.func.expr = self.expr(e.func.expr, pre, conditional)
        self.arguments(e, pre, conditional)
        f = self.hoisted_function(e)
        if f is None:
            return e
        if conditional and self.changes_state(e):
            raise CompileError(
                e.pos,
                f"'{f.name}' has out or inout parameters, and here it is called only"
                " sometimes (after && or ||, or in a branch of ?:); write it as an if"
                " statement",
            )
        if f.prototype.return_type is None or f.prototype.type_params:
            raise CompileError(e.pos, f"generic function '{f.name}' used in an expression")
        return self.temporary(e.pos, f.prototype.return_type, e, pre)

    # ---- statements ----------------------------------------------------------------

    def direct(self, e: ast.Expression | None) -> bool:
        """e is a call the back end inlines where it stands (`x = f(...)`)."""
        return e is not None and self.hoisted_function(e) is not None

    def stmt(self, s: ast.Statement) -> list[ast.Statement]:
        return [*self.stmts(self.key_assignments(s)), *self.statement(s)]

    def statement(self, s: ast.Statement) -> list[ast.Statement]:
        pre: list[ast.Statement] = []
        peeks = _peek(s.rhs) and s.op == "=" if isinstance(s, ast.Assignment) else False
        if peeks or (isinstance(s, ast.VariableDeclaration) and _peek(s.init)):
            pass  # the back end reads these in place
        elif isinstance(s, ast.Assignment):
            # The target first: its indices are evaluated before the value (and saved
            # when the value's calls could change what they read).
            self.target_indices(s.lhs, pre, self.changes_state(s.rhs))
            if s.op == "=" and self.direct(s.rhs):
                assert isinstance(s.rhs, ast.Call)
                self.arguments(s.rhs, pre, False)
            else:
                s.rhs = self.expr(s.rhs, pre)
        elif isinstance(s, ast.VariableDeclaration) and s.init is not None:
            if self.direct(s.init):
                assert isinstance(s.init, ast.Call)
                self.arguments(s.init, pre, False)
            else:
                s.init = self.expr(s.init, pre)
        elif isinstance(s, ast.MethodCallStatement) and _lookahead(s.call):
            # Its value unused, it still fails with PacketTooShort when the bits are not
            # there: read into a temporary.
            self.temporary(s.pos, s.call.type_args[0], s.call, pre)
            return pre
        elif isinstance(s, ast.MethodCallStatement) and _extract_to_dont_care(s.call):
            # `pk.extract<H>(_)`: extracted into a header of its own, then forgotten.
            header = self.temporary(s.pos, s.call.type_args[0], None, pre)
            s.call.args[0].value = header
        elif isinstance(s, ast.MethodCallStatement):
            self.arguments(s.call, pre, False)
        elif isinstance(s, ast.IfStatement):
            s.cond = self.expr(s.cond, pre, in_condition=True)
            s.then = self.branch(s.then)
            if s.otherwise is not None:
                s.otherwise = self.branch(s.otherwise)
        elif isinstance(s, ast.BlockStatement):
            s.stmts = self.stmts(s.stmts)
        elif isinstance(s, ast.LoopStatement):
            s.body.stmts = self.stmts(s.body.stmts)
            s.update.stmts = self.stmts(s.update.stmts)
        elif isinstance(s, ast.SwitchStatement):
            s.expr = self.expr(s.expr, pre)
            for case in s.cases:
                if case.body is not None:
                    case.body.stmts = self.stmts(case.body.stmts)
        elif isinstance(s, ast.ReturnStatement) and s.value is not None:
            s.value = self.expr(s.value, pre)
        return [*pre, s]

    def enter_control(self, control: ast.ControlDeclaration) -> None:
        """A control's variables are initialised, in order, when it is applied. Where an
        initialiser needs hoisting, every initialiser moves to the start of the apply
        block (keeping their order), where statements can be put before it."""
        self.hoist_keys(control)
        variables = [d for d in control.locals if isinstance(d, ast.VariableDeclaration) and d.init]
        if not any(self.needs_hoisting(d.init) for d in variables if d.init is not None):
            return
        starts: list[ast.Statement] = []
        for d in variables:
            assert d.init is not None
            starts.append(ast.Assignment(d.pos, ast.Name(d.pos, d.name), d.init))
            d.init = None
        control.body.stmts[:0] = starts

    def leave_control(self, control: ast.ControlDeclaration) -> None:
        self.key_values = {}

    def hoist_keys(self, control: ast.ControlDeclaration) -> None:
        """A table key that needs hoisting (`sub.apply().hit : exact @name("k")`, p4c's
        issue2362-bmv2) reads a control variable of its own, which each application of
        the table assigns first, as p4c's side-effect ordering does. Only a key with a
        `@name` is moved: any other is an error for want of a name (see names.py), as in
        p4c, and keeps its expression for that message."""
        for table in [d for d in control.locals if isinstance(d, ast.TableDeclaration)]:
            key = table.property("key")
            if not isinstance(key, ast.KeyProperty):
                continue
            for element in key.elements:
                named = ast.find_annotation(element.annotations, "name") is not None
                if not (named and self.needs_hoisting(element.expr)):
                    continue
                type_ref = _type_ref(self.type_of(element.expr), element.pos)
                if type_ref is None:
                    raise CompileError(element.pos, "this key's type cannot be held in a variable")
                variable = ast.VariableDeclaration(element.pos, self.names.fresh(), type_ref, None)
                control.locals.insert(control.locals.index(table), variable)
                self.key_values.setdefault(table.name, []).append((variable.name, element.expr))
                element.expr = ast.Name(element.pos, variable.name)

    def key_assignments(self, s: ast.Statement) -> list[ast.Statement]:
        """`key_variable = key expression;` for each hoisted key of each table that `s`
        itself applies, in the order the tables are applied."""
        if not self.key_values:
            return []
        assignments: list[ast.Statement] = []
        for n in nodes(_own_expressions(s)):
            if (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Member)
                and n.func.member == "apply"
                and isinstance(n.func.expr, ast.Name)
            ):
                for name, value in self.key_values.get(n.func.expr.name, []):
                    target = ast.Name(n.pos, name)
                    assignments.append(ast.Assignment(n.pos, target, copy.deepcopy(value)))
        return assignments

    def target_indices(self, e: ast.Expression, pre: list, save: bool) -> None:
        """The run-time indices in an assignment's target, left to right: calls in them
        hoisted, and each saved in a temporary when `save`."""
        if isinstance(e, ast.Member | ast.Slice):
            self.target_indices(e.expr, pre, save)
        elif isinstance(e, ast.Index):
            self.target_indices(e.expr, pre, save)
            index = self.expr(e.index, pre)
            if save and index is e.index and not _is_constant(index):
                index = self.saved(index, pre)
            e.index = index

    def parser_state(self, state: ast.ParserState) -> None:
        state.stmts = self.stmts(state.stmts)
        if state.transition is not None and self.needs_hoisting(state.transition):
            pre: list[ast.Statement] = []
            state.transition = self.expr(state.transition, pre)
            state.stmts += pre


def hoist_calls(program: ast.Program) -> ast.Program:
    """program with every call of a many-statement function that stands inside an
    expression hoisted before its statement (in place; returned for chaining)."""
    Hoister(program).program(program)
    return program

"""The P4_16 abstract syntax tree (names follow the spec's grammar, appendix H).

Nodes are plain dataclasses.  The type checker fills the `type` slot of expressions and
the `ref` slot of names in place rather than building a second tree, so that the back
ends can walk one tree and see both the syntax and what it means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p4aqm.compiler.diagnostics import SourcePos
from p4aqm.compiler.lexer import Token


@dataclass
class Node:
    pos: SourcePos


@dataclass
class Annotation(Node):
    name: str
    body: list[Token] = field(default_factory=list)  # unparsed, as the spec allows
    # Parsed when the body is a comma-separated list of expressions, as most are.
    exprs: list[Expression] | None = None


def find_annotation(annotations: list[Annotation], name: str) -> Annotation | None:
    return next((a for a in annotations if a.name == name), None)


# ---- types ------------------------------------------------------------------------


@dataclass
class TypeRef(Node):
    pass


@dataclass
class BaseTypeRef(TypeRef):
    kind: str  # bit, int, varbit, bool, error, string, void, match_kind
    width: Expression | None = None  # bit<W>, int<W>, varbit<W>; `bit` alone is bit<1>


@dataclass
class NamedTypeRef(TypeRef):
    name: str
    args: list[TypeRef] = field(default_factory=list)  # T<A, B>
    is_global: bool = False  # written `.T`


@dataclass
class StackTypeRef(TypeRef):
    element: TypeRef
    size: Expression


@dataclass
class TupleTypeRef(TypeRef):
    kind: str  # tuple or list
    args: list[TypeRef]


@dataclass
class DontCareTypeRef(TypeRef):
    pass


# ---- expressions ------------------------------------------------------------------


@dataclass
class Expression(Node):
    # Filled by the type checker.
    type: Any = field(default=None, init=False, repr=False, compare=False)


@dataclass
class IntLiteral(Expression):
    value: int
    width: int | None
    signed: bool
    base: int = 10


@dataclass
class BoolLiteral(Expression):
    value: bool


@dataclass
class StringLiteral(Expression):
    value: str


@dataclass
class Name(Expression):
    name: str
    is_global: bool = False
    ref: Any = field(default=None, init=False, repr=False, compare=False)


@dataclass
class Member(Expression):
    expr: Expression
    member: str
    ref: Any = field(default=None, init=False, repr=False, compare=False)


@dataclass
class Index(Expression):
    expr: Expression
    index: Expression


@dataclass
class Slice(Expression):
    """`e[hi:lo]`, or `e[L +: W]` parsed as `e[L + W - 1 : L]` with `plus_width` W.
    When L is known only at run time the type checker sets `run_time_start`, and `hi`
    is then the constant W - 1: the top bit counted from L."""

    expr: Expression
    hi: Expression
    lo: Expression
    plus_width: Expression | None = None
    run_time_start: bool = False


@dataclass
class Argument(Node):
    value: Expression  # DontCare for `_`
    name: str | None = None


@dataclass
class Call(Expression):
    func: Expression
    type_args: list[TypeRef]
    args: list[Argument]
    ref: Any = field(default=None, init=False, repr=False, compare=False)


@dataclass
class TypeExpression(Expression):
    """A type where an expression is expected: `bit<8>` in `(bit<8>).minSizeInBits`-like
    uses and constructor calls of specialized types."""

    type_ref: TypeRef


@dataclass
class Unary(Expression):
    op: str  # ! ~ - +
    operand: Expression


@dataclass
class Binary(Expression):
    op: str
    left: Expression
    right: Expression


@dataclass
class Ternary(Expression):
    cond: Expression
    then: Expression
    otherwise: Expression


@dataclass
class Cast(Expression):
    type_ref: TypeRef
    expr: Expression


@dataclass
class ListExpression(Expression):
    items: list[Expression]
    # `{a, ...}`: the items not given take their type's default value (P4_16 1.2.4).
    dots: bool = False


@dataclass
class StructExpression(Expression):
    fields: list[tuple[str, Expression]]
    type_ref: TypeRef | None = None  # (T){...} is parsed as a cast of this
    dots: bool = False  # `{x = a, ...}`: the fields not named take default values


@dataclass
class Dots(Expression):
    """`...` as a value: the default value of the type it initializes (P4_16 1.2.4).
    The type checker builds that value in `value`, and it replaces this node."""

    value: Expression | None = field(default=None, repr=False, compare=False)


@dataclass
class InvalidHeader(Expression):
    """`{#}`: an invalid header or union."""


@dataclass
class DontCare(Expression):
    pass


@dataclass
class Default(Expression):
    """`default` as a select case or entry key."""


@dataclass
class Mask(Expression):
    value: Expression
    mask: Expression


@dataclass
class Range(Expression):
    lo: Expression
    hi: Expression


# ---- statements -------------------------------------------------------------------


@dataclass
class Statement(Node):
    pass


@dataclass
class Assignment(Statement):
    lhs: Expression
    rhs: Expression
    op: str = "="  # compound assignments of P4_16 1.2.4 keep their operator


@dataclass
class MethodCallStatement(Statement):
    call: Call


@dataclass
class BlockStatement(Statement):
    stmts: list[Statement]
    annotations: list[Annotation] = field(default_factory=list)


@dataclass
class IfStatement(Statement):
    cond: Expression
    then: Statement
    otherwise: Statement | None


@dataclass
class SwitchCase(Node):
    label: Expression  # Default for `default`
    body: BlockStatement | None  # None: falls through to the next case


@dataclass
class SwitchStatement(Statement):
    expr: Expression
    cases: list[SwitchCase]


@dataclass
class ExitStatement(Statement):
    pass


@dataclass
class ReturnStatement(Statement):
    value: Expression | None


@dataclass
class EmptyStatement(Statement):
    pass


@dataclass
class ForStatement(Statement):
    """`for (init; cond; update) body` (spec 12.8, P4_16 1.2.5); loops.py rewrites it
    into a LoopStatement before any other pass."""

    init: list[Statement]
    cond: Expression
    update: list[Statement]
    body: Statement


@dataclass
class ForInStatement(Statement):
    """`for (T x in collection) body`: a range `lo .. hi`, a list expression or a
    header stack; loops.py rewrites it as ForStatement does."""

    var: VariableDeclaration
    collection: Expression
    body: Statement


@dataclass
class LoopStatement(Statement):
    """What every loop becomes: `body` then `update`, again and again, until a
    `break`; a `continue` skips the rest of `body` to `update`."""

    body: BlockStatement
    update: BlockStatement
    # The header stack of a `for (T x in stack)` loop, for the type checker's message.
    collection: Expression | None = field(default=None, repr=False, compare=False)


@dataclass
class BreakStatement(Statement):
    pass


@dataclass
class ContinueStatement(Statement):
    pass


# ---- declarations -----------------------------------------------------------------


@dataclass
class Declaration(Node):
    name: str
    annotations: list[Annotation] = field(default_factory=list, kw_only=True)


@dataclass
class ConstantDeclaration(Declaration, Statement):
    type_ref: TypeRef
    value: Expression


@dataclass
class VariableDeclaration(Declaration, Statement):
    type_ref: TypeRef
    init: Expression | None
    # The variable's type, filled by the type checker.
    resolved: Any = field(default=None, init=False, repr=False, compare=False)


@dataclass
class StructField(Node):
    annotations: list[Annotation]
    type_ref: TypeRef
    name: str


@dataclass
class HeaderDeclaration(Declaration):
    type_params: list[str]
    fields: list[StructField]


@dataclass
class HeaderUnionDeclaration(Declaration):
    type_params: list[str]
    fields: list[StructField]


@dataclass
class StructDeclaration(Declaration):
    type_params: list[str]
    fields: list[StructField]


@dataclass
class EnumDeclaration(Declaration):
    underlying: TypeRef | None  # serializable enums: enum bit<8> E { ... }
    members: list[tuple[str, Expression | None, SourcePos]]


@dataclass
class ErrorDeclaration(Declaration):
    members: list[tuple[str, SourcePos]]


@dataclass
class MatchKindDeclaration(Declaration):
    members: list[tuple[str, SourcePos]]


@dataclass
class TypedefDeclaration(Declaration):
    type_ref: TypeRef
    is_new_type: bool  # `type` rather than `typedef`


@dataclass
class Parameter(Node):
    annotations: list[Annotation]
    direction: str  # "", in, out, inout
    type_ref: TypeRef
    name: str
    default: Expression | None = None
    # The parameter's type, filled by the type checker.
    resolved: Any = field(default=None, init=False, repr=False, compare=False)


@dataclass
class FunctionPrototype(Declaration):
    return_type: TypeRef | None  # None for constructors
    type_params: list[str]
    params: list[Parameter]
    is_abstract: bool = False


@dataclass
class ExternDeclaration(Declaration):
    type_params: list[str]
    methods: list[FunctionPrototype]  # constructors have return_type None


@dataclass
class ExternFunctionDeclaration(Declaration):
    prototype: FunctionPrototype


@dataclass
class ParserTypeDeclaration(Declaration):
    type_params: list[str]
    params: list[Parameter]


@dataclass
class ControlTypeDeclaration(Declaration):
    type_params: list[str]
    params: list[Parameter]


@dataclass
class PackageTypeDeclaration(Declaration):
    type_params: list[str]
    params: list[Parameter]


@dataclass
class ActionDeclaration(Declaration):
    params: list[Parameter]
    body: BlockStatement


@dataclass
class FunctionDeclaration(Declaration):
    prototype: FunctionPrototype
    body: BlockStatement


@dataclass
class Instantiation(Declaration, Statement):
    type_ref: TypeRef
    args: list[Argument]
    initializer: list[Declaration] | None = None  # abstract method implementations
    # For a control instance made by specialize.py from one passed by name: the
    # instance whose objects (externs) this one shares, as (levels, name): `name` is
    # declared in the control that many instance levels above the one declaring this
    # (1: beside the specialised control's own instance).
    shares: tuple[int, str] | None = None
    # The instantiated type, filled by the type checker.
    resolved: Any = field(default=None, init=False, repr=False, compare=False)


@dataclass
class ValueSetDeclaration(Declaration):
    type_ref: TypeRef
    size: Expression


@dataclass
class SelectCase(Node):
    keyset: Expression  # ListExpression for tuples, Default, Mask, Range, DontCare
    state: str
    annotations: list[Annotation] = field(default_factory=list)


@dataclass
class SelectExpression(Expression):
    keys: list[Expression]
    cases: list[SelectCase]


@dataclass
class ParserState(Declaration):
    stmts: list[Statement]
    transition: Expression | None  # Name of a state, or SelectExpression; None: reject


@dataclass
class ParserDeclaration(Declaration):
    type_params: list[str]
    params: list[Parameter]
    ctor_params: list[Parameter]
    locals: list[Declaration]
    states: list[ParserState]


@dataclass
class KeyElement(Node):
    annotations: list[Annotation]
    expr: Expression
    match_kind: str


@dataclass
class ActionRef(Node):
    annotations: list[Annotation]
    expr: Expression  # Name or Call (with bound arguments)


@dataclass
class Entry(Node):
    annotations: list[Annotation]
    keyset: Expression
    action: Expression
    priority: Expression | None
    is_const: bool


@dataclass
class TableProperty(Node):
    annotations: list[Annotation]
    name: str
    is_const: bool


@dataclass
class KeyProperty(TableProperty):
    elements: list[KeyElement]


@dataclass
class ActionsProperty(TableProperty):
    actions: list[ActionRef]


@dataclass
class EntriesProperty(TableProperty):
    entries: list[Entry]


@dataclass
class ValueProperty(TableProperty):
    value: Expression


@dataclass
class TableDeclaration(Declaration):
    properties: list[TableProperty]

    def property(self, name: str) -> TableProperty | None:
        return next((p for p in self.properties if p.name == name), None)


@dataclass
class ControlDeclaration(Declaration):
    type_params: list[str]
    params: list[Parameter]
    ctor_params: list[Parameter]
    locals: list[Declaration]
    body: BlockStatement


@dataclass
class Program(Node):
    declarations: list[Declaration]

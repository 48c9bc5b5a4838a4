"""The types of P4_16 (spec section 7) as the type checker and back ends see them.

Declared types (headers, structs, enums, externs, parser and control types) keep a link
to their declaration so that the back ends can read annotations and source order.
Identity matters for them (two struct types with equal fields are still different
types), so they compare by identity; base types compare by value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class Type:
    def __str__(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Bits(Type):
    width: int
    signed: bool = False

    def __str__(self) -> str:
        return f"{'int' if self.signed else 'bit'}<{self.width}>"


@dataclass(frozen=True)
class InfInt(Type):
    """The type of unsized integer literals and compile-time integers."""

    def __str__(self) -> str:
        return "int"


@dataclass(frozen=True)
class Varbit(Type):
    max_width: int

    def __str__(self) -> str:
        return f"varbit<{self.max_width}>"


@dataclass(frozen=True)
class Bool(Type):
    def __str__(self) -> str:
        return "bool"


@dataclass(frozen=True)
class String(Type):
    def __str__(self) -> str:
        return "string"


@dataclass(frozen=True)
class Error(Type):
    def __str__(self) -> str:
        return "error"


@dataclass(frozen=True)
class MatchKind(Type):
    def __str__(self) -> str:
        return "match_kind"


@dataclass(frozen=True)
class Void(Type):
    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True)
class DontCareType(Type):
    def __str__(self) -> str:
        return "_"


@dataclass(frozen=True)
class DefaultValue(Type):
    """`...` before it is given the type it initializes (P4_16 1.2.4)."""

    def __str__(self) -> str:
        return "a default value '...'"


@dataclass(frozen=True)
class TypeVar(Type):
    name: str
    owner: int  # id() of the declaring generic, so that equal names stay distinct

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False)
class StructLike(Type):
    kind: str  # header, header_union, struct
    name: str
    fields: list[tuple[str, Type]]
    decl: Any = None

    def field_type(self, name: str) -> Type | None:
        return next((t for n, t in self.fields if n == name), None)

    def __str__(self) -> str:
        return f"{self.kind} {self.name}"


@dataclass(eq=False)
class HeaderStack(Type):
    element: Type
    size: int

    def __str__(self) -> str:
        return f"{self.element}[{self.size}]"


def same_stack_type(a: Type | None, b: Type | None) -> bool:
    """Two stacks of one element type and size: the same type (HeaderStack compares by
    identity, as each declaration makes its own)."""
    return (
        isinstance(a, HeaderStack)
        and isinstance(b, HeaderStack)
        and a.size == b.size
        and a.element is b.element
    )


@dataclass(eq=False)
class Enum(Type):
    name: str
    members: list[str]
    underlying: Bits | None = None  # serializable enums
    values: dict[str, int] = field(default_factory=dict)
    decl: Any = None

    def __str__(self) -> str:
        return f"enum {self.name}"


@dataclass(frozen=True)
class Tuple(Type):
    items: tuple[Type, ...]

    def __str__(self) -> str:
        return f"tuple<{', '.join(map(str, self.items))}>"


@dataclass(eq=False)
class Extern(Type):
    name: str
    decl: Any
    type_args: dict[str, Type] = field(default_factory=dict)

    def __str__(self) -> str:
        args = f"<{', '.join(map(str, self.type_args.values()))}>" if self.type_args else ""
        return f"extern {self.name}{args}"


def same_extern_type(a: Type | None, b: Type | None) -> bool:
    """Two uses of one extern with equal type arguments: the same type (Extern compares by
    identity, as each reference makes its own while its type variables are inferred)."""
    return (
        isinstance(a, Extern)
        and isinstance(b, Extern)
        and a.decl is b.decl
        and a.type_args.keys() == b.type_args.keys()
        and all(a.type_args[k] == b.type_args[k] for k in a.type_args)
    )


@dataclass(eq=False)
class BlockType(Type):
    """Parser, control and package types; `decl` tells which."""

    kind: str  # parser, control, package
    name: str
    decl: Any
    type_args: dict[str, Type] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.kind} {self.name}"


@dataclass(frozen=True)
class ActionType(Type):
    def __str__(self) -> str:
        return "action"


@dataclass(eq=False)
class TableType(Type):
    decl: Any

    def __str__(self) -> str:
        return f"table {self.decl.name}"


@dataclass(eq=False)
class ApplyResult(Type):
    """`t.apply()`: a struct with hit, miss and action_run (spec 14.2.2)."""

    table: Any

    def __str__(self) -> str:
        return "apply result"


@dataclass(frozen=True)
class ActionEnum(Type):
    """The type of `t.apply().action_run`: one member per action of the table."""

    table_name: str

    def __str__(self) -> str:
        return f"action_list({self.table_name})"


def is_numeric(t: Type) -> bool:
    return isinstance(t, Bits | InfInt)


def width_of(t: Type) -> int:
    """Bits a value of `t` takes in a BMv2 field (bool and error included)."""
    if isinstance(t, Bits):
        return t.width
    if isinstance(t, Bool):
        return 1
    if isinstance(t, Error):
        return 32
    if isinstance(t, Enum):
        return t.underlying.width if t.underlying else 32
    if isinstance(t, Varbit):
        return t.max_width
    if isinstance(t, StructLike):
        return sum(width_of(ft) for _, ft in t.fields)
    raise ValueError(f"type {t} has no width")

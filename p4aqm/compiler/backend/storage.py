"""Where each P4 value lives in BMv2: header instances, and fields of the `scalars` header.

BMv2 only knows header instances with fixed fields.  As p4c does, the v1model headers
struct is flattened into one instance per header (named by its path in the struct),
`standard_metadata` is an instance of its own, and every scalar the program stores -
user metadata, local variables, temporaries - becomes a field of a single metadata
instance called `scalars`, whose header type is `scalars_0`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError, SourcePos

SCALARS = "scalars"


@dataclass(frozen=True)
class HeaderRef:
    instance: str


@dataclass(frozen=True)
class FieldRef:
    instance: str
    field: str


@dataclass(frozen=True)
class StructRef:
    """A struct-valued location: its members are looked up in the layout by path."""

    root: Any
    path: tuple[str, ...]


@dataclass(frozen=True)
class StackRef:
    """A header stack; its elements are the instances `name[0]` ... `name[size-1]`."""

    name: str
    size: int


@dataclass
class Stack:
    name: str
    header_type: str
    elements: list[str]


@dataclass(frozen=True)
class UnionRef:
    """A header union: one header instance per member, `name.member`."""

    root: Any
    path: tuple[str, ...]
    name: str


@dataclass
class Union:
    name: str
    union_type: str
    members: list[str]  # header instance names


@dataclass(frozen=True)
class UnionStackRef:
    """A header union stack: its elements are the unions `name[0]` ... `name[size-1]`,
    found in the layout by path as `[i]`."""

    root: Any
    path: tuple[str, ...]
    name: str
    size: int


@dataclass
class UnionStack:
    name: str
    union_type: str
    unions: list[str]  # union instance names


@dataclass(frozen=True)
class HeaderStructRef:
    """A struct-typed field of a header instance: its members are the header's fields
    named from `prefix` (nested_field)."""

    instance: str
    prefix: str


@dataclass(frozen=True, eq=False)
class DynamicHeaderRef:
    """A header chosen at run time: a stack element by a computed index (BMv2's
    `dereference_header_stack`), or a member of such a union stack element
    (`access_union_header`).  `expression` is the JSON expression that yields it."""

    expression: Any
    header_type: str


@dataclass(frozen=True, eq=False)
class DynamicFieldRef:
    """A field of a header chosen at run time: `access_field` at the field's offset."""

    header: DynamicHeaderRef
    offset: int


@dataclass(frozen=True, eq=False)
class DynamicUnionRef:
    """A header union stack's element chosen at run time (`dereference_union_stack`)."""

    expression: Any
    union_type: str


Location = (
    HeaderRef
    | FieldRef
    | StructRef
    | StackRef
    | UnionRef
    | UnionStackRef
    | HeaderStructRef
    | DynamicHeaderRef
    | DynamicFieldRef
    | DynamicUnionRef
)


@dataclass
class HeaderType:
    name: str
    # (name, width, signed); a varbit field's width is "*", as BMv2 spells it.
    fields: list[tuple[str, int | str, bool]]
    # With a varbit field: the header's largest size in bytes (BMv2 `max_length`).
    max_length: int | None = None


@dataclass
class Instance:
    name: str
    header_type: str
    metadata: bool


@dataclass
class Layout:
    header_types: dict[str, HeaderType] = field(default_factory=dict)
    instances: list[Instance] = field(default_factory=list)
    scalars: list[tuple[str, int, bool]] = field(default_factory=list)
    stacks: list[Stack] = field(default_factory=list)
    # Union type name -> [(member, header type)], and the union instances.
    union_types: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    unions: list[Union] = field(default_factory=list)
    union_stacks: list[UnionStack] = field(default_factory=list)
    # (root, path) -> location; a root is any hashable key naming a top-level variable.
    locations: dict[tuple[Any, tuple[str, ...]], Location] = field(default_factory=dict)

    def header_type(self, ty: t.StructLike, name: str | None = None) -> str:
        name = name or ty.name
        if name not in self.header_types:
            width = t.width_of(ty)
            if ty.kind == "header" and width % 8:
                # BMv2 reads and writes headers in whole bytes; p4c's HeaderConverter
                # refuses the others (it pads metadata only).
                raise CompileError(
                    ty.decl.pos if ty.decl is not None else None,
                    f"header {ty.name}: its fields total {width} bits; BMv2 only supports"
                    " headers whose fields total a multiple of 8 bits",
                )
            fields = _flat_fields(ty) + _padding(width)
            max_length = None
            if any(isinstance(ft, t.Varbit) for _, ft in ty.fields):
                max_length = (width + 7) // 8
            self.header_types[name] = HeaderType(name, fields, max_length)
        return name

    def add_instance(self, name: str, header_type: str, metadata: bool) -> None:
        if any(i.name == name for i in self.instances):
            return
        self.instances.append(Instance(name, header_type, metadata))

    def add_scalar(self, base: str, ty: t.Type, pos: SourcePos) -> str:
        if isinstance(ty, t.Varbit):
            # A scalar field has a fixed width; variables get instances (`add_varbit`).
            raise CompileError(pos, "a varbit value cannot be held in a temporary here yet")
        try:
            width = t.width_of(ty)
        except ValueError:
            raise CompileError(pos, f"values of type {ty} cannot be stored yet") from None
        name, n = base, 0
        while any(s[0] == name for s in self.scalars):
            name, n = f"{base}_{n}", n + 1
        self.scalars.append((name, width, isinstance(ty, t.Bits) and ty.signed))
        return name

    def add_varbit(self, base: str, ty: t.Varbit, pos: SourcePos) -> FieldRef:
        """A varbit variable, kept as p4c keeps it: BMv2 holds varbit bytes only in a
        header, so each gets a metadata instance of type `$varbit<N>` whose one field,
        `field`, is the value."""
        if ty.max_width % 8:
            raise CompileError(
                pos,
                f"varbit<{ty.max_width}> outside a header: BMv2 keeps it in a header of its "
                "own, and a header's fields must total a multiple of 8 bits",
            )
        type_name = f"$varbit{ty.max_width}"
        if type_name not in self.header_types:
            self.header_types[type_name] = HeaderType(
                type_name, [("field", "*", False)], ty.max_width // 8
            )
        name, n = base, 0
        while any(i.name == name for i in self.instances):
            name, n = f"{base}_{n}", n + 1
        self.instances.append(Instance(name, type_name, metadata=True))
        return FieldRef(name, "field")

    def bind_struct(
        self, root: Any, ty: t.Type, instance_prefix: str, scalar_prefix: str, pos: SourcePos
    ) -> None:
        """Lay out a variable (parameter or local) of type `ty` under `root`."""
        self._bind(root, (), ty, instance_prefix, scalar_prefix, pos)

    def _bind(
        self, root: Any, path: tuple[str, ...], ty: t.Type, inst: str, scal: str, pos: SourcePos
    ) -> None:
        if isinstance(ty, t.StructLike) and ty.kind == "header":
            self.add_instance(inst, self.header_type(ty), metadata=False)
            self.locations[(root, path)] = HeaderRef(inst)
        elif (
            isinstance(ty, t.HeaderStack)
            and isinstance(ty.element, t.StructLike)
            and (ty.element.kind == "header_union")
        ):
            # As p4c lays them out: unions `name[i]` with members `name[i].m`.
            unions = []
            for i in range(ty.size):
                element = f"{inst}[{i}]"
                self._bind(root, (*path, f"[{i}]"), ty.element, element, scal, pos)
                unions.append(element)
            self.union_stacks.append(UnionStack(inst, ty.element.name, unions))
            self.locations[(root, path)] = UnionStackRef(root, path, inst, ty.size)
        elif isinstance(ty, t.HeaderStack) and isinstance(ty.element, t.StructLike):
            header_type = self.header_type(ty.element)
            elements = []
            for i in range(ty.size):
                element = f"{inst}[{i}]"
                self.add_instance(element, header_type, metadata=False)
                self.locations[(root, (*path, f"[{i}]"))] = HeaderRef(element)
                elements.append(element)
            self.stacks.append(Stack(inst, header_type, elements))
            self.locations[(root, path)] = StackRef(inst, ty.size)
        elif isinstance(ty, t.StructLike) and ty.kind == "header_union":
            members = []
            for name, ft in ty.fields:
                assert isinstance(ft, t.StructLike)
                member = f"{inst}.{name}"
                self.add_instance(member, self.header_type(ft), metadata=False)
                self.locations[(root, (*path, name))] = HeaderRef(member)
                members.append((name, ft.name))
            self.union_types.setdefault(ty.name, members)
            self.unions.append(Union(inst, ty.name, [f"{inst}.{n}" for n, _ in members]))
            self.locations[(root, path)] = UnionRef(root, path, inst)
        elif isinstance(ty, t.Tuple):
            # Stored as a struct whose fields are its elements, found by index as `[i]`.
            self.locations[(root, path)] = StructRef(root, path)
            for i, item in enumerate(ty.items):
                sub_inst = f"{inst}.f{i}" if inst else f"f{i}"
                self._bind(root, (*path, f"[{i}]"), item, sub_inst, f"{scal}.f{i}", pos)
        elif isinstance(ty, t.StructLike) and ty.kind == "struct":
            self.locations[(root, path)] = StructRef(root, path)
            for name, ft in ty.fields:
                sub_inst = f"{inst}.{name}" if inst else name
                self._bind(root, (*path, name), ft, sub_inst, f"{scal}.{name}", pos)
        elif isinstance(ty, t.Varbit):
            self.locations[(root, path)] = self.add_varbit(scal, ty, pos)
        else:
            self.locations[(root, path)] = FieldRef(SCALARS, self.add_scalar(scal, ty, pos))

    def bind_metadata_instance(self, root: Any, ty: t.StructLike, name: str) -> None:
        """A struct that BMv2 keeps as a metadata instance of its own (standard_metadata)."""
        self.add_instance(name, self.header_type(ty, name), metadata=True)
        self.locations[(root, ())] = HeaderRef(name)

    def scalars_type(self) -> HeaderType:
        fields = list(self.scalars)
        fields += _padding(sum(w for _, w, _ in fields))
        return HeaderType("scalars_0", fields)


def nested_field(prefix: str, member: str) -> str:
    """The BMv2 field of a struct-typed header field's member: header fields are flat,
    so `p.x` is the field `p_x` (as p4c's header flattening names it)."""
    return f"{prefix}_{member}"


def _flat_fields(ty: t.StructLike, prefix: str = "") -> list[tuple[str, int | str, bool]]:
    fields: list[tuple[str, int | str, bool]] = []
    for n, ft in ty.fields:
        name = nested_field(prefix, n) if prefix else n
        if isinstance(ft, t.StructLike):
            fields += _flat_fields(ft, name)
        else:
            width: int | str = "*" if isinstance(ft, t.Varbit) else t.width_of(ft)
            fields.append((name, width, isinstance(ft, t.Bits) and ft.signed))
    return fields


def _padding(bits: int) -> list[tuple[str, int, bool]]:
    # BMv2 requires every header type to be a whole number of bytes; p4c pads metadata.
    return [("_padding", 8 - bits % 8, False)] if bits % 8 else []

"""Generic structs, headers and header unions (P4_16 1.2.2, spec 7.2.11 "Generic data
types"), specialised before type checking, as p4c's SpecializeGenericTypes does.

    struct S<T> { T f; bit<8> g; }
    ... S<bit<16>> s; ...

becomes a declaration of its own per distinct list of type arguments,

    struct S_bit16 { bit<16> f; bit<8> g; }
    ... S_bit16 s; ...

named as p4c names it (the base name, then each argument as written, less `<`, `>`
and blanks), inserted before the first declaration that uses it. As in p4c, arguments
are compared as written: `S<my_t>` and `S<bit<8>>` are two types even where `my_t` is
a typedef of bit<8>. A use whose arguments name a type variable (inside a generic
function or extern) is left for the type checker, which refuses it by name.
"""

import copy
from typing import Any

from p4aqm.compiler import ast
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.names import expression_text
from p4aqm.compiler.rewrite import nodes, replaced

GenericDeclaration = ast.StructDeclaration | ast.HeaderDeclaration | ast.HeaderUnionDeclaration


def type_text(ref: ast.TypeRef) -> str:
    """A type reference as p4c prints it: `bit<16>`, `S<bit<8>>`, `H[2]`, `tuple<...>`."""
    if isinstance(ref, ast.BaseTypeRef):
        if ref.kind in ("bit", "int", "varbit") and ref.width is not None:
            return f"{ref.kind}<{expression_text(ref.width)}>"
        return "bit<1>" if ref.kind == "bit" else ref.kind
    if isinstance(ref, ast.NamedTypeRef):
        args = f"<{', '.join(type_text(a) for a in ref.args)}>" if ref.args else ""
        return ("." if ref.is_global else "") + ref.name + args
    if isinstance(ref, ast.StackTypeRef):
        return f"{type_text(ref.element)}[{expression_text(ref.size)}]"
    if isinstance(ref, ast.TupleTypeRef):
        return f"{ref.kind}<{', '.join(type_text(a) for a in ref.args)}>"
    return "_"


def _name_part(text: str) -> str:
    for old, new in (("<", ""), (">", ""), (" ", ""), (",", "_"), (".", "_")):
        text = text.replace(old, new)
    return text


def _substitute_types(node: Any, bindings: dict[str, ast.TypeRef]) -> Any:  # noqa: ANN401
    """node with each type variable named in bindings replaced by a copy of its type."""

    def copy_of(n: Any) -> ast.TypeRef | None:  # noqa: ANN401
        if isinstance(n, ast.NamedTypeRef) and not (n.args or n.is_global) and n.name in bindings:
            return copy.deepcopy(bindings[n.name])
        return None

    return replaced(node, copy_of)


def _type_variables(decl: ast.Declaration) -> set[str]:
    """Every type parameter declared in decl or in anything inside it (a generic
    extern's methods, a generic function)."""
    names: set[str] = set()
    for n in nodes(decl):
        names.update(getattr(n, "type_params", None) or [])
    return names


class GenericSpecializer:
    def __init__(self, program: ast.Program) -> None:
        self.generics = {
            d.name: d
            for d in program.declarations
            if isinstance(d, GenericDeclaration) and d.type_params
        }
        self.taken = {d.name for d in program.declarations}
        self.specializations: dict[tuple[str, tuple[str, ...]], str] = {}
        self.out: list[ast.Declaration] = []

    def program(self, program: ast.Program) -> ast.Program:
        for decl in program.declarations:
            if not (isinstance(decl, GenericDeclaration) and decl.type_params):
                self.uses(decl, _type_variables(decl))
            self.out.append(decl)
        program.declarations = self.out
        return program

    def uses(self, tree: Any, type_variables: set[str]) -> None:  # noqa: ANN401
        """Each use of a generic type in tree with arguments free of type variables,
        named after its specialisation (created before tree's declaration if new)."""
        for ref in list(nodes(tree)):
            if not (isinstance(ref, ast.NamedTypeRef) and ref.args and ref.name in self.generics):
                continue
            written = {n.name for n in nodes(ref.args) if isinstance(n, ast.NamedTypeRef)}
            if written & type_variables:
                continue
            ref.name = self.specialization(ref)
            ref.args = []

    def specialization(self, ref: ast.NamedTypeRef) -> str:
        generic = self.generics[ref.name]
        if len(ref.args) != len(generic.type_params):
            count = len(generic.type_params)
            plural = "s" if count != 1 else ""
            raise CompileError(ref.pos, f"'{ref.name}' takes {count} type argument{plural}")
        texts = tuple(type_text(a) for a in ref.args)
        key = (ref.name, texts)
        if key not in self.specializations:
            base = "_".join([ref.name, *(_name_part(text) for text in texts)])
            name, n = base, 0
            while name in self.taken:
                name, n = f"{base}_{n}", n + 1
            self.taken.add(name)
            self.specializations[key] = name
            special = copy.deepcopy(generic)
            special.name = name
            special.type_params = []
            special.fields = _substitute_types(
                special.fields, dict(zip(generic.type_params, ref.args, strict=True))
            )
            # Its fields may use other generic types: those come first.
            self.uses(special, set())
            self.out.append(special)
        return self.specializations[key]


def specialize_generic_types(program: ast.Program) -> ast.Program:
    if not any(isinstance(d, GenericDeclaration) and d.type_params for d in program.declarations):
        return program
    return GenericSpecializer(program).program(program)

"""Parser states: transitions to known states, select keysets and value sets."""

from __future__ import annotations

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError, SourcePos
from p4aqm.compiler.typecheck.constants import const_value
from p4aqm.compiler.typecheck.symbols import Scope, Symbol


def value_set_fields(ty: t.Type) -> list[t.Type] | None:
    """The bit<W> parts of a value set's element type, in key order; None if T is
    not bit<W> or a struct of bit<W> fields. A struct field that is a struct is its
    own fields in turn, flattened as p4c does."""
    if isinstance(ty, t.Bits) and not ty.signed:
        return [ty]
    if isinstance(ty, t.StructLike) and ty.kind == "struct" and ty.fields:
        parts = [
            value_set_fields(ft) if isinstance(ft, t.StructLike) else [ft] for _, ft in ty.fields
        ]
        flat = [ft for part in parts if part is not None for ft in part]
        if None not in parts and all(isinstance(ft, t.Bits) and not ft.signed for ft in flat):
            return flat
    return None


class ParserStates:
    """A mixin of `Checker`."""

    def parser_states(self, decl: ast.ParserDeclaration, scope: Scope) -> None:
        states: dict[str, ast.ParserState] = {}
        for state in decl.states:
            if state.name in states:
                raise CompileError(state.pos, f"'{state.name}' is already declared")
            states[state.name] = state
        for builtin in ("accept", "reject"):
            if builtin in states:
                raise CompileError(states[builtin].pos, f"state '{builtin}' is predefined")
        if "start" not in states:
            raise CompileError(decl.pos, f"parser '{decl.name}' has no 'start' state")
        known = {*states, "accept", "reject"}
        for state in decl.states:
            inner = Scope(scope)
            self.stmts(state.stmts, inner)
            tr = state.transition
            if isinstance(tr, ast.Name):
                self.check_state(tr.name, known, tr.pos)
            elif isinstance(tr, ast.SelectExpression):
                for k in tr.keys:
                    self.expr(k, inner)
                key_types = [k.type for k in tr.keys]
                for case in tr.cases:
                    self.keyset(case.keyset, key_types, inner)
                    self.check_state(case.state, known, case.pos)
                tr.type = t.Void()

    def check_state(self, name: str, known: set[str], pos: SourcePos) -> None:
        if name not in known:
            raise CompileError(pos, f"'{name}' is not a state of this parser")

    def keyset(self, ks: ast.Expression, key_types: list[t.Type], scope: Scope) -> None:
        if isinstance(ks, ast.Default | ast.DontCare):
            ks.type = t.DontCareType()
            return
        sym = scope.lookup(ks.name) if isinstance(ks, ast.Name) else None
        if isinstance(ks, ast.Name) and sym is not None and sym.kind == "value_set":
            self.value_set_keyset(ks, sym, key_types)
            return
        if len(key_types) > 1:
            if not isinstance(ks, ast.ListExpression) or len(ks.items) != len(key_types):
                raise CompileError(ks.pos, f"expected a tuple of {len(key_types)} keysets")
            for item, kt in zip(ks.items, key_types, strict=True):
                self.keyset(item, [kt], scope)
            ks.type = t.Tuple(tuple(key_types))
            return
        kt = key_types[0]
        if isinstance(ks, ast.Mask):
            parts = [ks.value, ks.mask]
        elif isinstance(ks, ast.Range):
            parts = [ks.lo, ks.hi]
        else:
            parts = [ks]
        bits = kt.underlying if isinstance(kt, t.Enum) else None
        for part in parts:
            self.expr(part, scope)
            # A serializable enum converts to its underlying type implicitly (spec 8.3):
            # a keyset may give the key's bits, e.g. `(bit<16>)E.A &&& 0xff00`.
            if bits is not None and (
                part.type == bits or (isinstance(ks, ast.Mask) and part is ks.mask)
            ):
                self.coerce(part, bits)
            else:
                self.coerce(part, kt)
            if const_value(part) is None:
                raise CompileError(part.pos, "a keyset must be a compile-time constant")
        ks.type = kt

    @staticmethod
    def value_set_keyset(ks: ast.Name, sym: Symbol, key_types: list[t.Type]) -> None:
        """A value set as a keyset: its fields are the select key, one by one."""
        fields = value_set_fields(sym.type) or []
        if [str(ft) for ft in fields] != [str(kt) for kt in key_types]:
            want = ", ".join(str(kt) for kt in key_types)
            raise CompileError(
                ks.pos,
                f"value set '{ks.name}' holds {sym.type}, which does not match"
                f" the select key ({want})",
            )
        ks.ref = sym
        ks.type = sym.type

"""Tables: keys, the actions list, default action, size, const entries and direct
resources (spec 14.2.1)."""

from __future__ import annotations

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.diagnostics import CompileError, warn
from p4aqm.compiler.names import expression_text
from p4aqm.compiler.typecheck.constants import const_value
from p4aqm.compiler.typecheck.symbols import Scope

# v1model table properties that attach a direct resource, and the extern they need.
DIRECT_RESOURCES = {"counters": "direct_counter", "meters": "direct_meter"}
# v1model externs a table's `implementation` may be: its actions come from the profile.
PROFILES = ("action_profile", "action_selector")
# Properties that say how entries without an explicit priority are numbered.
PRIORITY_PROPERTIES = ("largest_priority_wins", "priority_delta")


def as_action_call(e: ast.Expression) -> ast.Expression:
    """A table's default action or entry action written as a bare name (`NoAction`), as
    p4c accepts it: the call with no arguments."""
    if isinstance(e, ast.Name):
        return ast.Call(e.pos, e, [], [])
    return e


def is_integer(value: object) -> bool:
    """An integer constant; Python's bool is an int, a P4 bool is not."""
    return isinstance(value, int) and not isinstance(value, bool)


def required_shape(decl: ast.TableDeclaration) -> None:
    """What p4c refuses before typing a table: a property declared twice, no `actions`
    property (its ValidateParsedProgram), more than one lpm key (BMv2's tables have one prefix
    length; p4c's back end: "multiple LPM keys in table")."""
    seen: set[str] = set()
    for prop in decl.properties:
        if prop.name in seen:
            raise CompileError(prop.pos, f"table property '{prop.name}' is declared twice")
        seen.add(prop.name)
    if decl.property("actions") is None:
        raise CompileError(decl.pos, f"table '{decl.name}' does not have an 'actions' property")
    key = decl.property("key")
    lpm = (
        [el for el in key.elements if el.match_kind == "lpm"]
        if isinstance(key, ast.KeyProperty)
        else []
    )
    if len(lpm) > 1:
        raise CompileError(lpm[1].expr.pos, f"multiple LPM keys in table '{decl.name}'")


class Tables:
    """A mixin of `Checker`; keysets of entries are checked as select keysets are."""

    match_kinds: list[str]

    def table(self, decl: ast.TableDeclaration, scope: Scope) -> None:
        required_shape(decl)
        entries = decl.property("entries")
        if decl.property("implementation") is not None and entries is not None:
            # p4c drops them silently; BMv2's indirect tables take no entry at load time.
            const = "const " if entries.is_const else ""
            raise CompileError(
                entries.pos,
                f"{const}entries in a table with an action profile: BMv2 cannot hold them",
            )
        for prop in decl.properties:
            if isinstance(prop, ast.KeyProperty):
                for el in prop.elements:
                    self.expr(el.expr, scope)
                    if el.match_kind not in self.match_kinds:
                        raise CompileError(el.pos, f"'{el.match_kind}' is not a match kind")
                    if not isinstance(el.expr.type, t.Bits | t.Bool | t.Enum | t.Error):
                        raise CompileError(
                            el.expr.pos, f"a table key cannot have type {el.expr.type}"
                        )
            elif isinstance(prop, ast.ActionsProperty):
                for ref in prop.actions:
                    self.action_ref(ref.expr, scope, allow_unbound=True)
            elif isinstance(prop, ast.ValueProperty) and prop.name == "default_action":
                prop.value = as_action_call(prop.value)
                self.action_ref(prop.value, scope, allow_unbound=False)
                self.require_listed(decl, prop.value, "the default action")
            elif isinstance(prop, ast.ValueProperty) and prop.name in ("size", "max_size"):
                self.expr(prop.value, scope)
                if not is_integer(const_value(prop.value)):
                    raise CompileError(prop.value.pos, "a table size must be a constant integer")
            elif isinstance(prop, ast.EntriesProperty):
                self.entries(decl, prop, scope)
            elif isinstance(prop, ast.ValueProperty) and prop.name == "support_timeout":
                # v1model's idle timeout: entries may age out (BMv2 "support_timeout").
                self.expr(prop.value, scope)
                if not isinstance(const_value(prop.value), bool):
                    raise CompileError(prop.value.pos, "support_timeout must be true or false")
            elif isinstance(prop, ast.ValueProperty) and prop.name in DIRECT_RESOURCES:
                self.expr(prop.value, scope)
                ty = prop.value.type
                want = DIRECT_RESOURCES[prop.name]
                if not (isinstance(prop.value, ast.Name) and isinstance(ty, t.Extern)) or (
                    ty.name != want
                ):
                    raise CompileError(prop.value.pos, f"'{prop.name}' needs a {want} instance")
            elif isinstance(prop, ast.ValueProperty) and prop.name == "implementation":
                self.implementation(prop, scope)
            elif isinstance(prop, ast.ValueProperty) and prop.name in PRIORITY_PROPERTIES:
                self.priority_property(prop, scope)
            elif isinstance(prop, ast.ValueProperty):
                # p4c keeps a property it does not know, and BMv2 has no use for it.
                warn(prop.pos, f"table property '{prop.name}' is unknown here; ignored")
        self.selector_keys(decl)

    def priority_property(self, prop: ast.ValueProperty, scope: Scope) -> None:
        """`largest_priority_wins` (a bool) and `priority_delta` (a positive integer),
        which number the entries (spec 14.2.1.4)."""
        self.expr(prop.value, scope)
        value = const_value(prop.value)
        if prop.name == "largest_priority_wins" and not isinstance(value, bool):
            raise CompileError(prop.value.pos, "largest_priority_wins must be true or false")
        if prop.name == "priority_delta" and (
            isinstance(value, bool) or not isinstance(value, int) or value <= 0
        ):
            raise CompileError(prop.value.pos, "priority_delta must be a positive integer")

    def implementation(self, prop: ast.ValueProperty, scope: Scope) -> None:
        """v1model's `implementation`: an action_profile or action_selector instance, by
        name or constructed in place (`action_profile(32w128)`)."""
        e = prop.value
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
            sym = self.lookup(e.func, scope)
            ty = sym.type
            if sym.kind == "type" and isinstance(ty, t.Extern) and ty.name in PROFILES:
                ctors = [m for m in ty.decl.methods if m.return_type is None]
                self.call_args(e.args, ctors, e.pos, scope, {}, ty.name)
                e.func.ref = e.ref = sym
                e.type = ty
                return
        elif isinstance(e, ast.Name):
            ty = self.expr(e, scope)
            if isinstance(ty, t.Extern) and ty.name in PROFILES:
                return
        raise CompileError(e.pos, "'implementation' needs an action_profile or action_selector")

    @staticmethod
    def selector_keys(decl: ast.TableDeclaration) -> None:
        """Keys matched by `selector` are the input of the table's action selector, so
        a table with another implementation may not have them. A table with none keeps
        them out of its key, as p4c does (issue1560-bmv2's P4Info)."""
        impl = decl.property("implementation")
        if not isinstance(impl, ast.ValueProperty):
            return
        ty = impl.value.type
        key = decl.property("key")
        for el in key.elements if isinstance(key, ast.KeyProperty) else []:
            if el.match_kind == "selector" and not (
                isinstance(ty, t.Extern) and ty.name == "action_selector"
            ):
                raise CompileError(
                    el.expr.pos,
                    f"key '{expression_text(el.expr)}' of table '{decl.name}' is matched by "
                    "'selector', which needs implementation = action_selector(...)",
                )

    def entries(self, decl: ast.TableDeclaration, prop: ast.EntriesProperty, scope: Scope) -> None:
        key = decl.property("key")
        if not isinstance(key, ast.KeyProperty) or not key.elements:
            raise CompileError(prop.pos, "a table with entries needs a key")
        key_types = [el.expr.type for el in key.elements]
        for entry in prop.entries:
            self.keyset(entry.keyset, key_types, scope)
            entry.action = as_action_call(entry.action)
            self.action_ref(entry.action, scope, allow_unbound=False)
            self.require_listed(decl, entry.action, "an entry's action")
            if entry.priority is not None:
                self.expr(entry.priority, scope)
                if not is_integer(const_value(entry.priority)):
                    raise CompileError(entry.priority.pos, "a priority must be a constant integer")

    def require_listed(self, decl: ast.TableDeclaration, value: ast.Expression, what: str) -> None:
        actions = decl.property("actions")
        target = value.func if isinstance(value, ast.Call) else value
        listed = []
        if isinstance(actions, ast.ActionsProperty):
            for ref in actions.actions:
                e = ref.expr.func if isinstance(ref.expr, ast.Call) else ref.expr
                listed.append(getattr(e, "ref", None))
        if getattr(target, "ref", None) not in listed:
            raise CompileError(value.pos, f"{what} must be one of the table's actions")

    def action_ref(self, e: ast.Expression, scope: Scope, allow_unbound: bool) -> None:
        call = e if isinstance(e, ast.Call) else None
        name = call.func if call else e
        if not isinstance(name, ast.Name):
            raise CompileError(e.pos, "expected an action")
        sym = self.lookup(name, scope)
        if sym.kind != "action":
            raise CompileError(e.pos, f"'{name.name}' is not an action")
        name.ref = sym
        params = sym.decl.params
        args = call.args if call else []
        # Directionless parameters are bound by the control plane (spec 14.2.1.2).
        bound = [p for p in params if p.direction]
        want = params if not allow_unbound else bound
        mismatch = f"action '{name.name}' expects {len(want)} arguments here, not {len(args)}"
        self.bind_call(args, want, e.pos, scope, mismatch, self.action_param_type)
        if call is not None:
            call.ref = sym
            call.type = t.Void()

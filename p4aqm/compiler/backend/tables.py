"""Tables as BMv2 tables (JSON_format.md, pipelines): keys, actions, default entry,
const entries, direct resources and action profiles, and the one-action tables
synthesized for statements.  `TableLowering` is a mixin of the builder
(`bmv2_json.Bmv2Builder`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from p4aqm.compiler import ast
from p4aqm.compiler import types as t
from p4aqm.compiler.backend import externs
from p4aqm.compiler.backend.actions import ActionInfo
from p4aqm.compiler.backend.expressions import ExpressionEncoder, Json, const_int, hexstr, node
from p4aqm.compiler.backend.storage import SCALARS, FieldRef, HeaderRef, Layout
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.names import annotated_name, key_name
from p4aqm.compiler.typecheck import CheckedProgram, Symbol, const_value, referenced


@dataclass
class TableInfo:
    """A table of the BMv2 program, real or synthesized, and how P4Info should see it."""

    name: str
    decl: ast.TableDeclaration | None  # None for synthesized tables
    json: Json
    hidden: bool
    # P4Info's default action; the JSON has none for a table with an action profile.
    default_entry: Json | None = None


@dataclass
class ProfileInfo:
    """An action profile or selector of the BMv2 program, and how P4Info should see it."""

    name: str
    json: Json
    # The declared instance, or the `implementation` property constructing it in place.
    decl: ast.Instantiation | ast.ValueProperty
    anonymous: bool  # constructed in place without @name: P4Runtime cannot name it
    tables: list[str] = field(default_factory=list)


class TableLowering:
    # State of the builder that mixes this class in.
    checked: CheckedProgram
    layout: Layout
    ext: externs.ExternTables
    tables: list[TableInfo]
    actions: list[ActionInfo]
    applied: set[str]
    pipeline_tables: list[Json]
    pipeline_profiles: list[Json]
    profiles: list[ProfileInfo]
    action_names: set[str]
    table_names: set[str]

    def synthesized_table(
        self, name: str, action_id: int, action: str, data: list[str], nxt: str | None
    ) -> str:
        self.pipeline_tables.append(
            {
                "name": name,
                "id": len(self.tables),
                "key": [],
                "match_type": "exact",
                "type": "simple",
                "max_size": 1024,
                "with_counters": False,
                "support_timeout": False,
                "direct_meters": None,
                "action_ids": [action_id],
                "actions": [action],
                "base_default_next": nxt,
                "next_tables": {action: nxt},
                "default_entry": {
                    "action_id": action_id,
                    "action_const": True,
                    "action_data": data,
                    "action_entry_const": True,
                },
            }
        )
        self.tables.append(TableInfo(name, None, self.pipeline_tables[-1], hidden=True))
        return name

    def table(
        self,
        decl: ast.TableDeclaration,
        nxt: str | None,
        hit_miss: dict[str, str | None] | None = None,
        by_action: dict[int, str | None] | None = None,
    ) -> str:
        """A table node; after it, control goes to `nxt`, or by hit/miss, or by the action
        that ran (`by_action`: id(ActionDeclaration) -> node, from a switch statement)."""
        name = self.qualify(decl)
        if name in self.applied:
            return self.applied_again(decl, name, nxt, hit_miss, by_action)
        enc = self.encoder()
        keys = []
        key_prims: list[Json] = []
        key_prop = decl.property("key")
        selector_inputs = []
        for el in key_prop.elements if isinstance(key_prop, ast.KeyProperty) else []:
            if el.match_kind == "selector":
                # The input of the table's action selector, not a key of the table.
                target = self.key_element(el, enc, key_prims)["target"]
                selector_inputs.append(node("field", target))
            else:
                keys.append(self.key_element(el, enc, key_prims))
        kinds = {k["match_type"] for k in keys}
        match_type = next((k for k in ("range", "ternary", "lpm") if k in kinds), "exact")
        bound = self.table_actions(decl)
        action_decls = [a for a, _ in bound]
        default = decl.property("default_action")
        if default is None and all(a is not self.noaction() for a in action_decls):
            action_decls.append(self.noaction())
            bound.append((self.noaction(), []))
        ids = [self.action(a, args) for a, args in bound]
        by_decl = {id(a): args for a, args in bound}
        names = [self.actions[i].name for i in ids]
        with_counters, direct_meters = self.direct_resources(decl, name)
        size_prop = decl.property("size")
        size = const_value(size_prop.value) if isinstance(size_prop, ast.ValueProperty) else 1024
        kind, profile = self.implementation(decl, name, selector_inputs)
        table = {
            "name": name,
            "id": len(self.tables),
            "key": keys,
            "match_type": match_type,
            "type": kind,
            **({"action_profile": profile} if profile is not None else {}),
            "max_size": size,
            "with_counters": with_counters,
            "support_timeout": _support_timeout(decl),
            "direct_meters": direct_meters,
            "action_ids": ids,
            "actions": names,
            "base_default_next": nxt,
            "next_tables": _next_tables(names, action_decls, nxt, hit_miss, by_action),
        }
        default_entry = self.default_entry(decl, by_decl)
        if profile is None:
            # As p4c: BMv2 takes no default entry for a table with an action profile.
            table["default_entry"] = default_entry
        entries = decl.property("entries")
        if isinstance(entries, ast.EntriesProperty):
            ranks = _entry_ranks(entries.entries, decl)
            table["entries"] = [
                self.entry(e, rank, decl, by_decl)
                for e, rank in zip(entries.entries, ranks, strict=True)
            ]
        self.pipeline_tables.append(table)
        self.tables.append(
            TableInfo(
                name,
                decl,
                table,
                hidden=ast.find_annotation(decl.annotations, "hidden") is not None,
                default_entry=default_entry,
            )
        )
        self.applied[name] = key_prims
        return self.with_keys_computed(name, key_prims)

    def implementation(
        self, decl: ast.TableDeclaration, table: str, inputs: list[Json]
    ) -> tuple[str, str | None]:
        """BMv2's table type and action profile for v1model's `implementation`: a profile
        constructed in place, or a declared instance, emitted with the first table that
        uses it (p4c's handleTableImplementation)."""
        prop = decl.property("implementation")
        if not isinstance(prop, ast.ValueProperty):
            return "simple", None
        e = prop.value
        ext = e.type
        assert isinstance(ext, t.Extern), "the type checker typed the implementation"
        kind = "indirect" if ext.name == "action_profile" else "indirect_ws"
        taken = {p.name for p in self.profiles}
        label = annotated_name(prop.annotations)
        source: ast.Instantiation | ast.ValueProperty
        if isinstance(e, ast.Call):
            # As p4c's refMap->newName: "action_profile" itself names v1model's extern.
            name = (
                self.unique("action_profile", taken | {"action_profile"})
                if label is None
                else label.removeprefix(".")
            )
            source, args = prop, e.args
        else:
            source = referenced(e)
            found = self.ext.instance(source)
            assert found is not None, "declare_instance registered it"
            name, args = found[1], source.args
        if name in taken:
            profile = next(p for p in self.profiles if p.name == name)
            if profile.decl is not source:
                raise CompileError(prop.pos, f"action profile name '{name}' is used twice")
            # p4c's SharedActionSelectorCheck: BMv2 gives a selector one input.
            if kind == "indirect_ws" and profile.json["selector"]["input"] != inputs:
                raise CompileError(
                    prop.pos,
                    f"action selector '{name}' is shared by tables '{profile.tables[0]}' and "
                    f"'{table}' with different selector keys: they must be the same, in the "
                    "same order",
                )
        else:
            json = externs.action_profile_json(name, len(self.profiles), ext.name, args, inputs)
            profile = ProfileInfo(name, json, source, anonymous=source is prop and label is None)
            self.profiles.append(profile)
            self.pipeline_profiles.append(json)
        profile.tables.append(table)
        return kind, name

    def unused_profiles(self, control: ast.ControlDeclaration) -> None:
        """Profiles the control declares but no table uses: P4Info lists them all, as p4c;
        the JSON only an action_profile, since a selector's input comes from a table
        (p4c warns and leaves it out, though it still takes an id)."""
        used = {p.name for p in self.profiles}
        for decl in control.locals:
            found = self.ext.instance(decl) if isinstance(decl, ast.Instantiation) else None
            if found is None or found[0] not in ("action_profile", "action_selector"):
                continue
            kind, name = found
            if name in used:
                continue
            json = externs.action_profile_json(name, len(self.profiles), kind, decl.args, [])
            self.profiles.append(ProfileInfo(name, json, decl, anonymous=False))
            if kind == "action_profile":
                self.pipeline_profiles.append(json)

    def with_keys_computed(self, name: str, key_prims: list[Json]) -> str:
        """The node that applies table `name`: the table itself, or a table of its own
        computing the key expressions just before it."""
        if not key_prims:
            return name
        action = self.unique("act", self.action_names)
        ident = self.add_action(action, None, [], key_prims, hidden=True)
        pre = self.unique(f"tbl_{action}", self.table_names)
        return self.synthesized_table(pre, ident, action, [], name)

    def applied_again(
        self,
        decl: ast.TableDeclaration,
        name: str,
        nxt: str | None,
        hit_miss: dict[str, str | None] | None,
        by_action: dict[int, str | None] | None,
    ) -> str:
        """A table applied in a second place.  BMv2 gives a table one next node per
        action, so, as p4c, this compiles only when control goes on to the same nodes
        after both applications."""
        table = next(tb for tb in self.pipeline_tables if tb["name"] == name)
        action_decls = [self.actions[i].decl for i in table["action_ids"]]
        next_tables = _next_tables(table["actions"], action_decls, nxt, hit_miss, by_action)
        if next_tables != table["next_tables"] or nxt != table["base_default_next"]:
            raise CompileError(
                decl.pos,
                f"table '{decl.name}' is applied in more than one place, and what runs after "
                "it differs between them: BMv2 gives a table one next node per action "
                "(p4c: 'has multiple successors')",
            )
        return self.with_keys_computed(name, self.applied[name])

    def entry(
        self,
        entry: ast.Entry,
        rank: int,
        decl: ast.TableDeclaration,
        bound: dict[int, list[ast.Expression]],
    ) -> Json:
        """A const entry (JSON_format.md, table "entries"); `rank` is its BMv2 priority
        and `bound` the table's arguments of its actions' directional parameters."""
        items = (
            entry.keyset.items if isinstance(entry.keyset, ast.ListExpression) else [entry.keyset]
        )
        key_prop = decl.property("key")
        assert isinstance(key_prop, ast.KeyProperty)
        match_key = []
        for item, el in zip(items, key_prop.elements, strict=True):
            match_key.append(self.entry_key(item, el.match_kind, t.width_of(el.expr.type)))
        call = entry.action
        assert isinstance(call, ast.Call)
        action = referenced(call.func)
        data = [
            hexstr(const_int(a.value), t.width_of(a.value.type))
            for p, a in zip(action.params, call.args, strict=True)
            if not p.direction
        ]
        return {
            "match_key": match_key,
            "action_entry": {
                "action_id": self.action(action, bound.get(id(action))),
                "action_data": data,
            },
            "priority": rank,
        }

    @staticmethod
    def entry_key(item: ast.Expression, match_kind: str, width: int) -> Json:
        full = (1 << width) - 1
        wildcard = isinstance(item, ast.DontCare | ast.Default)
        # As p4c's back end, a keyset of another match kind's form is refused; the error
        # names the kind as written, BMv2's is the one emitted.
        if isinstance(item, ast.Range) and match_kind != "range":
            raise CompileError(item.pos, f"a key matched by '{match_kind}' cannot take a range")
        if isinstance(item, ast.Mask) and match_kind == "range":
            raise CompileError(item.pos, "a key matched by 'range' cannot take a mask")
        kind = "ternary" if match_kind == "optional" else match_kind
        if kind == "range":
            if wildcard:
                return {"match_type": kind, "start": hexstr(0, width), "end": hexstr(full, width)}
            if isinstance(item, ast.Range):
                lo, hi = const_int(item.lo), const_int(item.hi)
            else:
                lo = hi = const_int(item)
            return {"match_type": kind, "start": hexstr(lo, width), "end": hexstr(hi, width)}
        if wildcard:
            value, mask = 0, 0
        elif isinstance(item, ast.Mask):
            value, mask = const_int(item.value), const_int(item.mask)
        else:
            value, mask = const_int(item), full
        if kind == "exact":
            if mask != full:
                raise CompileError(item.pos, "an exact key needs an exact value")
            return {"match_type": kind, "key": hexstr(value & full, width)}
        if kind == "lpm":
            prefix = bin(mask & full).count("1")
            if mask & full != (full >> (width - prefix) << (width - prefix)) & full:
                raise CompileError(item.pos, "an lpm mask must be a prefix")
            return {
                "match_type": kind,
                "key": hexstr(value & mask & full, width),
                "prefix_length": prefix,
            }
        return {
            "match_type": kind,
            "key": hexstr(value & mask & full, width),
            "mask": hexstr(mask & full, width),
        }

    def noaction(self) -> ast.ActionDeclaration:
        """core.p4's NoAction, the default action of tables that declare none."""
        sym = self.checked.globals.lookup("NoAction")
        if sym is None or not isinstance(sym.decl, ast.ActionDeclaration):
            raise CompileError(None, "core.p4 must declare the action NoAction")
        return sym.decl

    def direct_resources(self, decl: ast.TableDeclaration, name: str) -> tuple[bool, str | None]:
        """Bind the table's `counters`/`meters` properties; (with_counters, direct meter)."""
        with_counters, meter = False, None
        for prop_name in ("counters", "meters"):
            prop = decl.property(prop_name)
            if not isinstance(prop, ast.ValueProperty):
                continue
            inst = referenced(prop.value)
            found = self.ext.instance(inst)
            assert found is not None, "the type checker resolved it to an extern instance"
            kind, qualified = found
            if qualified in self.ext.bindings:
                raise CompileError(prop.pos, f"'{qualified}' is already attached to a table")
            if kind == "direct_meter" and qualified not in self.ext.direct_meter_targets:
                # BMv2 writes the color where read() says (its result_target); p4c
                # refuses a direct meter that no action reads (issue1167-bmv2).
                raise CompileError(
                    decl.pos,
                    f"table '{decl.name}' with direct meter '{qualified}' must have at least"
                    " one action with a read method call",
                )
            size_prop = decl.property("size")
            size = const_int(size_prop.value) if isinstance(size_prop, ast.ValueProperty) else 1024
            self.ext.bind_direct(kind, qualified, name, size)
            if kind == "direct_counter":
                with_counters = True
            else:
                meter = qualified
        return with_counters, meter

    @staticmethod
    def table_actions(
        decl: ast.TableDeclaration,
    ) -> list[tuple[ast.ActionDeclaration, list[ast.Expression]]]:
        """The table's actions, each with the arguments its `actions` list binds to the
        action's directional parameters."""
        prop = decl.property("actions")
        result = []
        for ref in prop.actions if isinstance(prop, ast.ActionsProperty) else []:
            e = ref.expr.func if isinstance(ref.expr, ast.Call) else ref.expr
            args = ref.expr.args if isinstance(ref.expr, ast.Call) else []
            result.append((referenced(e), [a.value for a in args]))
        return result

    def default_entry(
        self, decl: ast.TableDeclaration, bound: dict[int, list[ast.Expression]]
    ) -> Json:
        prop = decl.property("default_action")
        if isinstance(prop, ast.ValueProperty) and isinstance(prop.value, ast.Call):
            call = prop.value
            action = referenced(call.func)
            data = []
            for p, a in zip(action.params, call.args, strict=True):
                if p.direction:
                    continue
                v = const_value(a.value)
                if not isinstance(v, int):
                    raise CompileError(a.pos, "default action arguments must be constants")
                data.append(hexstr(v, t.width_of(a.value.type)))
            const = prop.is_const
        else:
            action, data, const = self.noaction(), [], False
        return {
            "action_id": self.action(action, bound.get(id(action))),
            "action_const": const,
            "action_data": data,
            "action_entry_const": const,
        }

    def key_element(self, el: ast.KeyElement, enc: ExpressionEncoder, prims: list[Json]) -> Json:
        """A key of the table JSON; a key that is an expression, not a field, reads a
        temporary that `prims` (run before the table) computes, as p4c does."""
        name = key_name(el)
        # A slice is computed into a temporary too, as p4c's SimplifyKey does: its
        # entries are values of the slice's width (P4Info's), which a mask on the whole
        # field would not match (BMv2 masks keys without shifting them).
        e = el.expr
        valid_of = _header_validity(e, enc)
        if valid_of is not None:
            target: list[str] = [valid_of.instance, "$valid$"]
        else:
            # A union's isValid() (no `$valid$` of its own) is computed like any value.
            loc = enc.locate(e) if enc.is_storage(e) else None
            if not isinstance(loc, FieldRef):
                loc = FieldRef(SCALARS, self.layout.add_scalar("key", e.type, e.pos))
                prims.append(
                    externs.primitive("assign", [node("field", [SCALARS, loc.field]), enc.data(e)])
                )
            target = [loc.instance, loc.field]
        # BMv2's key match types are valid, exact, lpm, ternary and range (JSON_format.md,
        # pipelines): an `optional` key, exact or wildcard, is a ternary one there.
        kind = "ternary" if el.match_kind == "optional" else el.match_kind
        return {"match_type": kind, "name": name, "target": target, "mask": None}


def _header_validity(e: ast.Expression, enc: ExpressionEncoder) -> HeaderRef | None:
    """The header whose `$valid$` field a key `h.isValid()` is, if h is a header."""
    if isinstance(e, ast.Call) and isinstance(e.ref, Symbol) and e.ref.name == "isValid":
        assert isinstance(e.func, ast.Member)
        loc = enc.locate(e.func.expr)
        if isinstance(loc, HeaderRef):
            return loc
    return None


def _entry_ranks(entries: list[ast.Entry], decl: ast.TableDeclaration) -> list[int]:
    """BMv2 priorities (1 wins over 2) of const entries.  In P4 the largest priority
    wins unless `largest_priority_wins = false`; an entry without one takes the previous
    entry's minus (or plus) `priority_delta`, and without any explicit priority the
    first entry listed wins (spec 14.2.1.4, as p4c's EntryPriorities numbers them)."""
    annotated = [ast.find_annotation(e.annotations, "priority") for e in entries]
    if any(annotated) and all(e.priority is None for e in entries):
        # p4c's older form, `@priority(n)` on an entry: n is BMv2's priority as it is
        # (1 wins over 2); an entry without one takes its position, counted from 1.
        ranks = []
        for i, annotation in enumerate(annotated):
            if annotation is None or len(annotation.exprs) != 1:
                ranks.append(i + 1)
            else:
                ranks.append(const_int(annotation.exprs[0]))
        return ranks
    largest_wins = _table_constant(decl, "largest_priority_wins", True) is not False
    delta = _table_constant(decl, "priority_delta", 1)
    step = -delta if largest_wins else delta
    priorities: list[int] = []
    for entry in entries:
        if entry.priority is not None:
            priorities.append(const_int(entry.priority))
        elif priorities:
            priorities.append(priorities[-1] + step)
        else:
            priorities.append(len(entries) * delta if largest_wins else 1)
    if largest_wins:
        top = max(priorities, default=0)
        return [top - p + 1 for p in priorities]
    low = min(priorities, default=0)
    return [p - low + 1 for p in priorities]


def _table_constant(decl: ast.TableDeclaration, name: str, default: object) -> object:
    prop = decl.property(name)
    return const_value(prop.value) if isinstance(prop, ast.ValueProperty) else default


def _next_tables(
    names: list[str],
    action_decls: list[ast.ActionDeclaration],
    nxt: str | None,
    hit_miss: dict[str, str | None] | None,
    by_action: dict[int, str | None] | None,
) -> dict[str, str | None]:
    """A table's "next_tables": by hit and miss, or by the action that ran."""
    if hit_miss is not None:
        return hit_miss
    return {n: (by_action or {}).get(id(a), nxt) for n, a in zip(names, action_decls, strict=True)}


def _support_timeout(decl: ast.TableDeclaration) -> bool:
    prop = decl.property("support_timeout")
    return isinstance(prop, ast.ValueProperty) and const_value(prop.value) is True

"""An index over a forwarding pipeline config: P4Info ids to tables, actions, fields and
value sets.

P4Info gives the ids and bitwidths the client uses; the BMv2 JSON gives what the
dataplane needs besides names: the order of a table's key fields and each table's
initial default action. p4c makes BMv2 JSON names equal to P4Info preamble names, which
is what ties the two together.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from finsy.proto import p4i, p4r

from p4aqm.switch.runtime.codec import canonical, encode_uint
from p4aqm.switch.runtime.const_entries import const_entries
from p4aqm.switch.runtime.device_config import DeviceConfig, device_config
from p4aqm.switch.runtime.errors import invalid, not_found
from p4aqm.switch.runtime.resources import Resources
from p4aqm.switch.runtime.value_sets import ValueSetInfo, index_value_sets

MATCH_TYPES: dict[int, str] = {
    p4i.MatchField.EXACT: "exact",
    p4i.MatchField.LPM: "lpm",
    p4i.MatchField.TERNARY: "ternary",
    p4i.MatchField.RANGE: "range",
    p4i.MatchField.OPTIONAL: "optional",
}


@dataclass(frozen=True)
class MatchFieldInfo:
    id: int
    name: str
    bitwidth: int
    match_type: str


@dataclass(frozen=True)
class ParamInfo:
    id: int
    name: str
    bitwidth: int


@dataclass(frozen=True)
class ActionInfo:
    id: int
    name: str
    # In P4Info order, which is the order of the dataplane's action data.
    params: tuple[ParamInfo, ...]
    params_by_id: dict[int, ParamInfo] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.params_by_id.update((p.id, p) for p in self.params)

    def param(self, param_id: int) -> ParamInfo | None:
        return self.params_by_id.get(param_id)


@dataclass(frozen=True)
class TableInfo:
    id: int
    name: str
    # In the BMv2 JSON key order, which is the order of the dataplane's key tuples.
    fields: tuple[MatchFieldInfo, ...]
    # Action id -> p4i.ActionRef scope (TABLE_AND_DEFAULT, TABLE_ONLY, DEFAULT_ONLY).
    action_scopes: dict[int, int]
    const_default_action_id: int
    is_const: bool
    size: int
    # P4Info's idle_timeout_behavior is NOTIFY_CONTROL (v1model's support_timeout).
    supports_idle_timeout: bool = False
    # The default entry of the BMv2 JSON as (P4Info action id, canonical arguments); None
    # when P4Info does not list that action.
    initial_default: tuple[int, tuple[bytes, ...]] | None = None
    # The action profile whose members and groups the entries point to; 0 for none.
    implementation_id: int = 0
    # The `const entries` of the program, as P4Runtime reads them.
    const_entries: tuple[p4r.TableEntry, ...] = ()
    fields_by_id: dict[int, MatchFieldInfo] = field(default_factory=dict)

    @property
    def needs_priority(self) -> bool:
        return needs_priority(self.fields)


def needs_priority(fields: tuple[MatchFieldInfo, ...]) -> bool:
    """P4Runtime requires a priority exactly when a field is ternary, range or optional."""
    return any(f.match_type in ("ternary", "range", "optional") for f in fields)


@dataclass(frozen=True)
class ActionProfileInfo:
    """A v1model action_profile or action_selector as P4Info describes it."""

    id: int
    name: str
    table_ids: tuple[int, ...]
    with_selector: bool
    # Most members the profile holds (v1model's size argument); 0: no bound.
    size: int
    # Most members in one group (@max_group_size); 0: no bound.
    max_group_size: int


class Pipeline:
    """The P4Info of a committed or saved config, indexed by id."""

    def __init__(self, config: p4r.ForwardingPipelineConfig) -> None:
        if not config.HasField("p4info"):
            raise invalid("ForwardingPipelineConfig has no p4info")
        # The config as the client sent it, which GetForwardingPipelineConfig returns (as
        # PI does); the BMv2 JSON in it, raw or in a P4DeviceConfig, is what the
        # dataplane loads.
        self.config = config
        device = device_config(config.p4_device_config)
        self.bmv2_json = device.bmv2_json
        bmv2 = _parse_bmv2_json(device)
        # p4c names the source program in the JSON; the log says which one runs.
        self.program = str(bmv2.get("program") or "an unnamed program")
        self.actions = _index_actions(config.p4info, bmv2)
        self.tables = _index_tables(config.p4info, bmv2, self.actions)
        self.action_profiles = _index_action_profiles(config.p4info, bmv2, self.tables)
        self.resources = Resources(config.p4info)
        self.value_sets: dict[int, ValueSetInfo] = index_value_sets(
            config.p4info, _json_list(bmv2, "parse_vsets")
        )

    def table(self, table_id: int) -> TableInfo:
        try:
            return self.tables[table_id]
        except KeyError:
            raise not_found(f"no table with id {table_id} in the P4Info") from None

    def action_profile(self, profile_id: int) -> ActionProfileInfo:
        try:
            return self.action_profiles[profile_id]
        except KeyError:
            raise not_found(f"no action profile with id {profile_id} in the P4Info") from None

    def action(self, action_id: int) -> ActionInfo:
        try:
            return self.actions[action_id]
        except KeyError:
            raise not_found(f"no action with id {action_id} in the P4Info") from None


def _parse_bmv2_json(device: DeviceConfig) -> dict[str, Any]:
    try:
        bmv2 = json.loads(device.bmv2_json)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise invalid(f"{device.what} is not BMv2 JSON: {exc}") from None
    if not isinstance(bmv2, dict):
        raise invalid(f"{device.what} is not BMv2 JSON: the top level is not an object")
    return bmv2


def _json_list(obj: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = obj.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise invalid(f"BMv2 JSON: '{key}' is not a list of objects")
    return value


def _check_unique(ids: list[int], what: str) -> None:
    seen: set[int] = set()
    for i in ids:
        if i in seen:
            raise invalid(f"P4Info: duplicate {what} id {i}")
        seen.add(i)


def _index_actions(p4info: p4i.P4Info, bmv2: dict[str, Any]) -> dict[int, ActionInfo]:
    json_names = {a.get("name") for a in _json_list(bmv2, "actions")}
    _check_unique([a.preamble.id for a in p4info.actions], "action")
    actions: dict[int, ActionInfo] = {}
    for action in p4info.actions:
        name = action.preamble.name
        if name not in json_names:
            raise invalid(f"P4Info action '{name}' is not in the BMv2 JSON")
        _check_unique([p.id for p in action.params], f"parameter of action '{name}'")
        params = tuple(ParamInfo(p.id, p.name, p.bitwidth) for p in action.params)
        actions[action.preamble.id] = ActionInfo(action.preamble.id, name, params)
    return actions


def _index_tables(
    p4info: p4i.P4Info, bmv2: dict[str, Any], actions: dict[int, ActionInfo]
) -> dict[int, TableInfo]:
    json_actions = {a.get("id"): a.get("name") for a in _json_list(bmv2, "actions")}
    action_ids_by_name = {a.name: a.id for a in actions.values()}
    json_tables = {
        t.get("name"): t
        for pipe in _json_list(bmv2, "pipelines")
        for t in _json_list(pipe, "tables")
    }
    _check_unique([t.preamble.id for t in p4info.tables], "table")
    tables: dict[int, TableInfo] = {}
    for table in p4info.tables:
        name = table.preamble.name
        json_table = json_tables.get(name)
        if json_table is None:
            raise invalid(f"P4Info table '{name}' is not in the BMv2 JSON")
        fields = _match_fields(table, json_table)
        supports_idle_timeout = table.idle_timeout_behavior == p4i.Table.NOTIFY_CONTROL
        if supports_idle_timeout != bool(json_table.get("support_timeout")):
            raise invalid(
                f"table '{name}': P4Info's idle_timeout_behavior and the BMv2 JSON's "
                "support_timeout disagree"
            )
        for ref in table.action_refs:
            if ref.id not in actions:
                raise invalid(f"P4Info table '{name}' refers to unknown action id {ref.id}")
        default = _json_default(json_table, json_actions, action_ids_by_name, actions)

        def action_of(json_id: Any) -> tuple[int, tuple[ParamInfo, ...]] | None:
            action_id = action_ids_by_name.get(json_actions.get(json_id))
            return None if action_id is None else (action_id, actions[action_id].params)

        entries = const_entries(
            table.preamble.id, name, fields, needs_priority(fields), json_table, action_of
        )
        tables[table.preamble.id] = TableInfo(
            id=table.preamble.id,
            name=name,
            fields=fields,
            action_scopes={ref.id: ref.scope for ref in table.action_refs},
            const_default_action_id=table.const_default_action_id,
            is_const=table.is_const_table,
            size=table.size,
            supports_idle_timeout=supports_idle_timeout,
            initial_default=default,
            implementation_id=table.implementation_id,
            const_entries=entries,
            fields_by_id={f.id: f for f in fields},
        )
    return tables


def _index_action_profiles(
    p4info: p4i.P4Info, bmv2: dict[str, Any], tables: dict[int, TableInfo]
) -> dict[int, ActionProfileInfo]:
    json_profiles = {
        p.get("name"): p
        for pipe in _json_list(bmv2, "pipelines")
        for p in _json_list(pipe, "action_profiles")
    }
    _check_unique([p.preamble.id for p in p4info.action_profiles], "action profile")
    profiles = {}
    for profile in p4info.action_profiles:
        name = profile.preamble.name
        json_profile = json_profiles.get(name)
        used = bool(profile.table_ids) or any(
            t.implementation_id == profile.preamble.id for t in tables.values()
        )
        if json_profile is None and used:
            raise invalid(f"P4Info action profile '{name}' is not in the BMv2 JSON")
        # p4c lists a selector no table uses in P4Info only: its input comes from a table.
        if json_profile is not None and profile.with_selector != ("selector" in json_profile):
            raise invalid(
                f"action profile '{name}': P4Info's with_selector and the BMv2 JSON's "
                "selector disagree"
            )
        for table_id in profile.table_ids:
            if table_id not in tables:
                raise invalid(f"action profile '{name}' refers to unknown table id {table_id}")
        profiles[profile.preamble.id] = ActionProfileInfo(
            id=profile.preamble.id,
            name=name,
            table_ids=tuple(profile.table_ids),
            with_selector=profile.with_selector,
            size=profile.size,
            max_group_size=profile.max_group_size,
        )
    for table in tables.values():
        if table.implementation_id and table.implementation_id not in profiles:
            raise invalid(
                f"table '{table.name}' refers to unknown action profile id "
                f"{table.implementation_id}"
            )
    return profiles


def _match_fields(table: p4i.Table, json_table: dict[str, Any]) -> tuple[MatchFieldInfo, ...]:
    name = table.preamble.name
    _check_unique([f.id for f in table.match_fields], f"match field of table '{name}'")
    fields = []
    for mf in table.match_fields:
        match_type = MATCH_TYPES.get(mf.match_type)
        if match_type is None:
            kind = mf.other_match_type or p4i.MatchField.MatchType.Name(mf.match_type)
            raise invalid(f"table '{name}' field '{mf.name}': unsupported match type {kind}")
        fields.append(MatchFieldInfo(mf.id, mf.name, mf.bitwidth, match_type))
    json_keys = [k.get("name") for k in _json_list(json_table, "key")]
    if len(json_keys) != len(fields):
        raise invalid(
            f"table '{name}' has {len(fields)} match fields in P4Info "
            f"but {len(json_keys)} keys in the BMv2 JSON"
        )
    by_name = {f.name: f for f in fields}
    if set(json_keys) == set(by_name):
        return tuple(by_name[k] for k in json_keys)
    # Key names can differ in spelling between compilers (annotations such as @name);
    # both lists are in declaration order, so fall back to position.
    return tuple(fields)


def _json_default(
    json_table: dict[str, Any],
    json_actions: dict[Any, Any],
    action_ids_by_name: dict[str, int],
    actions: dict[int, ActionInfo],
) -> tuple[int, tuple[bytes, ...]] | None:
    entry = json_table.get("default_entry")
    if not isinstance(entry, dict):
        return None
    action_id = action_ids_by_name.get(json_actions.get(entry.get("action_id")))
    if action_id is None:
        # The default is an action P4Info does not list (p4c leaves out an unused
        # NoAction, for instance): a read returns the default entry without an action.
        return None
    action = actions[action_id]
    data = entry.get("action_data", [])
    if not isinstance(data, list) or len(data) != len(action.params):
        raise invalid(
            f"BMv2 JSON: default entry of table '{json_table.get('name')}' "
            f"does not match the parameters of '{action.name}'"
        )
    args = []
    for param, text in zip(action.params, data, strict=True):
        try:
            value = int(str(text), 0)
        except ValueError:
            value = -1
        if value < 0:
            raise invalid(f"BMv2 JSON: default action data '{text}' is not a non-negative number")
        what = f"default action parameter '{param.name}'"
        args.append(canonical(encode_uint(value), param.bitwidth, what))
    return action_id, tuple(args)

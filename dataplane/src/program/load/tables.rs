//! Match-action tables: their keys, the actions they may run and the node
//! each outcome leads to. Their entries are read in `entries`.

use serde_json::Value;

use super::hex::hex_of_width;
use super::pipelines::{NodeLookup, ProfileLookup};
use super::{Loader, Result};
use crate::program::json;
use crate::program::{Action, DirectMeter, KeySource, KeySpec, MatchKind, Node, Table};

/// Where a table leads: per action, or on hit and miss when the program
/// branches on hit (`next_tables` with `__HIT__` and `__MISS__`).
struct NextNodes {
    base: Option<Node>,
    by_action: Vec<Option<Node>>,
    hit: Option<Option<Node>>,
    miss: Option<Option<Node>>,
}

impl Loader {
    pub(super) fn table(
        &self,
        t: &json::Table,
        actions: &[Action],
        profiles: &ProfileLookup,
        node: &NodeLookup,
    ) -> Result<Table> {
        let what = format!("table '{}'", t.name);
        let profile = table_profile(t, profiles, &what)?;
        let direct_meter = self.table_direct_meter(t, &what)?;
        // The table-wide match_type is implied by the keys; still reject unknown ones.
        parse_match_kind(&t.match_type, &what)?;
        let keys = t
            .key
            .iter()
            .map(|k| self.key_spec(k, &what))
            .collect::<Result<Vec<_>>>()?;
        if keys.iter().filter(|k| k.kind == MatchKind::Lpm).count() > 1 {
            return Err(format!("{what}: more than one lpm key"));
        }
        if !t.action_ids.is_empty() && t.action_ids.len() != t.actions.len() {
            return Err(format!("{what}: action_ids and actions differ in length"));
        }
        let table_actions = self.table_actions(t, actions, &what)?;
        let next = next_nodes(t, node, &what)?;
        let (default, default_const, default_entry_const) =
            self.default_entry(t, actions, &table_actions, &what)?;
        let const_entries = self.const_entries(t, actions, &keys, &what)?;
        if profile.is_some() && const_entries.is_some() {
            return Err(format!("{what}: entries in a table with an action profile"));
        }
        Ok(Table {
            name: t.name.clone(),
            keys,
            max_size: t.max_size,
            actions: table_actions,
            next_by_action: next.by_action,
            hit_next: next.hit,
            miss_next: next.miss,
            base_next: next.base,
            default,
            has_default: profile.is_none() || t.default_entry.is_some(),
            profile,
            default_const,
            default_entry_const,
            with_counters: t.with_counters,
            support_timeout: t.support_timeout,
            direct_meter,
            const_entries,
        })
    }

    fn table_direct_meter(&self, t: &json::Table, what: &str) -> Result<Option<DirectMeter>> {
        Ok(match &t.direct_meters {
            None | Some(Value::Null) => None,
            Some(Value::String(m)) => Some(
                self.direct_meters
                    .get(m)
                    .copied()
                    .ok_or_else(|| format!("{what}: unknown direct meter '{m}'"))?,
            ),
            Some(other) => return Err(format!("{what}: bad direct_meters {other}")),
        })
    }

    fn key_spec(&self, k: &json::TableKey, what: &str) -> Result<KeySpec> {
        let name = k.name.clone().unwrap_or_else(|| k.target.to_string());
        let kw = format!("{what}: key '{name}'");
        // Key match types: valid, exact, lpm, ternary, range (JSON_format.md,
        // pipelines); a `valid` key's target is a header's name.
        let (kind, source) = match k.match_type.as_str() {
            "valid" => (
                MatchKind::Exact,
                KeySource::Valid(self.header(&k.target, &kw)?),
            ),
            m => (
                parse_match_kind(m, &kw)?,
                self.field_or_valid(&k.target, &kw)?,
            ),
        };
        let width = match source {
            KeySource::Field(f) => self.fields[f].width,
            KeySource::Valid(_) => 1,
        };
        let mask = match &k.mask {
            Some(m) => Some(hex_of_width(m, width, &kw)?),
            None => None,
        };
        Ok(KeySpec {
            name,
            source,
            kind,
            width,
            mask,
        })
    }

    /// The actions a table may run, as indices into the program's actions;
    /// each id must name the action the table names beside it.
    fn table_actions(&self, t: &json::Table, actions: &[Action], what: &str) -> Result<Vec<usize>> {
        if t.action_ids.is_empty() {
            // Older JSON (p4c-bm) names a table's actions without ids; BMv2 then
            // looks each up by name among all actions.
            return t
                .actions
                .iter()
                .map(|name| action_named(actions, name, what))
                .collect();
        }
        t.action_ids
            .iter()
            .zip(&t.actions)
            .map(|(id, name)| {
                let a = *self
                    .action_by_id
                    .get(id)
                    .ok_or_else(|| format!("{what}: unknown action id {id}"))?;
                if actions[a].name != *name {
                    return Err(format!(
                        "{what}: action id {id} is '{}', not '{name}'",
                        actions[a].name
                    ));
                }
                Ok(a)
            })
            .collect()
    }
}

/// The first action named `name`. p4c gives an action's copies one name (the
/// same body); BMv2 takes any one of them.
fn action_named(actions: &[Action], name: &str, what: &str) -> Result<usize> {
    actions
        .iter()
        .position(|a| a.name == name)
        .ok_or_else(|| format!("{what}: unknown action '{name}'"))
}

fn next_nodes(t: &json::Table, node: &NodeLookup, what: &str) -> Result<NextNodes> {
    let mut hit = None;
    let mut miss = None;
    for (key, v) in &t.next_tables {
        let target = node(v.as_str(), what)?;
        match key.as_str() {
            "__HIT__" => hit = Some(target),
            "__MISS__" => miss = Some(target),
            _ => {}
        }
    }
    if hit.is_some() != miss.is_some() {
        return Err(format!(
            "{what}: next_tables has only one of __HIT__ and __MISS__"
        ));
    }
    let base_default_next = node(t.base_default_next.as_deref(), what)?;
    let by_action = t
        .actions
        .iter()
        .map(|name| match t.next_tables.get(name) {
            Some(v) => node(v.as_str(), what),
            None => Ok(base_default_next),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(NextNodes {
        base: base_default_next,
        by_action,
        hit,
        miss,
    })
}

/// The action profile of a table of type `indirect` (or `indirect_ws`, whose
/// profile must have a selector); `None` for a `simple` table.
fn table_profile(t: &json::Table, profiles: &ProfileLookup, what: &str) -> Result<Option<usize>> {
    let want_selector = match t.kind.as_str() {
        "simple" => return Ok(None),
        "indirect" => false,
        "indirect_ws" => true,
        other => return Err(format!("{what}: unknown table type '{other}'")),
    };
    let name = t
        .action_profile
        .as_deref()
        .ok_or_else(|| format!("{what}: type '{}' without an action_profile", t.kind))?;
    let &(index, has_selector) = profiles
        .get(name)
        .ok_or_else(|| format!("{what}: unknown action profile '{name}'"))?;
    if want_selector && !has_selector {
        return Err(format!(
            "{what}: type indirect_ws, but action profile '{name}' has no selector"
        ));
    }
    Ok(Some(index))
}

fn parse_match_kind(s: &str, what: &str) -> Result<MatchKind> {
    Ok(match s {
        "exact" => MatchKind::Exact,
        "lpm" => MatchKind::Lpm,
        "ternary" => MatchKind::Ternary,
        "range" => MatchKind::Range,
        // BMv2's message; an `optional` P4 key is a ternary one in the JSON.
        other => return Err(format!("{what}: Invalid match type: '{other}'")),
    })
}

//! A table's entries from the JSON: its default entry, and its const
//! entries (P4 `const entries`), each a match key and an action call.

use std::collections::HashSet;

use serde_json::Value;

use super::hex::{hex_of_width, parse_hex};
use super::{Loader, Result};
use crate::program::json;
use crate::program::{
    prefix_mask, width_mask, Action, ActionCall, Entry, EntryAction, KeySpec, KeyValue,
};

impl Loader {
    /// The default action call, and whether the action, and its data, may
    /// not change. Without a `default_entry`, `NoAction` or else the table's
    /// first parameterless action.
    pub(super) fn default_entry(
        &self,
        t: &json::Table,
        actions: &[Action],
        table_actions: &[usize],
        what: &str,
    ) -> Result<(ActionCall, bool, bool)> {
        Ok(match &t.default_entry {
            Some(d) => (
                self.action_call(
                    actions,
                    d.action_id,
                    &d.action_data,
                    &format!("{what}: default_entry"),
                )?,
                d.action_const,
                d.action_entry_const,
            ),
            None => {
                let a = actions
                    .iter()
                    .position(|a| a.name == "NoAction" && a.params.is_empty())
                    .or_else(|| {
                        table_actions
                            .iter()
                            .copied()
                            .find(|&a| actions[a].params.is_empty())
                    })
                    .ok_or_else(|| {
                        format!("{what}: no default_entry and no parameterless action")
                    })?;
                (
                    ActionCall {
                        action: a,
                        data: Vec::new(),
                    },
                    false,
                    false,
                )
            }
        })
    }

    /// The table's `entries`, `None` when it has none: its entries may then
    /// change at run time.
    pub(super) fn const_entries(
        &self,
        t: &json::Table,
        actions: &[Action],
        keys: &[KeySpec],
        what: &str,
    ) -> Result<Option<Vec<Entry>>> {
        let Some(es) = &t.entries else {
            return Ok(None);
        };
        es.iter()
            .enumerate()
            .map(|(i, e)| {
                let ew = format!("{what}: entry {i}");
                if e.match_key.len() != keys.len() {
                    return Err(format!(
                        "{ew}: {} match keys for {} key fields",
                        e.match_key.len(),
                        keys.len()
                    ));
                }
                let kv = e
                    .match_key
                    .iter()
                    .zip(keys)
                    .zip(&t.key)
                    .enumerate()
                    .map(|(i, ((mk, spec), k))| {
                        if mk.match_type != k.match_type {
                            return Err(format!(
                                "{ew}: invalid match type for field #{i} in match key, \
                                 expected {} but got {}",
                                k.match_type, mk.match_type
                            ));
                        }
                        const_key(mk, spec, &ew)
                    })
                    .collect::<Result<Vec<_>>>()?;
                // BMv2 priorities: lower wins; ours: higher wins.
                Ok(Entry {
                    keys: kv,
                    action: EntryAction::Call(self.action_call(
                        actions,
                        e.action_entry.action_id,
                        &e.action_entry.action_data,
                        &ew,
                    )?),
                    priority: -e.priority,
                })
            })
            .collect::<Result<Vec<_>>>()
            .and_then(|entries| refuse_duplicates(t, entries, what))
            .map(Some)
    }

    /// An action and its data, each value cut to its parameter's width.
    fn action_call(
        &self,
        actions: &[Action],
        action_id: u32,
        data: &[String],
        w: &str,
    ) -> Result<ActionCall> {
        let a = *self
            .action_by_id
            .get(&action_id)
            .ok_or_else(|| format!("{w}: unknown action id {action_id}"))?;
        let params = &actions[a].params;
        if data.len() != params.len() {
            return Err(format!(
                "{w}: action '{}' takes {} parameters, got {}",
                actions[a].name,
                params.len(),
                data.len()
            ));
        }
        let data = data
            .iter()
            .zip(params)
            .map(|(d, p)| Ok(parse_hex(d, w)? as u128 & width_mask(p.width)))
            .collect::<Result<Vec<_>>>()?;
        Ok(ActionCall { action: a, data })
    }
}

fn const_key(mk: &json::ConstKey, spec: &KeySpec, what: &str) -> Result<KeyValue> {
    let full = width_mask(spec.width);
    let num = |s: &Option<Value>, name: &str| -> Result<u128> {
        let s = s
            .as_ref()
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{what}: key '{}' needs a hex string '{name}'", spec.name))?;
        hex_of_width(s, spec.width, &format!("{what}: key '{}'", spec.name))
    };
    Ok(match mk.match_type.as_str() {
        "exact" => KeyValue::Masked {
            value: num(&mk.key, "key")?,
            mask: full,
            prefix: None,
        },
        // A `valid` key is a boolean (JSON_format.md, match-action entry format).
        "valid" => KeyValue::Masked {
            value: u128::from(
                mk.key
                    .as_ref()
                    .and_then(Value::as_bool)
                    .ok_or_else(|| format!("{what}: valid key '{}' needs a boolean", spec.name))?,
            ),
            mask: full,
            prefix: None,
        },
        "lpm" => {
            let len = mk
                .prefix_length
                .ok_or_else(|| format!("{what}: lpm key '{}' has no prefix_length", spec.name))?;
            if len > spec.width {
                return Err(format!(
                    "{what}: prefix_length {len} is longer than key '{}' ({} bits)",
                    spec.name, spec.width
                ));
            }
            let mask = prefix_mask(spec.width, len);
            KeyValue::Masked {
                value: num(&mk.key, "key")? & mask,
                mask,
                prefix: Some(len),
            }
        }
        "ternary" => {
            let mask = num(&mk.mask, "mask")?;
            KeyValue::Masked {
                value: num(&mk.key, "key")? & mask,
                mask,
                prefix: None,
            }
        }
        "range" => KeyValue::Range {
            low: num(&mk.start, "start")?,
            high: num(&mk.end, "end")?,
        },
        other => return Err(format!("{what}: Invalid match type: '{other}'")),
    })
}

/// BMv2 refuses a table initializer with two entries the control plane
/// could not both add: the same key, and, where a field is ternary or
/// range, the same priority.
fn refuse_duplicates(t: &json::Table, entries: Vec<Entry>, what: &str) -> Result<Vec<Entry>> {
    let ranked = t
        .key
        .iter()
        .any(|k| matches!(k.match_type.as_str(), "ternary" | "range"));
    let mut seen = HashSet::new();
    for (i, e) in entries.iter().enumerate() {
        let priority = if ranked { e.priority } else { 0 };
        if !seen.insert((&e.keys, priority)) {
            return Err(format!(
                "{what}: entry {i}: Duplicate entries in table initializer"
            ));
        }
    }
    Ok(entries)
}

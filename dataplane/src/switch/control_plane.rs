//! Table and parser value set operations from the control plane (the
//! P4Runtime server, through python.rs). They take the state's write lock,
//! which packet threads honour between packets.

use std::sync::atomic::Ordering;

use super::{value_bytes, Loaded, Switch};
use crate::error::{ApiError, ApiResult};
use crate::pipeline::table::TableState;
use crate::program::{width_mask, ActionCall, Entry, EntryAction, KeyValue, MatchKind, Program};
use crate::sync::{read_lock, write_lock};

/// One match field as the API receives it; byte strings are big-endian.
#[derive(Debug)]
pub enum ApiKey {
    Exact(Vec<u8>),
    Lpm(Vec<u8>, u32),
    Ternary(Vec<u8>, Vec<u8>),
    Range(Vec<u8>, Vec<u8>),
}

impl ApiKey {
    fn kind(&self) -> MatchKind {
        match self {
            ApiKey::Exact(_) => MatchKind::Exact,
            ApiKey::Lpm(..) => MatchKind::Lpm,
            ApiKey::Ternary(..) => MatchKind::Ternary,
            ApiKey::Range(..) => MatchKind::Range,
        }
    }
}

/// Big-endian bytes truncated (keeping the low-order bits) or zero-extended
/// to `width` bits, as BMv2 does.
pub fn bytes_value(b: &[u8], width: u32) -> u128 {
    let tail = &b[b.len().saturating_sub(16)..];
    tail.iter()
        .fold(0u128, |acc, &x| (acc << 8) | u128::from(x))
        & width_mask(width)
}

pub(super) fn table_index(prog: &Program, table: &str) -> ApiResult<usize> {
    prog.table_index(table)
        .ok_or_else(|| ApiError::NotFound(format!("unknown table '{table}'")))
}

fn action_call(prog: &Program, t: usize, action: &str, data: &[Vec<u8>]) -> ApiResult<ActionCall> {
    let tab = &prog.tables[t];
    let a = tab
        .actions
        .iter()
        .copied()
        .find(|&a| prog.actions[a].name == action)
        .ok_or_else(|| {
            if prog.action_index(action).is_some() {
                ApiError::NotFound(format!("table '{}' has no action '{action}'", tab.name))
            } else {
                ApiError::NotFound(format!("unknown action '{action}' (table '{}')", tab.name))
            }
        })?;
    call_with_data(prog, a, data)
}

/// Action `a` with its parameters from big-endian bytes, checked in number.
pub(super) fn call_with_data(prog: &Program, a: usize, data: &[Vec<u8>]) -> ApiResult<ActionCall> {
    let action = &prog.actions[a].name;
    let params = &prog.actions[a].params;
    if data.len() != params.len() {
        return Err(ApiError::Invalid(format!(
            "action '{action}' takes {} parameters ({}), got {}",
            params.len(),
            params
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            data.len()
        )));
    }
    let data = data
        .iter()
        .zip(params)
        .map(|(d, p)| bytes_value(d, p.width))
        .collect();
    Ok(ActionCall { action: a, data })
}

pub(super) fn loaded(state: &mut Option<Loaded>) -> ApiResult<&mut Loaded> {
    state
        .as_mut()
        .ok_or_else(|| ApiError::Invalid("no pipeline loaded".into()))
}

pub(super) fn mutable(prog: &Program, t: usize) -> ApiResult<()> {
    let tab = &prog.tables[t];
    if tab.const_entries.is_some() {
        return Err(ApiError::Invalid(format!(
            "table '{}' has const entries and cannot be changed",
            tab.name
        )));
    }
    Ok(())
}

pub(super) fn entry_keys(prog: &Program, t: usize, keys: &[ApiKey]) -> ApiResult<Vec<KeyValue>> {
    let tab = &prog.tables[t];
    if keys.len() != tab.keys.len() {
        return Err(ApiError::Invalid(format!(
            "table '{}' has {} match fields, got {} keys",
            tab.name,
            tab.keys.len(),
            keys.len()
        )));
    }
    keys.iter()
        .zip(&tab.keys)
        .map(|(k, spec)| {
            if k.kind() != spec.kind {
                return Err(ApiError::Invalid(format!(
                    "table '{}': key '{}' is {}, got {}",
                    tab.name,
                    spec.name,
                    spec.kind.name(),
                    k.kind().name()
                )));
            }
            let w = spec.width;
            let full = width_mask(w) & spec.mask.unwrap_or(u128::MAX);
            Ok(match k {
                ApiKey::Exact(v) => KeyValue::Masked {
                    value: bytes_value(v, w) & full,
                    mask: full,
                    prefix: None,
                },
                ApiKey::Lpm(v, len) => {
                    if *len > w {
                        return Err(ApiError::Invalid(format!(
                            "table '{}': key '{}': prefix length {len} exceeds width {w}",
                            tab.name, spec.name
                        )));
                    }
                    let mask = crate::program::prefix_mask(w, *len);
                    KeyValue::Masked {
                        value: bytes_value(v, w) & mask,
                        mask,
                        prefix: Some(*len),
                    }
                }
                ApiKey::Ternary(v, m) => {
                    let mask = bytes_value(m, w);
                    KeyValue::Masked {
                        value: bytes_value(v, w) & mask,
                        mask,
                        prefix: None,
                    }
                }
                ApiKey::Range(lo, hi) => {
                    let (low, high) = (bytes_value(lo, w), bytes_value(hi, w));
                    if low > high {
                        return Err(ApiError::Invalid(format!(
                            "table '{}': key '{}': range low {low:#x} > high {high:#x}",
                            tab.name, spec.name
                        )));
                    }
                    KeyValue::Range { low, high }
                }
            })
        })
        .collect()
}

fn value_set_index(prog: &Program, name: &str) -> ApiResult<usize> {
    prog.value_set_index(name)
        .ok_or_else(|| ApiError::NotFound(format!("unknown value set '{name}'")))
}

/// A value set member from big-endian bytes. Unlike a table key, a member
/// with bits above the set's width is refused rather than truncated: the
/// truncated value would admit packets the caller did not name.
fn member_value(b: &[u8], width: u32, set: &str, i: usize) -> ApiResult<u128> {
    let first = b.iter().position(|&x| x != 0).unwrap_or(b.len());
    let v = bytes_value(&b[first..], 128);
    if b.len() - first > 16 || v & !width_mask(width) != 0 {
        return Err(ApiError::Invalid(format!(
            "value set '{set}': member {i} (0x{}) is wider than {width} bits",
            b[first..]
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect::<String>()
        )));
    }
    Ok(v)
}

/// Refuses an action of its own for an entry of a table with an action profile.
fn direct(prog: &Program, t: usize) -> ApiResult<()> {
    match prog.tables[t].profile {
        Some(p) => Err(ApiError::Invalid(format!(
            "table '{}' has action profile '{}': its entries point to members or groups",
            prog.tables[t].name, prog.action_profiles[p].name
        ))),
        None => Ok(()),
    }
}

/// Replaces what entry `handle` of table `t` runs.
pub(super) fn modify_entry(
    l: &mut Loaded,
    t: usize,
    handle: u64,
    action: EntryAction,
) -> ApiResult<()> {
    mutable(&l.prog, t)?;
    let ok = usize::try_from(handle).is_ok_and(|h| l.rt.tables[t].modify(h, action));
    if ok {
        Ok(())
    } else {
        Err(handle_err(&l.prog, t, handle))
    }
}

pub(super) fn handle_err(prog: &Program, t: usize, handle: u64) -> ApiError {
    ApiError::NotFound(format!(
        "table '{}' has no entry with handle {handle}",
        prog.tables[t].name
    ))
}

impl Switch {
    pub fn table_add(
        &self,
        table: &str,
        keys: &[ApiKey],
        action: &str,
        data: &[Vec<u8>],
        priority: i64,
    ) -> ApiResult<u64> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let t = table_index(&l.prog, table)?;
        direct(&l.prog, t)?;
        let call = action_call(&l.prog, t, action, data)?;
        self.insert_entry(l, t, keys, EntryAction::Call(call), priority)
    }

    /// Inserts an entry into table `t` after checking its keys and the table's size.
    pub(super) fn insert_entry(
        &self,
        l: &mut Loaded,
        t: usize,
        keys: &[ApiKey],
        action: EntryAction,
        priority: i64,
    ) -> ApiResult<u64> {
        mutable(&l.prog, t)?;
        let keys = entry_keys(&l.prog, t, keys)?;
        let tab = &l.prog.tables[t];
        let max = tab.max_size;
        let st: &mut TableState = &mut l.rt.tables[t];
        if max > 0 && st.len() as u64 >= max {
            return Err(ApiError::Invalid(format!(
                "table '{}' is full ({max} entries)",
                tab.name
            )));
        }
        let handle = st
            .insert(Entry {
                keys,
                action,
                priority,
            })
            .map_err(|e| ApiError::Invalid(format!("table '{}': {e}", tab.name)))?;
        if let Some(d) = st.direct(handle) {
            // An entry is idle from its insertion until its first hit.
            d.last_hit_ns.store(self.clock.now_ns(), Ordering::Relaxed);
        }
        Ok(handle as u64)
    }

    pub fn table_modify(
        &self,
        table: &str,
        handle: u64,
        action: &str,
        data: &[Vec<u8>],
    ) -> ApiResult<()> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let t = table_index(&l.prog, table)?;
        direct(&l.prog, t)?;
        let call = action_call(&l.prog, t, action, data)?;
        modify_entry(l, t, handle, EntryAction::Call(call))
    }

    pub fn table_delete(&self, table: &str, handle: u64) -> ApiResult<()> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let t = table_index(&l.prog, table)?;
        mutable(&l.prog, t)?;
        let ok = usize::try_from(handle).is_ok_and(|h| l.rt.tables[t].delete(h));
        if ok {
            Ok(())
        } else {
            Err(handle_err(&l.prog, t, handle))
        }
    }

    pub fn table_set_default(&self, table: &str, action: &str, data: &[Vec<u8>]) -> ApiResult<()> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let t = table_index(&l.prog, table)?;
        direct(&l.prog, t)?;
        let call = action_call(&l.prog, t, action, data)?;
        let tab = &l.prog.tables[t];
        let changed = call.action != tab.default.action || call.data != tab.default.data;
        if (tab.default_const && call.action != tab.default.action)
            || (tab.default_entry_const && changed)
        {
            return Err(ApiError::Invalid(format!(
                "table '{table}': the default action is const ('{}')",
                l.prog.actions[tab.default.action].name
            )));
        }
        l.rt.tables[t].default = call;
        Ok(())
    }

    pub fn table_clear(&self, table: &str) -> ApiResult<()> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let t = table_index(&l.prog, table)?;
        mutable(&l.prog, t)?;
        l.rt.tables[t].clear();
        Ok(())
    }

    /// Replaces every member of a value set; each member is the select key's
    /// parts concatenated, as big-endian bytes.
    pub fn value_set_set(&self, name: &str, members: &[Vec<u8>]) -> ApiResult<()> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let vs = value_set_index(&l.prog, name)?;
        let set = &mut l.prog.value_sets[vs];
        if let Some(max) = set.max_size.filter(|&max| members.len() > max) {
            return Err(ApiError::Invalid(format!(
                "value set '{name}' holds at most {max} members, got {}",
                members.len()
            )));
        }
        let values = members
            .iter()
            .enumerate()
            .map(|(i, m)| member_value(m, set.width, name, i))
            .collect::<ApiResult<Vec<_>>>()?;
        set.replace(values);
        Ok(())
    }

    /// The members of a value set in the order they were set, each in the
    /// fewest whole bytes of the set's width.
    pub fn value_set_get(&self, name: &str) -> ApiResult<Vec<Vec<u8>>> {
        let state = read_lock(&self.state);
        let l = state
            .as_ref()
            .ok_or_else(|| ApiError::Invalid("no pipeline loaded".into()))?;
        let set = &l.prog.value_sets[value_set_index(&l.prog, name)?];
        Ok(set
            .members()
            .iter()
            .map(|&v| value_bytes(v, set.width))
            .collect())
    }
}

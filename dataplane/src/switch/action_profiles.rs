//! Action profile members and groups from the control plane, and the entries
//! of indirect tables that point to them. Handles are the dataplane's; the
//! P4Runtime server maps its member and group ids onto them and keeps the
//! references between entries, groups and members (p4aqm/switch/runtime).

use super::control_plane::{call_with_data, loaded, modify_entry, table_index, ApiKey};
use super::{Loaded, Switch};
use crate::error::{ApiError, ApiResult};
use crate::program::{ActionCall, EntryAction, Program};
use crate::sync::write_lock;

fn profile_index(prog: &Program, profile: &str) -> ApiResult<usize> {
    prog.action_profile_index(profile)
        .ok_or_else(|| ApiError::NotFound(format!("unknown action profile '{profile}'")))
}

fn handle(h: u64) -> usize {
    usize::try_from(h).unwrap_or(usize::MAX)
}

/// A member's action: one of the actions of the tables that use the profile.
fn member_call(prog: &Program, p: usize, action: &str, data: &[Vec<u8>]) -> ApiResult<ActionCall> {
    let name = &prog.action_profiles[p].name;
    let a = prog
        .tables
        .iter()
        .filter(|t| t.profile == Some(p))
        .flat_map(|t| &t.actions)
        .copied()
        .find(|&a| prog.actions[a].name == action)
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "no table of action profile '{name}' has action '{action}'"
            ))
        })?;
    call_with_data(prog, a, data)
}

fn no_member(prog: &Program, p: usize, h: u64) -> ApiError {
    ApiError::NotFound(format!(
        "action profile '{}' has no member with handle {h}",
        prog.action_profiles[p].name
    ))
}

fn no_group(prog: &Program, p: usize, h: u64) -> ApiError {
    ApiError::NotFound(format!(
        "action profile '{}' has no group with handle {h}",
        prog.action_profiles[p].name
    ))
}

/// What an entry of table `t` runs when it points to member or group `h`.
fn indirect(l: &Loaded, t: usize, group: bool, h: u64) -> ApiResult<EntryAction> {
    let tab = &l.prog.tables[t];
    let p = tab.profile.ok_or_else(|| {
        ApiError::Invalid(format!(
            "table '{}' has no action profile: its entries run actions of their own",
            tab.name
        ))
    })?;
    let state = &l.rt.action_profiles[p];
    if !group {
        state
            .member(handle(h))
            .ok_or_else(|| no_member(&l.prog, p, h))?;
        return Ok(EntryAction::Member(handle(h)));
    }
    if l.prog.action_profiles[p].selector.is_none() {
        return Err(ApiError::Invalid(format!(
            "action profile '{}' has no selector: entries of table '{}' point to members",
            l.prog.action_profiles[p].name, tab.name
        )));
    }
    if !state.has_group(handle(h)) {
        return Err(no_group(&l.prog, p, h));
    }
    Ok(EntryAction::Group(handle(h)))
}

impl Switch {
    pub fn profile_member_add(
        &self,
        profile: &str,
        action: &str,
        data: &[Vec<u8>],
    ) -> ApiResult<u64> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let p = profile_index(&l.prog, profile)?;
        let call = member_call(&l.prog, p, action, data)?;
        let max = l.prog.action_profiles[p].max_size;
        let st = &mut l.rt.action_profiles[p];
        if max > 0 && st.member_count() as u64 >= max {
            return Err(ApiError::Invalid(format!(
                "action profile '{profile}' is full ({max} members)"
            )));
        }
        Ok(st.add_member(call) as u64)
    }

    pub fn profile_member_modify(
        &self,
        profile: &str,
        member: u64,
        action: &str,
        data: &[Vec<u8>],
    ) -> ApiResult<()> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let p = profile_index(&l.prog, profile)?;
        let call = member_call(&l.prog, p, action, data)?;
        if l.rt.action_profiles[p].modify_member(handle(member), call) {
            Ok(())
        } else {
            Err(no_member(&l.prog, p, member))
        }
    }

    pub fn profile_member_delete(&self, profile: &str, member: u64) -> ApiResult<()> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let p = profile_index(&l.prog, profile)?;
        match l.rt.action_profiles[p].delete_member(handle(member)) {
            Ok(true) => Ok(()),
            Ok(false) => Err(no_member(&l.prog, p, member)),
            Err(g) => Err(ApiError::Invalid(format!(
                "action profile '{profile}': member {member} is in group {g}"
            ))),
        }
    }

    pub fn profile_group_add(&self, profile: &str) -> ApiResult<u64> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let p = profile_index(&l.prog, profile)?;
        if l.prog.action_profiles[p].selector.is_none() {
            return Err(ApiError::Invalid(format!(
                "action profile '{profile}' has no selector: it has no groups"
            )));
        }
        Ok(l.rt.action_profiles[p].add_group() as u64)
    }

    /// Sets a group's members as (member handle, weight); a weight is at least 1.
    pub fn profile_group_set(
        &self,
        profile: &str,
        group: u64,
        members: &[(u64, u32)],
    ) -> ApiResult<()> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let p = profile_index(&l.prog, profile)?;
        if let Some((m, _)) = members.iter().find(|(_, w)| *w == 0) {
            return Err(ApiError::Invalid(format!(
                "action profile '{profile}': member {m} has weight 0"
            )));
        }
        let members: Vec<(usize, u32)> = members.iter().map(|&(m, w)| (handle(m), w)).collect();
        match l.rt.action_profiles[p].set_group(handle(group), &members) {
            Ok(true) => Ok(()),
            Ok(false) => Err(no_group(&l.prog, p, group)),
            Err(m) => Err(no_member(&l.prog, p, m as u64)),
        }
    }

    pub fn profile_group_delete(&self, profile: &str, group: u64) -> ApiResult<()> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let p = profile_index(&l.prog, profile)?;
        if l.rt.action_profiles[p].delete_group(handle(group)) {
            Ok(())
        } else {
            Err(no_group(&l.prog, p, group))
        }
    }

    /// Inserts an entry of an indirect table that points to a member, or to a
    /// group when `group` is true.
    pub fn table_add_indirect(
        &self,
        table: &str,
        keys: &[ApiKey],
        group: bool,
        target: u64,
        priority: i64,
    ) -> ApiResult<u64> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let t = table_index(&l.prog, table)?;
        let action = indirect(l, t, group, target)?;
        self.insert_entry(l, t, keys, action, priority)
    }

    pub fn table_modify_indirect(
        &self,
        table: &str,
        entry: u64,
        group: bool,
        target: u64,
    ) -> ApiResult<()> {
        let mut state = write_lock(&self.state);
        let l = loaded(&mut state)?;
        let t = table_index(&l.prog, table)?;
        let action = indirect(l, t, group, target)?;
        modify_entry(l, t, entry, action)
    }
}

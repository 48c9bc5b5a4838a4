//! Action profiles at run time: members (actions with their data) and groups
//! of members, which the entries of indirect tables point to.
//!
//! Handles are BMv2's: a new member or group takes the smallest free handle,
//! and a group chooses its member `hash % n` among its members in handle
//! order (BMv2's `GroupMgr::get_from_hash`). A member of weight w appears w
//! times in a row in that order.

use crate::program::ActionCall;

#[derive(Debug, Default)]
pub struct ProfileState {
    members: Vec<Option<ActionCall>>,
    /// Each group's members in handle order, repeated by weight.
    groups: Vec<Option<Vec<usize>>>,
    member_count: usize,
}

/// The smallest free slot of `slots`, filled with `value`.
fn take_slot<T>(slots: &mut Vec<Option<T>>, value: T) -> usize {
    match slots.iter().position(Option::is_none) {
        Some(h) => {
            slots[h] = Some(value);
            h
        }
        None => {
            slots.push(Some(value));
            slots.len() - 1
        }
    }
}

impl ProfileState {
    pub fn member_count(&self) -> usize {
        self.member_count
    }

    pub fn add_member(&mut self, call: ActionCall) -> usize {
        self.member_count += 1;
        take_slot(&mut self.members, call)
    }

    pub fn member(&self, handle: usize) -> Option<&ActionCall> {
        self.members.get(handle).and_then(Option::as_ref)
    }

    pub fn modify_member(&mut self, handle: usize, call: ActionCall) -> bool {
        match self.members.get_mut(handle).and_then(Option::as_mut) {
            Some(m) => {
                *m = call;
                true
            }
            None => false,
        }
    }

    /// Deletes a member that no group holds; Err names the first group that does.
    pub fn delete_member(&mut self, handle: usize) -> Result<bool, usize> {
        if let Some(g) = self
            .groups
            .iter()
            .position(|g| g.as_ref().is_some_and(|m| m.contains(&handle)))
        {
            return Err(g);
        }
        let deleted = self
            .members
            .get_mut(handle)
            .and_then(Option::take)
            .is_some();
        self.member_count -= usize::from(deleted);
        Ok(deleted)
    }

    pub fn add_group(&mut self) -> usize {
        take_slot(&mut self.groups, Vec::new())
    }

    pub fn has_group(&self, handle: usize) -> bool {
        self.groups.get(handle).is_some_and(Option::is_some)
    }

    /// Sets a group's members as (member handle, weight); Err names a member
    /// that does not exist. False if there is no such group.
    pub fn set_group(&mut self, handle: usize, members: &[(usize, u32)]) -> Result<bool, usize> {
        if let Some(&(m, _)) = members.iter().find(|(m, _)| self.member(*m).is_none()) {
            return Err(m);
        }
        let Some(group) = self.groups.get_mut(handle).and_then(Option::as_mut) else {
            return Ok(false);
        };
        let mut sorted = members.to_vec();
        sorted.sort_unstable();
        group.clear();
        for (m, weight) in sorted {
            group.extend(std::iter::repeat_n(m, weight as usize));
        }
        Ok(true)
    }

    pub fn delete_group(&mut self, handle: usize) -> bool {
        self.groups.get_mut(handle).and_then(Option::take).is_some()
    }

    /// The member a packet of selector hash `hash` runs, or `None` for an
    /// empty (or deleted) group.
    pub fn choose(&self, group: usize, hash: u128) -> Option<&ActionCall> {
        let members = self.groups.get(group)?.as_ref()?;
        if members.is_empty() {
            return None;
        }
        let n = members.len() as u128;
        self.member(members[(hash % n) as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tag: u128) -> ActionCall {
        ActionCall {
            action: 0,
            data: vec![tag],
        }
    }

    #[test]
    fn handles_are_the_smallest_free_ones() {
        let mut p = ProfileState::default();
        assert_eq!(p.add_member(call(0)), 0);
        assert_eq!(p.add_member(call(1)), 1);
        assert_eq!(p.add_member(call(2)), 2);
        assert_eq!(p.delete_member(1), Ok(true));
        assert_eq!(p.add_member(call(3)), 1);
        assert_eq!(p.member_count(), 3);
    }

    #[test]
    fn a_group_chooses_by_hash_in_handle_order_with_weights() {
        let mut p = ProfileState::default();
        for tag in 0..3 {
            p.add_member(call(tag));
        }
        let g = p.add_group();
        assert_eq!(p.set_group(g, &[(2, 1), (0, 2)]), Ok(true));
        let chosen: Vec<u128> = (0..6).map(|h| p.choose(g, h).unwrap().data[0]).collect();
        assert_eq!(chosen, vec![0, 0, 2, 0, 0, 2]);
        assert_eq!(p.delete_member(0), Err(g));
        assert_eq!(p.set_group(g, &[(7, 1)]), Err(7));
        assert_eq!(p.set_group(g, &[]), Ok(true));
        assert!(p.choose(g, 0).is_none());
        assert!(p.delete_group(g));
        assert!(!p.has_group(g));
    }
}

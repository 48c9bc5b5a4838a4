//! Match-action tables at run time: entries added by the control plane (or
//! the program's const entries) and lookup.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::meter::Meter;
use crate::program::{ActionCall, Entry, EntryAction, KeyValue, MatchKind, Table};

/// Per-entry direct counter and meter, and the time of the entry's last hit.
/// They change on the packet path under the state's read lock, hence
/// atomics and a mutex.
#[derive(Debug, Default)]
pub struct DirectState {
    pub packets: AtomicU64,
    pub bytes: AtomicU64,
    pub meter: Mutex<Meter>,
    /// Switch-clock time of the last hit, or of the entry's insertion: what
    /// idle timeouts measure (recorded only in tables with `support_timeout`).
    pub last_hit_ns: AtomicU64,
}

impl DirectState {
    fn reset(&mut self) {
        *self = DirectState::default();
    }

    /// Counts one packet of `len` bytes.
    pub fn count(&self, len: u32) {
        self.packets.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(u64::from(len), Ordering::Relaxed);
    }
}

/// How a table orders candidate entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// All keys exact: a hash lookup.
    Hash,
    /// Longest prefix first.
    Prefix,
    /// Highest priority first (ternary or range keys present).
    Priority,
}

#[derive(Debug)]
pub struct TableState {
    order: Order,
    /// Entries by handle; a deleted handle leaves `None` and is reused.
    slots: Vec<Option<Entry>>,
    /// Direct counter and meter of each slot, indexed like `slots`.
    direct: Vec<DirectState>,
    free: Vec<usize>,
    /// Key values -> handle, for `Order::Hash`.
    exact: HashMap<Vec<u128>, usize>,
    /// Handles in match order, for `Order::Prefix`/`Order::Priority`.
    ranked: Vec<usize>,
    pub default: ActionCall,
    len: usize,
}

impl TableState {
    pub fn new(t: &Table) -> Self {
        let kinds = || t.keys.iter().map(|k| k.kind);
        let order = if kinds().any(|k| matches!(k, MatchKind::Ternary | MatchKind::Range)) {
            Order::Priority
        } else if kinds().any(|k| k == MatchKind::Lpm) {
            Order::Prefix
        } else {
            Order::Hash
        };
        let mut s = TableState {
            order,
            slots: Vec::new(),
            direct: Vec::new(),
            free: Vec::new(),
            exact: HashMap::new(),
            ranked: Vec::new(),
            default: t.default.clone(),
            len: 0,
        };
        for e in t.const_entries.iter().flatten() {
            // Validated at load, where duplicates are refused as BMv2 refuses
            // them: every insert succeeds, and the handles are 0, 1, ...
            let _ = s.insert(e.clone());
        }
        s
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn exact_key(e: &Entry) -> Vec<u128> {
        e.keys
            .iter()
            .map(|k| match k {
                KeyValue::Masked { value, .. } => *value,
                KeyValue::Range { low, .. } => *low,
            })
            .collect()
    }

    fn rank(&self, e: &Entry) -> i64 {
        match self.order {
            Order::Hash => 0,
            Order::Prefix => e
                .keys
                .iter()
                .find_map(|k| match k {
                    KeyValue::Masked {
                        prefix: Some(p), ..
                    } => Some(i64::from(*p)),
                    _ => None,
                })
                .unwrap_or(0),
            Order::Priority => e.priority,
        }
    }

    /// Adds an entry and returns its handle; `Err` names a duplicate.
    pub fn insert(&mut self, e: Entry) -> Result<usize, String> {
        match self.order {
            Order::Hash => {
                if self.exact.contains_key(&Self::exact_key(&e)) {
                    return Err("duplicate entry: an entry with the same key exists".to_owned());
                }
            }
            _ => {
                let dup = self.ranked.iter().any(|&h| {
                    self.slots[h]
                        .as_ref()
                        .is_some_and(|x| x.keys == e.keys && self.rank(x) == self.rank(&e))
                });
                if dup {
                    return Err(
                        "duplicate entry: an entry with the same key and priority exists"
                            .to_owned(),
                    );
                }
            }
        }
        let handle = match self.free.pop() {
            Some(h) => {
                // A new entry starts with fresh counters and an unconfigured
                // meter, as in P4Runtime.
                self.direct[h].reset();
                h
            }
            None => {
                self.slots.push(None);
                self.direct.push(DirectState::default());
                self.slots.len() - 1
            }
        };
        match self.order {
            Order::Hash => {
                self.exact.insert(Self::exact_key(&e), handle);
            }
            _ => {
                // Stable: among equal ranks the earlier entry keeps winning.
                let r = self.rank(&e);
                let at = self
                    .ranked
                    .iter()
                    .position(|&h| self.slots[h].as_ref().map_or(0, |x| self.rank(x)) < r)
                    .unwrap_or(self.ranked.len());
                self.ranked.insert(at, handle);
            }
        }
        self.slots[handle] = Some(e);
        self.len += 1;
        Ok(handle)
    }

    pub fn modify(&mut self, handle: usize, action: EntryAction) -> bool {
        match self.slots.get_mut(handle).and_then(Option::as_mut) {
            Some(e) => {
                e.action = action;
                true
            }
            None => false,
        }
    }

    pub fn delete(&mut self, handle: usize) -> bool {
        let Some(e) = self.slots.get_mut(handle).and_then(Option::take) else {
            return false;
        };
        match self.order {
            Order::Hash => {
                self.exact.remove(&Self::exact_key(&e));
            }
            _ => self.ranked.retain(|&h| h != handle),
        }
        self.free.push(handle);
        self.len -= 1;
        true
    }

    /// The direct counter and meter of a live entry.
    pub fn direct(&self, handle: usize) -> Option<&DirectState> {
        self.slots.get(handle)?.as_ref()?;
        self.direct.get(handle)
    }

    pub fn clear(&mut self) {
        self.slots.clear();
        self.direct.clear();
        self.free.clear();
        self.exact.clear();
        self.ranked.clear();
        self.len = 0;
    }

    /// Finds the matching entry for the key values in `key`.
    pub fn lookup(&self, key: &[u128]) -> Option<(usize, &Entry)> {
        match self.order {
            Order::Hash => {
                let h = *self.exact.get(key)?;
                self.slots[h].as_ref().map(|e| (h, e))
            }
            _ => self.ranked.iter().find_map(|&h| {
                let e = self.slots[h].as_ref()?;
                e.keys
                    .iter()
                    .zip(key)
                    .all(|(kv, &k)| matches(kv, k))
                    .then_some((h, e))
            }),
        }
    }
}

fn matches(kv: &KeyValue, k: u128) -> bool {
    match kv {
        KeyValue::Masked { value, mask, .. } => k & mask == *value,
        KeyValue::Range { low, high } => (*low..=*high).contains(&k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{KeySource, KeySpec};

    impl Entry {
        fn action_data(&self) -> Vec<u128> {
            match &self.action {
                EntryAction::Call(c) => c.data.clone(),
                other => panic!("not a direct action: {other:?}"),
            }
        }
    }

    fn table(kind: MatchKind) -> Table {
        Table {
            name: "t".into(),
            keys: vec![KeySpec {
                name: "k".into(),
                source: KeySource::Field(0),
                kind,
                width: 32,
                mask: None,
            }],
            max_size: 16,
            actions: vec![0],
            next_by_action: vec![None],
            hit_next: None,
            miss_next: None,
            base_next: None,
            default: ActionCall {
                action: 0,
                data: vec![],
            },
            has_default: true,
            profile: None,
            default_const: false,
            default_entry_const: false,
            with_counters: false,
            support_timeout: false,
            direct_meter: None,
            const_entries: None,
        }
    }

    fn lpm(v: u128, len: u32, tag: u128) -> Entry {
        let mask = crate::program::width_mask(32) & !crate::program::width_mask(32 - len);
        Entry {
            keys: vec![KeyValue::Masked {
                value: v & mask,
                mask,
                prefix: Some(len),
            }],
            action: EntryAction::Call(ActionCall {
                action: 0,
                data: vec![tag],
            }),
            priority: 0,
        }
    }

    #[test]
    fn longest_prefix_wins_regardless_of_insert_order() {
        let mut t = TableState::new(&table(MatchKind::Lpm));
        t.insert(lpm(0x0a000000, 8, 1)).unwrap();
        t.insert(lpm(0x0a010000, 16, 2)).unwrap();
        t.insert(lpm(0, 0, 3)).unwrap();
        assert_eq!(t.lookup(&[0x0a010203]).unwrap().1.action_data(), vec![2]);
        assert_eq!(t.lookup(&[0x0a020203]).unwrap().1.action_data(), vec![1]);
        assert_eq!(t.lookup(&[0x0b000000]).unwrap().1.action_data(), vec![3]);
        assert!(t.insert(lpm(0x0a000000, 8, 9)).is_err());
    }

    #[test]
    fn exact_delete_and_handle_reuse() {
        let mut t = TableState::new(&table(MatchKind::Exact));
        let e = Entry {
            keys: vec![KeyValue::Masked {
                value: 5,
                mask: u32::MAX.into(),
                prefix: None,
            }],
            action: EntryAction::Call(ActionCall {
                action: 0,
                data: vec![],
            }),
            priority: 0,
        };
        let h = t.insert(e.clone()).unwrap();
        assert!(t.lookup(&[5]).is_some());
        assert!(t.delete(h));
        assert!(!t.delete(h));
        assert!(t.lookup(&[5]).is_none());
        assert_eq!(t.insert(e).unwrap(), h);
    }

    #[test]
    fn highest_priority_wins_then_earliest() {
        let mut t = TableState::new(&table(MatchKind::Ternary));
        let e = |v: u128, mask: u128, priority: i64, tag: u128| Entry {
            keys: vec![KeyValue::Masked {
                value: v,
                mask,
                prefix: None,
            }],
            action: EntryAction::Call(ActionCall {
                action: 0,
                data: vec![tag],
            }),
            priority,
        };
        t.insert(e(0x0a000000, 0xff000000, 1, 1)).unwrap();
        t.insert(e(0x0a010000, 0xffff0000, 5, 2)).unwrap();
        t.insert(e(0, 0, 5, 3)).unwrap();
        assert_eq!(t.lookup(&[0x0a010101]).unwrap().1.action_data(), vec![2]);
        assert_eq!(t.lookup(&[0x0a020202]).unwrap().1.action_data(), vec![3]);
        assert!(t.insert(e(0, 0, 5, 4)).is_err());
        assert!(t.insert(e(0, 0, 6, 4)).is_ok());
        assert_eq!(t.lookup(&[0x0a010101]).unwrap().1.action_data(), vec![4]);
    }
}

//! Parser value sets (`value_set<T>(size)`): a select keyset whose members
//! the control plane sets at run time.

use std::collections::HashSet;

/// A value set with its members. The members are run-time state, like table
/// entries, but they live with the program because the parser sees only the
/// program: the control plane replaces them under the switch state's write
/// lock, which packet threads honour between packets. Empty at load.
#[derive(Debug)]
pub struct ValueSet {
    /// `Parser.name`, the BMv2 JSON (and P4Info) name.
    pub name: String,
    /// Bits of a member: the select key's parts concatenated at their widths.
    pub width: u32,
    /// At most this many members; `None` when the JSON gives no size.
    pub max_size: Option<usize>,
    /// In the order they were given, for reads.
    members: Vec<u128>,
    /// The same values, so that a packet's lookup does not scan.
    lookup: HashSet<u128>,
}

impl ValueSet {
    pub fn new(name: String, width: u32, max_size: Option<usize>) -> Self {
        ValueSet {
            name,
            width,
            max_size,
            members: Vec::new(),
            lookup: HashSet::new(),
        }
    }

    pub fn contains(&self, value: u128) -> bool {
        self.lookup.contains(&value)
    }

    pub fn members(&self) -> &[u128] {
        &self.members
    }

    /// Replaces every member; a value given twice is kept once, at its first
    /// place.
    pub fn replace(&mut self, values: impl IntoIterator<Item = u128>) {
        self.members.clear();
        self.lookup.clear();
        for v in values {
            if self.lookup.insert(v) {
                self.members.push(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_keeps_first_order_and_drops_repeats() {
        let mut vs = ValueSet::new("p.vs".into(), 16, Some(4));
        vs.replace([3, 1, 3, 2]);
        assert_eq!(vs.members(), &[3, 1, 2]);
        assert!(vs.contains(1) && !vs.contains(4));
        vs.replace([4]);
        assert_eq!(vs.members(), &[4]);
        assert!(!vs.contains(1) && vs.contains(4));
    }
}

//! Parser value sets: declared in `parse_vsets`, used by `parse_vset`
//! transitions, whose key must be exactly as wide as the set's members.

use super::{Loader, Result};
use crate::program::json::{Json, Transition};
use crate::program::{TransitionMatch, ValueSet, MAX_FIELD_WIDTH};

impl Loader {
    /// The program's value sets, empty; indexes them by name for transitions.
    pub(super) fn value_sets(&mut self, j: &Json) -> Result<Vec<ValueSet>> {
        let mut sets = Vec::with_capacity(j.parse_vsets.len());
        for v in &j.parse_vsets {
            let what = format!("parse_vset '{}'", v.name);
            if v.compressed_bitwidth == 0 || v.compressed_bitwidth > MAX_FIELD_WIDTH {
                return Err(format!(
                    "{what}: compressed_bitwidth {} not supported (1..{MAX_FIELD_WIDTH})",
                    v.compressed_bitwidth
                ));
            }
            let max_size = v
                .max_size
                .map(|n| usize::try_from(n).map_err(|_| format!("{what}: max_size {n} too large")))
                .transpose()?;
            if self
                .value_set_index
                .insert(v.name.clone(), sets.len())
                .is_some()
            {
                return Err(format!("{what}: defined twice"));
            }
            sets.push(ValueSet::new(
                v.name.clone(),
                v.compressed_bitwidth,
                max_size,
            ));
        }
        Ok(sets)
    }

    /// A `parse_vset` transition of a state whose key parts have
    /// `key_widths`: the parts, concatenated at their widths, must make a
    /// value exactly as wide as the set's members.
    pub(super) fn value_set_transition(
        &self,
        t: &Transition,
        key_widths: &[u32],
        sets: &[ValueSet],
        what: &str,
    ) -> Result<TransitionMatch> {
        let name = t
            .value
            .as_deref()
            .ok_or_else(|| format!("{what}: parse_vset transition without a value set name"))?;
        let set = *self
            .value_set_index
            .get(name)
            .ok_or_else(|| format!("{what}: unknown parse_vset '{name}'"))?;
        if t.mask.is_some() {
            return Err(format!(
                "{what}: masked transition on parse_vset '{name}' is not supported"
            ));
        }
        let key_bits: u32 = key_widths.iter().sum();
        let width = sets[set].width;
        if key_bits != width {
            return Err(format!(
                "{what}: select key is {key_bits} bits but parse_vset '{name}' has \
                 {width}-bit members (compressed_bitwidth)"
            ));
        }
        Ok(TransitionMatch::ValueSet(set))
    }
}

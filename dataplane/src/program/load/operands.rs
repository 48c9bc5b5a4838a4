//! The parameter list of a primitive or a parser operation, whose count
//! BMv2 checks against what the operation takes.

use serde_json::Value;

use super::Result;

pub(super) struct Operands<'a> {
    /// Names the operation in errors, e.g. `action 'a': primitive 'drop'`.
    pub(super) what: String,
    pub(super) list: &'a [Value],
}

impl Operands<'_> {
    pub(super) fn get(&self, i: usize) -> Result<&Value> {
        self.list
            .get(i)
            .ok_or_else(|| format!("{}: missing parameter {i}", self.what))
    }

    pub(super) fn arity(&self, n: usize) -> Result<()> {
        if self.list.len() == n {
            Ok(())
        } else {
            Err(format!(
                "{}: expected {n} parameters, got {}",
                self.what,
                self.list.len()
            ))
        }
    }
}

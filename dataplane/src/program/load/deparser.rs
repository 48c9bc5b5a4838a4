//! The deparser: the order in which headers are emitted.

use serde_json::Value;

use super::{Loader, Result};
use crate::program::json::Json;

impl Loader {
    pub(super) fn deparser(&self, j: &Json) -> Result<Vec<usize>> {
        let d = match j.deparsers.as_slice() {
            [] => return Ok(Vec::new()),
            [d] => d,
            _ => return Err("more than one deparser; v1model has one".to_owned()),
        };
        if !d.primitives.is_empty() {
            return Err(format!(
                "deparser '{}': deparser primitives are not supported",
                d.name
            ));
        }
        d.order
            .iter()
            .map(|h| self.header(&Value::from(h.as_str()), &format!("deparser '{}'", d.name)))
            .collect()
    }
}

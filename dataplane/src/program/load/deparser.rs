//! The deparser: the order in which headers are emitted, and the extern
//! calls p4c places there (its `primitives`, each run as BMv2 runs a
//! one-primitive action).

use serde_json::Value;

use super::{Loader, Result, Scope};
use crate::program::json::Json;
use crate::program::Primitive;

impl Loader {
    pub(super) fn deparser(&self, j: &Json) -> Result<(Vec<usize>, Vec<Primitive>)> {
        let d = match j.deparsers.as_slice() {
            [] => return Ok((Vec::new(), Vec::new())),
            [d] => d,
            _ => return Err("more than one deparser; v1model has one".to_owned()),
        };
        let what = format!("deparser '{}'", d.name);
        let sc = Scope::outside_actions(&what);
        let primitives = d
            .primitives
            .iter()
            .map(|p| self.primitive(&p.op, &p.parameters, sc, 1))
            .collect::<Result<Vec<_>>>()?;
        let order = d
            .order
            .iter()
            .map(|h| self.header(&Value::from(h.as_str()), &what))
            .collect::<Result<Vec<_>>>()?;
        Ok((order, primitives))
    }
}

//! Header unions: resolved to their member headers, so that the packet path
//! can keep at most one member valid.

use serde_json::Value;

use super::{type_of, Loader, Result};
use crate::program::json::Json;
use crate::program::UnionInfo;

impl Loader {
    /// Resolves `header_unions` and marks each member header with its union.
    pub(super) fn unions(&mut self, j: &Json) -> Result<()> {
        for u in &j.header_unions {
            let what = format!("header_union '{}'", u.name);
            let index = self.unions.len();
            let mut headers = Vec::with_capacity(u.header_ids.len());
            for &id in &u.header_ids {
                let name = j
                    .headers
                    .get(id as usize)
                    .map(|h| h.name.as_str())
                    .ok_or_else(|| format!("{what}: unknown header id {id}"))?;
                let h = self.header(&Value::from(name), &what)?;
                if self.headers[h].union.replace(index).is_some() {
                    return Err(format!("{what}: header '{name}' is in two unions"));
                }
                headers.push(h);
            }
            if self.union_index.insert(u.name.clone(), index).is_some() {
                return Err(format!("{what}: defined twice"));
            }
            self.unions.push(UnionInfo {
                name: u.name.clone(),
                headers,
            });
        }
        Ok(())
    }

    /// A `{"type": "header_union", "value": name}` operand.
    pub(super) fn typed_union(&self, v: &Value, what: &str) -> Result<usize> {
        if type_of(v) != "header_union" {
            return Err(format!(
                "{what}: expected a header_union, got type '{}'",
                type_of(v)
            ));
        }
        let name = v["value"].as_str().unwrap_or("");
        self.union_index
            .get(name)
            .copied()
            .ok_or_else(|| format!("{what}: unknown header union '{name}'"))
    }
}

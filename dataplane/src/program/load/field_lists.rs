//! Field lists (the metadata clone, resubmit and recirculate keep) and
//! learn lists (the fields of a digest), indexed by id for primitives.

use super::{Loader, Result};
use crate::program::json::Json;
use crate::program::{Expr, LearnList};

impl Loader {
    pub(super) fn field_lists(&mut self, j: &Json) -> Result<Vec<Vec<usize>>> {
        let mut out = Vec::new();
        for (i, l) in j.field_lists.iter().enumerate() {
            let what = format!("field_list '{}'", l.name);
            let fields = l
                .elements
                .iter()
                .map(|e| self.typed_field(e, &what))
                .collect::<Result<Vec<_>>>()?;
            if self.field_list_by_id.insert(l.id, i).is_some() {
                return Err(format!("{what}: duplicate id {}", l.id));
            }
            out.push(fields);
        }
        Ok(out)
    }

    /// A field list id parameter; an id with no field list (p4c's 0) keeps
    /// no metadata.
    pub(super) fn field_list_arg(&self, id: Expr, what: &str) -> Result<Option<usize>> {
        match id {
            Expr::Const(id) => Ok(u32::try_from(id)
                .ok()
                .and_then(|id| self.field_list_by_id.get(&id).copied())),
            _ => Err(format!("{what}: field list id must be a constant")),
        }
    }

    pub(super) fn learn_lists(&mut self, j: &Json) -> Result<Vec<LearnList>> {
        let mut out = Vec::new();
        for (i, l) in j.learn_lists.iter().enumerate() {
            let what = format!("learn_list '{}'", l.name);
            let fields = l
                .elements
                .iter()
                .map(|e| self.typed_field(e, &what))
                .collect::<Result<Vec<_>>>()?;
            if self.learn_list_by_id.insert(l.id, i).is_some() {
                return Err(format!("{what}: duplicate id {}", l.id));
            }
            out.push(LearnList {
                name: l.name.clone(),
                fields,
            });
        }
        Ok(out)
    }
}

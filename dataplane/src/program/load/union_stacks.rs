//! Header union stacks (JSON_format.md, `header_union_stacks`): resolved to
//! their element unions, and the operands that name them: a
//! `header_union_stack` value, an extract's `union_stack` target and a
//! parser key's `union_stack_field`.

use serde_json::Value;

use super::{type_of, Loader, Result};
use crate::program::json::Json;
use crate::program::{Expr, UnionStackInfo};

impl Loader {
    /// Resolves `header_union_stacks`; runs after `unions`.
    pub(super) fn union_stacks(&mut self, j: &Json) -> Result<()> {
        for s in &j.header_union_stacks {
            let what = format!("header_union_stack '{}'", s.name);
            let ty = j
                .header_union_types
                .iter()
                .find(|t| t.name == s.union_type)
                .ok_or_else(|| format!("{what}: unknown union_type '{}'", s.union_type))?;
            let members: Vec<String> = ty.headers.iter().map(|(m, _)| m.clone()).collect();
            let mut unions = Vec::with_capacity(s.header_union_ids.len());
            for &id in &s.header_union_ids {
                let name = j
                    .header_unions
                    .get(id as usize)
                    .map(|u| u.name.as_str())
                    .ok_or_else(|| format!("{what}: unknown header union id {id}"))?;
                let u = self.union_index[name];
                let headers = &self.unions[u].headers;
                if headers.len() != members.len() {
                    return Err(format!(
                        "{what}: union '{name}' is not of union_type '{}'",
                        s.union_type
                    ));
                }
                unions.push(u);
            }
            if unions.is_empty() {
                return Err(format!("{what}: no elements"));
            }
            let index = self.union_stacks.len();
            if self
                .union_stack_index
                .insert(s.name.clone(), index)
                .is_some()
            {
                return Err(format!("{what}: defined twice"));
            }
            self.union_stacks.push(UnionStackInfo {
                name: s.name.clone(),
                unions,
                members,
            });
        }
        Ok(())
    }

    pub(super) fn union_stack(&self, v: &Value, what: &str) -> Result<usize> {
        let name = v.as_str().unwrap_or("");
        self.union_stack_index
            .get(name)
            .copied()
            .ok_or_else(|| format!("{what}: unknown header union stack '{name}'"))
    }

    /// A `{"type": "header_union_stack", "value": name}` operand.
    pub(super) fn typed_union_stack(&self, v: &Value, what: &str) -> Result<usize> {
        if type_of(v) != "header_union_stack" {
            return Err(format!(
                "{what}: expected a header_union_stack, got type '{}'",
                type_of(v)
            ));
        }
        self.union_stack(&v["value"], what)
    }

    /// A member's position in the elements of union stack `st`.
    pub(super) fn union_stack_member(&self, st: usize, v: &Value, what: &str) -> Result<usize> {
        let s = &self.union_stacks[st];
        let m = v.as_str().unwrap_or("");
        s.members
            .iter()
            .position(|x| x == m)
            .ok_or_else(|| format!("{what}: union stack '{}' has no member '{m}'", s.name))
    }

    /// An extract's `union_stack` value: `[union stack, member]`.
    pub(super) fn union_stack_target(
        &self,
        v: &Value,
        varbit: bool,
        what: &str,
    ) -> Result<(usize, usize)> {
        let Some([s, m]) = v.as_array().map(Vec::as_slice) else {
            return Err(format!(
                "{what}: a union_stack extract names [union stack, member], got {v}"
            ));
        };
        let st = self.union_stack(s, what)?;
        let member = self.union_stack_member(st, m, what)?;
        // As for stacks: `extract` for members without a varbit field,
        // `extract_VL` for those with one.
        let first = self.unions[self.union_stacks[st].unions[0]].headers[member];
        let name = &self.headers[first].name;
        match (varbit, self.headers[first].varbit.is_some()) {
            (false, true) => Err(format!(
                "{what}: union stack member '{name}' has a varbit field; extract it with extract_VL"
            )),
            (true, false) => Err(format!(
                "{what}: union stack member '{name}' has no varbit field"
            )),
            _ => Ok((st, member)),
        }
    }

    /// A parser key's `union_stack_field`: `[union stack, member, field]`,
    /// with the field's width.
    pub(super) fn union_stack_field(&self, v: &Value, what: &str) -> Result<(Expr, u32)> {
        let Some([s, m, f]) = v.as_array().map(Vec::as_slice) else {
            return Err(format!(
                "{what}: a union_stack_field names [union stack, member, field], got {v}"
            ));
        };
        let stack = self.union_stack(s, what)?;
        let member = self.union_stack_member(stack, m, what)?;
        let first = self.unions[self.union_stacks[stack].unions[0]].headers[member];
        let hi = &self.headers[first];
        let f = f.as_str().unwrap_or("");
        let prefix = format!("{}.", hi.name);
        let offset = self.fields[hi.first_field..hi.first_field + hi.num_fields]
            .iter()
            .position(|x| x.name.strip_prefix(&prefix) == Some(f))
            .ok_or_else(|| {
                format!(
                    "{what}: union stack member '{}' has no field '{f}'",
                    hi.name
                )
            })?;
        let width = self.fields[hi.first_field + offset].width;
        let e = Expr::UnionStackField {
            stack,
            member,
            offset,
        };
        Ok((e, width))
    }
}

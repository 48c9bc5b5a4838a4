//! Varbit fields: each header with one gets a PHV slot for its bytes and a
//! maximum length; extracts are checked against the header's kind, and the
//! few operations on a varbit value (`assign_VL`, `==`) name its field.

use serde_json::Value;

use super::{type_of, Loader, Result};
use crate::program::json;
use crate::program::{Primitive, VarbitInfo};

impl Loader {
    /// The varbit field `field` of a header of type `t`, whose fixed fields
    /// take `fixed_bits`; the maximum comes from the type's `max_length` (bytes
    /// of the whole header), as the JSON carries no other bound. Metadata may
    /// have one too: p4c keeps a varbit local in a metadata instance of its
    /// own (type `$varbit<N>`, field `field`).
    pub(super) fn varbit(
        &mut self,
        t: &json::HeaderType,
        field: usize,
        fixed_bits: u32,
    ) -> Result<VarbitInfo> {
        let max_length = t.max_length.ok_or_else(|| {
            format!(
                "header_type '{}': a varbit field needs 'max_length'",
                t.name
            )
        })?;
        let max_bits = max_length
            .checked_mul(8)
            .and_then(|b| b.checked_sub(fixed_bits))
            .filter(|&b| b > 0)
            .ok_or_else(|| {
                format!(
                    "header_type '{}': max_length {max_length} leaves no room for the varbit field",
                    t.name
                )
            })?;
        let slot = self.num_varbits;
        self.num_varbits += 1;
        Ok(VarbitInfo {
            field,
            slot,
            max_bits,
        })
    }

    /// The varbit field a typed value names (`{"type": "field"}`), or `None`
    /// for any other value.
    pub(super) fn varbit_operand(&self, v: &Value) -> Option<VarbitInfo> {
        if type_of(v) != "field" {
            return None;
        }
        let pair = v["value"].as_array().filter(|a| a.len() == 2)?;
        let (h, f) = (pair[0].as_str()?, pair[1].as_str()?);
        let field = *self.field_index.get(&(h.to_owned(), f.to_owned()))?;
        let header = *self.header_index.get(h)?;
        self.headers[header].varbit.filter(|vb| vb.field == field)
    }

    /// A parameter of `assign_VL` (or of a parser's `set` between varbits): a
    /// varbit field.
    pub(super) fn varbit_param(&self, v: &Value, what: &str) -> Result<VarbitInfo> {
        self.varbit_operand(v)
            .ok_or_else(|| format!("{what}: expected a varbit field, got {v}"))
    }

    /// `assign_VL(dst, src)`: the destination must be able to hold the
    /// source's largest value.
    pub(super) fn assign_varbit(&self, dst: &Value, src: &Value, what: &str) -> Result<Primitive> {
        let (d, s) = (self.varbit_param(dst, what)?, self.varbit_param(src, what)?);
        if d.max_bits < s.max_bits {
            return Err(format!(
                "{what}: a varbit field of at most {} bits cannot hold one of up to {} bits",
                d.max_bits, s.max_bits
            ));
        }
        Ok(Primitive::AssignVarbit {
            dst: d.slot,
            src: s.slot,
        })
    }

    /// A header for a plain `extract`: one with a varbit field needs its
    /// length, i.e. `extract_VL`.
    pub(super) fn fixed_header(&self, name: &Value, what: &str) -> Result<usize> {
        let h = self.header(name, what)?;
        if self.headers[h].varbit.is_some() {
            return Err(format!(
                "{what}: header '{}' has a varbit field; extract it with extract_VL",
                self.headers[h].name
            ));
        }
        Ok(h)
    }

    /// The stack of an extract of its next element: `extract` (`varbit` false)
    /// needs headers without a varbit field, `extract_VL` of type "stack" ones
    /// with it.
    pub(super) fn extract_stack(&self, name: &Value, varbit: bool, what: &str) -> Result<usize> {
        let st = self.stack(name, what)?;
        let stack = &self.stacks[st].name;
        match (varbit, self.stack_has_varbit(st)) {
            (false, true) => Err(format!(
                "{what}: stack '{stack}' holds headers with a varbit field; extract them with extract_VL"
            )),
            (true, false) => Err(format!(
                "{what}: stack '{stack}' holds headers without a varbit field"
            )),
            _ => Ok(st),
        }
    }

    fn stack_has_varbit(&self, st: usize) -> bool {
        self.stacks[st]
            .headers
            .first()
            .is_some_and(|&h| self.headers[h].varbit.is_some())
    }

    /// The first parameter of `extract_VL`: a regular header with a varbit field.
    pub(super) fn varbit_header(&self, v: &Value, what: &str) -> Result<usize> {
        if type_of(v) != "regular" {
            return Err(format!(
                "{what}: extract_VL of type '{}' is not supported",
                type_of(v)
            ));
        }
        let h = self.header(&v["value"], what)?;
        if self.headers[h].varbit.is_none() {
            return Err(format!(
                "{what}: header '{}' has no varbit field",
                self.headers[h].name
            ));
        }
        Ok(h)
    }
}

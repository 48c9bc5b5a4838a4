//! Varbit fields: each header with one gets a PHV slot for its bytes and a
//! maximum length; extracts are checked against the header's kind.

use serde_json::Value;

use super::{type_of, Loader, Result};
use crate::program::json::{self, Header};
use crate::program::VarbitInfo;

impl Loader {
    /// The varbit field `field` of header `h`, whose fixed fields take
    /// `fixed_bits`; the maximum comes from the type's `max_length` (bytes of
    /// the whole header), as the JSON carries no other bound.
    pub(super) fn varbit(
        &mut self,
        t: &json::HeaderType,
        h: &Header,
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
        if h.metadata {
            return Err(format!(
                "header '{}': metadata cannot have a varbit field",
                h.name
            ));
        }
        let slot = self.num_varbits;
        self.num_varbits += 1;
        Ok(VarbitInfo {
            field,
            slot,
            max_bits,
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

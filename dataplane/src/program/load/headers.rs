//! Header types, headers and header stacks laid out as fields, and the
//! references to them that the rest of the program makes.

use std::collections::HashMap;

use serde_json::Value;

use super::{type_of, Loader, Result};
use crate::program::json::{self, Json};
use crate::program::{FieldInfo, HeaderInfo, KeySource, StackInfo, MAX_FIELD_WIDTH};

impl Loader {
    pub(super) fn headers(&mut self, j: &Json) -> Result<()> {
        let types: HashMap<&str, &json::HeaderType> = j
            .header_types
            .iter()
            .map(|t| (t.name.as_str(), t))
            .collect();
        for h in &j.headers {
            let t = types.get(h.header_type.as_str()).ok_or_else(|| {
                format!(
                    "header '{}': unknown header_type '{}'",
                    h.name, h.header_type
                )
            })?;
            let first_field = self.fields.len();
            let (bits, varbit_field) = self.header_fields(h, t)?;
            let varbit = match varbit_field {
                Some(field) => Some(self.varbit(t, field, bits)?),
                None => None,
            };
            if !h.metadata && !bits.is_multiple_of(8) {
                return Err(format!(
                    "header '{}': {bits} bits is not a whole number of bytes",
                    h.name
                ));
            }
            if self
                .header_index
                .insert(h.name.clone(), self.headers.len())
                .is_some()
            {
                return Err(format!("header '{}': defined twice", h.name));
            }
            self.headers.push(HeaderInfo {
                name: h.name.clone(),
                first_field,
                num_fields: self.fields.len() - first_field,
                bits,
                metadata: h.metadata,
                varbit,
                union: None,
            });
        }
        Ok(())
    }

    /// Lays out the fields of header `h`, of type `t`, after those before it;
    /// returns its width in bits and the index of its varbit field, if any.
    fn header_fields(
        &mut self,
        h: &json::Header,
        t: &json::HeaderType,
    ) -> Result<(u32, Option<usize>)> {
        let mut bits = 0u32;
        let mut varbit_field = None;
        for f in &t.fields {
            let name = f
                .first()
                .and_then(Value::as_str)
                .ok_or_else(|| format!("header_type '{}': field entry without a name", t.name))?;
            let width = match f.get(1) {
                Some(Value::Number(n)) => n.as_u64().unwrap_or(0) as u32,
                // Width 0 marks the varbit field; its bytes are kept apart.
                Some(Value::String(s)) if s == "*" => {
                    if varbit_field.replace(self.fields.len()).is_some() {
                        return Err(format!(
                            "header_type '{}': more than one varbit field",
                            t.name
                        ));
                    }
                    0
                }
                _ => {
                    return Err(format!(
                        "header_type '{}': field '{name}' has no bitwidth",
                        t.name
                    ))
                }
            };
            let is_varbit = varbit_field == Some(self.fields.len());
            if !is_varbit && width == 0 {
                return Err(format!("field '{}.{name}' has width 0", h.name));
            }
            let signed = f.get(2).and_then(Value::as_bool).unwrap_or(false);
            if width > MAX_FIELD_WIDTH {
                self.wide_field(&h.name, name, width);
            } else {
                self.field_index
                    .insert((h.name.clone(), name.to_owned()), self.fields.len());
                self.fields.push(FieldInfo {
                    name: format!("{}.{name}", h.name),
                    width,
                    signed,
                });
            }
            bits += width;
        }
        Ok((bits, varbit_field))
    }

    /// A field wider than `MAX_FIELD_WIDTH`, laid out as parts of at most
    /// that width, most significant bits first, as the packet holds them.
    fn wide_field(&mut self, header: &str, name: &str, width: u32) {
        self.wide_fields
            .insert((header.to_owned(), name.to_owned()), width);
        let mut left = width;
        while left > 0 {
            let part = left.min(MAX_FIELD_WIDTH);
            self.fields.push(FieldInfo {
                name: format!("{header}.{name}[{}:{}]", left - 1, left - part),
                width: part,
                signed: false,
            });
            left -= part;
        }
    }

    pub(super) fn stacks(&mut self, j: &Json) -> Result<()> {
        for s in &j.header_stacks {
            let what = format!("header_stack '{}'", s.name);
            let mut headers: Vec<usize> = Vec::new();
            for &id in &s.header_ids {
                let name = j
                    .headers
                    .get(id as usize)
                    .map(|h| h.name.as_str())
                    .ok_or_else(|| format!("{what}: unknown header id {id}"))?;
                let h = self.header(&Value::from(name), &what)?;
                if let Some(&first) = headers.first() {
                    let (a, b) = (&self.headers[h], &self.headers[first]);
                    if a.num_fields != b.num_fields || a.varbit.is_some() != b.varbit.is_some() {
                        return Err(format!("{what}: elements of different header types"));
                    }
                }
                headers.push(h);
            }
            self.stack_index.insert(s.name.clone(), self.stacks.len());
            self.stacks.push(StackInfo {
                name: s.name.clone(),
                headers,
            });
        }
        Ok(())
    }

    pub(super) fn stack(&self, v: &Value, what: &str) -> Result<usize> {
        let name = v.as_str().unwrap_or("");
        self.stack_index
            .get(name)
            .copied()
            .ok_or_else(|| format!("{what}: unknown header stack '{name}'"))
    }

    pub(super) fn header(&self, name: &Value, what: &str) -> Result<usize> {
        let name = name
            .as_str()
            .ok_or_else(|| format!("{what}: header name must be a string"))?;
        self.header_index
            .get(name)
            .copied()
            .ok_or_else(|| format!("{what}: unknown header '{name}'"))
    }

    /// A `[header, field]` pair. `$valid$` is returned as `Err(Ok(header))`
    /// through `field_or_valid`; here it is an error.
    pub(super) fn field(&self, v: &Value, what: &str) -> Result<usize> {
        match self.field_or_valid(v, what)? {
            KeySource::Field(f) => Ok(f),
            KeySource::Valid(_) => Err(format!("{what}: '$valid$' cannot be written")),
        }
    }

    pub(super) fn field_or_valid(&self, v: &Value, what: &str) -> Result<KeySource> {
        let pair = v.as_array().filter(|a| a.len() == 2);
        let (h, f) = match pair {
            Some(a) => (a[0].as_str(), a[1].as_str()),
            None => (None, None),
        };
        let (Some(h), Some(f)) = (h, f) else {
            return Err(format!(
                "{what}: field reference must be [header, field], got {v}"
            ));
        };
        if f == "$valid$" {
            return self.header(&Value::from(h), what).map(KeySource::Valid);
        }
        let key = (h.to_owned(), f.to_owned());
        if let Some(width) = self.wide_fields.get(&key) {
            return Err(format!(
                "{what}: field '{h}.{f}' is {width} bits wide; the switch reads fields of at \
                 most {MAX_FIELD_WIDTH} bits as values (a wider one only moves with its header)"
            ));
        }
        let field = self
            .field_index
            .get(&key)
            .copied()
            .ok_or_else(|| format!("{what}: unknown field '{h}.{f}'"))?;
        // A varbit field's bytes are not a field value: besides moving with
        // their header, they are only copied (assign_VL) and compared (==).
        if self.fields[field].width == 0 {
            return Err(format!(
                "{what}: varbit field '{h}.{f}' can only be extracted, emitted, copied \
                 with assign_VL and compared with == or !="
            ));
        }
        Ok(KeySource::Field(field))
    }

    pub(super) fn typed_field(&self, v: &Value, what: &str) -> Result<usize> {
        if type_of(v) != "field" {
            return Err(format!(
                "{what}: expected a field, got type '{}'",
                type_of(v)
            ));
        }
        self.field(&v["value"], what)
    }

    pub(super) fn typed_header(&self, v: &Value, what: &str) -> Result<usize> {
        if type_of(v) != "header" {
            return Err(format!(
                "{what}: expected a header, got type '{}'",
                type_of(v)
            ));
        }
        self.header(&v["value"], what)
    }
}

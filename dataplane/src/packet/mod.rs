//! Packets: the header vector (PHV) that holds parsed headers and metadata,
//! the parser that fills it from bytes and the deparser that writes it back.

mod bits;
pub mod deparser;
pub mod parser;

pub use bits::{read_bits, write_bits};

use crate::program::{width_mask, Program};

/// Header instances of one packet: a flat array of field values (every
/// header's fields, in program order) plus a validity bit per header.
/// Allocated once per packet thread and reset for each packet.
#[derive(Debug, Clone, Default)]
pub struct Phv {
    pub values: Vec<u128>,
    pub valid: Vec<bool>,
    /// Per header stack: index of the next element to extract or push.
    pub next: Vec<usize>,
}

impl Phv {
    pub fn new(prog: &Program) -> Self {
        let mut phv = Phv {
            values: vec![0; prog.fields.len()],
            valid: vec![false; prog.headers.len()],
            next: vec![0; prog.stacks.len()],
        };
        phv.reset(prog);
        phv
    }

    /// Zeroes every field; metadata is always valid, packet headers start
    /// invalid, as in BMv2.
    pub fn reset(&mut self, prog: &Program) {
        self.values.clear();
        self.values.resize(prog.fields.len(), 0);
        self.valid.clear();
        self.valid.extend(prog.headers.iter().map(|h| h.metadata));
        self.next.clear();
        self.next.resize(prog.stacks.len(), 0);
    }

    /// Copies header `src`'s fields and validity onto header `dst` (same type).
    pub fn copy_header(&mut self, prog: &Program, dst: usize, src: usize) {
        let (d, s) = (&prog.headers[dst], &prog.headers[src]);
        if d.num_fields == s.num_fields {
            self.values
                .copy_within(s.first_field..s.first_field + s.num_fields, d.first_field);
            self.valid[dst] = self.valid[src];
        }
    }

    pub fn get(&self, field: usize) -> u128 {
        self.values[field]
    }

    /// Stores `value` truncated to the field's width.
    pub fn set(&mut self, prog: &Program, field: usize, value: u128) {
        self.values[field] = value & width_mask(prog.fields[field].width);
    }

    pub fn set_opt(&mut self, prog: &Program, field: Option<usize>, value: u128) {
        if let Some(f) = field {
            self.set(prog, f, value);
        }
    }

    pub fn get_opt(&self, field: Option<usize>) -> u128 {
        field.map_or(0, |f| self.values[f])
    }
}

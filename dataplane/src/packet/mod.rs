//! Packets: the header vector (PHV) that holds parsed headers and metadata,
//! and the deparser that writes it back to bytes (the parser, which runs
//! the program's parse states, is part of the pipeline).

mod bits;
pub mod deparser;
mod header;

pub use bits::{read_bits, write_bits};
pub use header::{read_header, write_header};

use crate::program::{width_mask, Program};

/// Header instances of one packet: a flat array of field values (every
/// header's fields, in program order) plus a validity bit per header.
/// Allocated once per packet thread and reset for each packet.
#[derive(Debug, Default)]
pub struct Phv {
    pub values: Vec<u128>,
    pub valid: Vec<bool>,
    /// Per header stack: index of the next element to extract or push.
    pub next: Vec<usize>,
    /// The same per header union stack.
    pub union_next: Vec<usize>,
    /// Per varbit slot (`VarbitInfo::slot`): the field's bytes.
    pub var: Vec<Vec<u8>>,
}

/// By hand for `clone_from`: copying into a recycled PHV (the traffic
/// manager's, a clone's) reuses its allocations.
impl Clone for Phv {
    fn clone(&self) -> Self {
        Phv {
            values: self.values.clone(),
            valid: self.valid.clone(),
            next: self.next.clone(),
            union_next: self.union_next.clone(),
            var: self.var.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.values.clone_from(&source.values);
        self.valid.clone_from(&source.valid);
        self.next.clone_from(&source.next);
        self.union_next.clone_from(&source.union_next);
        self.var.clone_from(&source.var);
    }
}

impl Phv {
    pub fn new(prog: &Program) -> Self {
        let mut phv = Phv {
            values: vec![0; prog.fields.len()],
            valid: vec![false; prog.headers.len()],
            next: vec![0; prog.stacks.len()],
            union_next: vec![0; prog.union_stacks.len()],
            var: vec![Vec::new(); prog.num_varbits],
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
        self.union_next.clear();
        self.union_next.resize(prog.union_stacks.len(), 0);
        // Cleared, not dropped: the allocations serve the next packet.
        self.var.resize_with(prog.num_varbits, Vec::new);
        self.var.iter_mut().for_each(Vec::clear);
    }

    /// Copies header `src`'s fields and validity onto header `dst` (same type).
    pub fn copy_header(&mut self, prog: &Program, dst: usize, src: usize) {
        let (d, s) = (&prog.headers[dst], &prog.headers[src]);
        if d.num_fields == s.num_fields {
            self.values
                .copy_within(s.first_field..s.first_field + s.num_fields, d.first_field);
            if let (Some(dv), Some(sv)) = (d.varbit, s.varbit) {
                self.copy_varbit(dv.slot, sv.slot);
            }
            if self.valid[src] {
                self.make_valid(prog, dst);
            } else {
                self.valid[dst] = false;
            }
        }
    }

    /// Copies varbit slot `src` (bytes and length) onto slot `dst`, reusing
    /// `dst`'s allocation.
    pub fn copy_varbit(&mut self, dst: usize, src: usize) {
        let bytes = std::mem::take(&mut self.var[src]);
        self.var[dst].clone_from(&bytes);
        self.var[src] = bytes;
    }

    /// Marks header `h` valid. A union member invalidates the other members
    /// first: a union holds at most one valid header (P4_16 spec 8.20).
    pub fn make_valid(&mut self, prog: &Program, h: usize) {
        if let Some(u) = prog.headers[h].union {
            for &m in &prog.unions[u].headers {
                self.valid[m] = false;
            }
        }
        self.valid[h] = true;
    }

    /// Sets header `h` valid or invalid (setValid, setInvalid). BMv2 zeroes
    /// a header's fields when it becomes valid.
    pub fn set_validity(&mut self, prog: &Program, h: usize, on: bool) {
        let hi = &prog.headers[h];
        if on && !self.valid[h] {
            self.values[hi.first_field..hi.first_field + hi.num_fields].fill(0);
            if let Some(v) = hi.varbit {
                self.var[v.slot].clear();
            }
        }
        if on {
            self.make_valid(prog, h);
        } else {
            self.valid[h] = false;
        }
    }

    /// push_front (`push`) or pop_front of `count` elements on a header
    /// stack: the freed elements become invalid.
    pub fn shift_stack(&mut self, prog: &Program, stack: usize, count: usize, push: bool) {
        let hs = &prog.stacks[stack].headers;
        let (n, c) = (hs.len(), count.min(hs.len()));
        if push {
            for i in (c..n).rev() {
                self.copy_header(prog, hs[i], hs[i - c]);
            }
            for &h in &hs[..c] {
                self.valid[h] = false;
            }
            self.next[stack] = (self.next[stack] + c).min(n);
        } else {
            for i in 0..n - c {
                self.copy_header(prog, hs[i], hs[i + c]);
            }
            for &h in &hs[n - c..] {
                self.valid[h] = false;
            }
            self.next[stack] = self.next[stack].saturating_sub(c);
        }
    }

    /// A whole header stack (`assign_header_stack`): its elements, each with
    /// its validity, and its next index, as BMv2 copies them.
    pub fn copy_stack(&mut self, prog: &Program, dst: usize, src: usize) {
        let pairs = prog.stacks[dst].headers.iter();
        for (&d, &s) in pairs.zip(&prog.stacks[src].headers) {
            self.copy_header(prog, d, s);
        }
        self.next[dst] = self.next[src];
    }

    /// Copies union `src`'s members, each with its validity, onto union `dst`
    /// (same type).
    pub fn copy_union(&mut self, prog: &Program, dst: usize, src: usize) {
        let pairs = prog.unions[dst].headers.iter();
        for (&d, &s) in pairs.zip(&prog.unions[src].headers) {
            self.copy_header(prog, d, s);
        }
    }

    /// A whole header union stack (`assign_union_stack`): its elements and
    /// its next index, as BMv2 copies them.
    pub fn copy_union_stack(&mut self, prog: &Program, dst: usize, src: usize) {
        let pairs = prog.union_stacks[dst].unions.iter();
        for (&d, &s) in pairs.zip(&prog.union_stacks[src].unions) {
            self.copy_union(prog, d, s);
        }
        self.union_next[dst] = self.union_next[src];
    }

    /// push_front or pop_front on a header union stack: elements move whole
    /// (each member with its validity), the freed ones become invalid.
    pub fn shift_union_stack(&mut self, prog: &Program, stack: usize, count: usize, push: bool) {
        let us = &prog.union_stacks[stack].unions;
        let (n, c) = (us.len(), count.min(us.len()));
        let copy = |phv: &mut Phv, dst: usize, src: usize| phv.copy_union(prog, us[dst], us[src]);
        let freed = if push {
            for i in (c..n).rev() {
                copy(self, i, i - c);
            }
            self.union_next[stack] = (self.union_next[stack] + c).min(n);
            0..c
        } else {
            for i in 0..n - c {
                copy(self, i, i + c);
            }
            self.union_next[stack] = self.union_next[stack].saturating_sub(c);
            n - c..n
        };
        for &u in &us[freed] {
            for &h in &prog.unions[u].headers {
                self.valid[h] = false;
            }
        }
    }

    /// Bytes header `h` takes in the packet: its fixed fields plus its
    /// varbit field's current length.
    pub fn header_bytes(&self, prog: &Program, h: usize) -> usize {
        let hi = &prog.headers[h];
        hi.bits as usize / 8 + hi.varbit.map_or(0, |v| self.var[v.slot].len())
    }

    /// A union's isValid(): one of its members is valid.
    pub fn union_valid(&self, prog: &Program, u: usize) -> bool {
        prog.unions[u].headers.iter().any(|&m| self.valid[m])
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

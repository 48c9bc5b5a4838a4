//! Primitives on v1model's stateful externs: counters, meters, registers
//! and the random source; and `hash`.

use std::sync::atomic::Ordering;

use super::checksum;
use super::expr::eval;
use super::registers::{with_cells, HeldRegisters};
use super::Exec;
use crate::packet::Phv;
use crate::program::{width_mask, Primitive};
use crate::sync::lock;

impl Exec<'_> {
    /// Runs a primitive of this module's; `held` are the register locks of
    /// the action it belongs to.
    pub(super) fn run_extern(
        &mut self,
        phv: &mut Phv,
        params: &[u128],
        p: &Primitive,
        held: Option<&mut HeldRegisters<'_>>,
    ) {
        let prog = self.prog;
        let ev = |phv: &Phv, e| eval(prog, phv, params, e);
        match p {
            Primitive::Count { counter, index } => self.count(*counter, ev(phv, index)),
            Primitive::ExecuteMeter { meter, index, dst } => {
                // An index out of range leaves the color unchanged, as
                // BMv2 leaves it on its error path.
                if let Some(color) = self.execute_meter(*meter, ev(phv, index)) {
                    phv.set(prog, *dst, color);
                }
            }
            Primitive::RegisterRead {
                dst,
                register,
                index,
            } => {
                let v = self.register_read(held, *register, ev(phv, index));
                phv.set(prog, *dst, v);
            }
            Primitive::RegisterWrite {
                register,
                index,
                value,
            } => {
                let (i, v) = (ev(phv, index), ev(phv, value) as u128);
                self.register_write(held, *register, i, v);
            }
            Primitive::Random { dst, lo, hi } => {
                let v = self.random_between(ev(phv, lo), ev(phv, hi));
                phv.set(prog, *dst, v as u128);
            }
            Primitive::Hash {
                dst,
                base,
                calculation,
                max,
            } => {
                let h = checksum::compute(prog, *calculation, phv, &[], self.buf);
                let (base, max) = (ev(phv, base) as u128, ev(phv, max) as u128);
                let v = if max == 0 { h } else { h % max };
                phv.set(prog, *dst, base.wrapping_add(v));
            }
            _ => unreachable!("not an extern primitive: {p:?}"),
        }
    }

    /// `count`: one packet and its bytes at counter[index], if in range.
    pub(super) fn count(&self, counter: usize, index: i128) {
        if let Some((pk, by)) = usize::try_from(index)
            .ok()
            .and_then(|i| self.rt.counters[counter].get(i))
        {
            pk.fetch_add(1, Ordering::Relaxed);
            by.fetch_add(u64::from(self.packet_len), Ordering::Relaxed);
        }
    }

    /// `execute_meter`: the packet's color at meter[index]; None if the
    /// index is out of range.
    pub(super) fn execute_meter(&self, meter: usize, index: i128) -> Option<u128> {
        let amount = self.meter_amount(self.prog.meters[meter].unit);
        let m = usize::try_from(index)
            .ok()
            .and_then(|i| self.rt.meters[meter].get(i))?;
        Some(lock(m).execute(amount, self.now_ns))
    }

    /// `register.read`: 0 outside the array, as in BMv2.
    pub(super) fn register_read(
        &self,
        held: Option<&mut HeldRegisters<'_>>,
        register: usize,
        index: i128,
    ) -> u128 {
        let i = usize::try_from(index).ok();
        with_cells(self.rt, held, register, |cells| {
            i.and_then(|i| cells.get(i).copied()).unwrap_or(0)
        })
    }

    /// `register.write`, cut to the register's width; ignored outside the
    /// array.
    pub(super) fn register_write(
        &self,
        held: Option<&mut HeldRegisters<'_>>,
        register: usize,
        index: i128,
        value: u128,
    ) {
        let i = usize::try_from(index).ok();
        let v = value & width_mask(self.prog.registers[register].width);
        with_cells(self.rt, held, register, |cells| {
            if let Some(slot) = i.and_then(|i| cells.get_mut(i)) {
                *slot = v;
            }
        });
    }

    /// `random(lo, hi)`: uniform in [lo, hi]; lo when the range is empty.
    pub(super) fn random_between(&self, lo: i128, hi: i128) -> i128 {
        if hi <= lo {
            return lo;
        }
        let span = (hi.wrapping_sub(lo) as u128).wrapping_add(1).max(1);
        lo.wrapping_add((u128::from(self.rt.random()) % span) as i128)
    }
}

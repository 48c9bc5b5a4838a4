//! Primitives on v1model's stateful externs: counters, meters, registers
//! and the random source.

use std::sync::atomic::Ordering;

use super::registers::{with_cells, HeldRegisters};
use super::Exec;
use crate::program::width_mask;
use crate::sync::lock;

impl Exec<'_> {
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

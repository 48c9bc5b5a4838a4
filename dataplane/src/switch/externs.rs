//! Registers, counters and meters from the control plane, by BMv2 JSON name
//! (== P4Info name). They run under the state's read lock: the packet path
//! keeps running, and each cell is updated atomically or under its mutex.

use std::sync::atomic::Ordering;

use super::control_plane::bytes_value;
use super::{value_bytes, Loaded, Switch};
use crate::error::{ApiError, ApiResult};

use crate::pipeline::meter::MeterConfig;
use crate::pipeline::table::DirectState;
use crate::program::{width_mask, Program};
use crate::sync::{lock, read_lock};

fn not_found(kind: &str, name: &str) -> ApiError {
    ApiError::NotFound(format!("unknown {kind} '{name}'"))
}

fn check_index(kind: &str, name: &str, index: u64, size: usize) -> ApiResult<usize> {
    usize::try_from(index)
        .ok()
        .filter(|&i| i < size)
        .ok_or_else(|| {
            ApiError::Invalid(format!(
                "{kind} '{name}': index {index} out of range (size {size})"
            ))
        })
}

/// The array and index of a register cell, checked: KeyError for an
/// unknown name, ValueError for an index out of range.
pub(crate) fn register_cell(prog: &Program, name: &str, index: u64) -> ApiResult<(usize, usize)> {
    let r = prog
        .register_index(name)
        .ok_or_else(|| not_found("register", name))?;
    let i = check_index("register", name, index, prog.registers[r].size)?;
    Ok((r, i))
}

/// The array and index of an indexed (not direct) counter's cell, checked
/// as `register_cell` checks a register's.
pub(crate) fn counter_cell(prog: &Program, name: &str, index: u64) -> ApiResult<(usize, usize)> {
    let c = counter(prog, name)?;
    let i = check_index("counter", name, index, prog.counters[c].size)?;
    Ok((c, i))
}

fn counter(prog: &Program, name: &str) -> ApiResult<usize> {
    let c = prog
        .counter_index(name)
        .ok_or_else(|| not_found("counter", name))?;
    if prog.counters[c].direct {
        return Err(ApiError::Invalid(format!(
            "counter '{name}' is a direct counter: use direct_counter_read/write with its table"
        )));
    }
    Ok(c)
}

fn meter(prog: &Program, name: &str) -> ApiResult<usize> {
    let m = prog
        .meter_index(name)
        .ok_or_else(|| not_found("meter", name))?;
    if prog.meters[m].direct {
        return Err(ApiError::Invalid(format!(
            "meter '{name}' is a direct meter: use direct_meter_set with its table"
        )));
    }
    Ok(m)
}

fn meter_config(cir: u64, cburst: u64, pir: u64, pburst: u64) -> ApiResult<MeterConfig> {
    let c = MeterConfig {
        cir,
        cburst,
        pir,
        pburst,
    };
    c.check().map_err(ApiError::Invalid)?;
    Ok(c)
}

/// The direct state of an entry of a table that has the given resource.
fn direct<'a>(
    l: &'a Loaded,
    table: &str,
    handle: u64,
    wants_meter: bool,
) -> ApiResult<&'a DirectState> {
    let t = l
        .prog
        .table_index(table)
        .ok_or_else(|| not_found("table", table))?;
    let tab = &l.prog.tables[t];
    if wants_meter && tab.direct_meter.is_none() {
        return Err(ApiError::Invalid(format!(
            "table '{table}' has no direct meter"
        )));
    }
    if !wants_meter && !tab.with_counters {
        return Err(ApiError::Invalid(format!(
            "table '{table}' has no direct counter"
        )));
    }
    usize::try_from(handle)
        .ok()
        .and_then(|h| l.rt.tables[t].direct(h))
        .ok_or_else(|| ApiError::NotFound(format!("table '{table}': no entry {handle}")))
}

impl Switch {
    fn with_loaded<T>(&self, f: impl FnOnce(&Loaded) -> ApiResult<T>) -> ApiResult<T> {
        let state = read_lock(&self.state);
        let l = state
            .as_ref()
            .ok_or_else(|| ApiError::Invalid("no pipeline loaded".into()))?;
        f(l)
    }

    pub fn register_read(&self, name: &str, index: u64) -> ApiResult<Vec<u8>> {
        self.with_loaded(|l| {
            let (r, i) = register_cell(&l.prog, name, index)?;
            // The array's lock: atomic against an action that holds it.
            let cells = lock(&l.rt.registers[r]);
            Ok(value_bytes(cells[i], l.prog.registers[r].width))
        })
    }

    pub fn register_write(&self, name: &str, index: u64, value: &[u8]) -> ApiResult<()> {
        self.with_loaded(|l| {
            let (r, i) = register_cell(&l.prog, name, index)?;
            let width = l.prog.registers[r].width;
            let v = bytes_value(value, width) & width_mask(width);
            lock(&l.rt.registers[r])[i] = v;
            Ok(())
        })
    }

    /// (bytes, packets).
    pub fn counter_read(&self, name: &str, index: u64) -> ApiResult<(u64, u64)> {
        self.with_loaded(|l| {
            let c = counter(&l.prog, name)?;
            let i = check_index("counter", name, index, l.prog.counters[c].size)?;
            let (p, b) = &l.rt.counters[c][i];
            Ok((b.load(Ordering::Relaxed), p.load(Ordering::Relaxed)))
        })
    }

    pub fn counter_write(&self, name: &str, index: u64, bytes: u64, packets: u64) -> ApiResult<()> {
        self.with_loaded(|l| {
            let c = counter(&l.prog, name)?;
            let i = check_index("counter", name, index, l.prog.counters[c].size)?;
            let (p, b) = &l.rt.counters[c][i];
            b.store(bytes, Ordering::Relaxed);
            p.store(packets, Ordering::Relaxed);
            Ok(())
        })
    }

    /// Nanoseconds (switch clock) since a packet last hit a table entry, or
    /// since its insertion: what P4Runtime idle timeouts measure.
    pub fn table_entry_idle_ns(&self, table: &str, handle: u64) -> ApiResult<u64> {
        let now = self.clock.now_ns();
        self.with_loaded(|l| {
            let t = l
                .prog
                .table_index(table)
                .ok_or_else(|| not_found("table", table))?;
            if !l.prog.tables[t].support_timeout {
                return Err(ApiError::Invalid(format!(
                    "table '{table}' does not support idle timeouts"
                )));
            }
            let d = usize::try_from(handle)
                .ok()
                .and_then(|h| l.rt.tables[t].direct(h))
                .ok_or_else(|| ApiError::NotFound(format!("table '{table}': no entry {handle}")))?;
            Ok(now.saturating_sub(d.last_hit_ns.load(Ordering::Relaxed)))
        })
    }

    /// (bytes, packets) of a table entry's direct counter.
    pub fn direct_counter_read(&self, table: &str, handle: u64) -> ApiResult<(u64, u64)> {
        self.with_loaded(|l| {
            let d = direct(l, table, handle, false)?;
            Ok((
                d.bytes.load(Ordering::Relaxed),
                d.packets.load(Ordering::Relaxed),
            ))
        })
    }

    pub fn direct_counter_write(
        &self,
        table: &str,
        handle: u64,
        bytes: u64,
        packets: u64,
    ) -> ApiResult<()> {
        self.with_loaded(|l| {
            let d = direct(l, table, handle, false)?;
            d.bytes.store(bytes, Ordering::Relaxed);
            d.packets.store(packets, Ordering::Relaxed);
            Ok(())
        })
    }

    pub fn meter_set(
        &self,
        name: &str,
        index: u64,
        cir: u64,
        cburst: u64,
        pir: u64,
        pburst: u64,
    ) -> ApiResult<()> {
        let now = self.clock.now_ns();
        self.with_loaded(|l| {
            let m = meter(&l.prog, name)?;
            let i = check_index("meter", name, index, l.prog.meters[m].size)?;
            let c = meter_config(cir, cburst, pir, pburst)?;
            lock(&l.rt.meters[m][i]).set(c, now);
            Ok(())
        })
    }

    pub fn meter_reset(&self, name: &str, index: u64) -> ApiResult<()> {
        self.with_loaded(|l| {
            let m = meter(&l.prog, name)?;
            let i = check_index("meter", name, index, l.prog.meters[m].size)?;
            lock(&l.rt.meters[m][i]).reset();
            Ok(())
        })
    }

    /// (cir, cburst, pir, pburst), or None for a meter never configured.
    pub fn meter_get(&self, name: &str, index: u64) -> ApiResult<Option<MeterConfig>> {
        self.with_loaded(|l| {
            let m = meter(&l.prog, name)?;
            let i = check_index("meter", name, index, l.prog.meters[m].size)?;
            Ok(lock(&l.rt.meters[m][i]).config())
        })
    }

    pub fn direct_meter_set(
        &self,
        table: &str,
        handle: u64,
        cir: u64,
        cburst: u64,
        pir: u64,
        pburst: u64,
    ) -> ApiResult<()> {
        let now = self.clock.now_ns();
        self.with_loaded(|l| {
            let d = direct(l, table, handle, true)?;
            let c = meter_config(cir, cburst, pir, pburst)?;
            lock(&d.meter).set(c, now);
            Ok(())
        })
    }

    pub fn direct_meter_reset(&self, table: &str, handle: u64) -> ApiResult<()> {
        self.with_loaded(|l| {
            lock(&direct(l, table, handle, true)?.meter).reset();
            Ok(())
        })
    }

    /// The configuration of a table entry's direct meter, if set.
    pub fn direct_meter_get(&self, table: &str, handle: u64) -> ApiResult<Option<MeterConfig>> {
        self.with_loaded(|l| {
            let d = direct(l, table, handle, true)?;
            Ok(lock(&d.meter).config())
        })
    }
}

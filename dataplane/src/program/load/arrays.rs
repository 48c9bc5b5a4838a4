//! Register, counter and meter arrays: sized within bounds, and indexed by
//! name for the primitives and tables that use them.

use super::{Loader, Result};
use crate::program::json::Json;
use crate::program::{
    CounterArray, DirectMeter, MeterArray, MeterUnit, RegisterArray, MAX_FIELD_WIDTH,
};

/// Largest register or counter array we allocate; a bigger one is more
/// likely a bad JSON than a real program, and would exhaust memory.
const MAX_ARRAY_SIZE: u64 = 1 << 24;

impl Loader {
    pub(super) fn registers(&mut self, j: &Json) -> Result<Vec<RegisterArray>> {
        for (i, r) in j.register_arrays.iter().enumerate() {
            if r.bitwidth == 0 || r.bitwidth > MAX_FIELD_WIDTH {
                return Err(format!(
                    "register_array '{}': bitwidth {} not supported",
                    r.name, r.bitwidth
                ));
            }
            if r.size > MAX_ARRAY_SIZE {
                return Err(format!(
                    "register_array '{}': size {} exceeds {MAX_ARRAY_SIZE}",
                    r.name, r.size
                ));
            }
            self.registers.insert(r.name.clone(), i);
        }
        Ok(j.register_arrays
            .iter()
            .map(|r| RegisterArray {
                name: r.name.clone(),
                size: r.size as usize,
                width: r.bitwidth,
            })
            .collect())
    }

    pub(super) fn counters(&mut self, j: &Json) -> Result<Vec<CounterArray>> {
        for (i, c) in j.counter_arrays.iter().enumerate() {
            if c.size > MAX_ARRAY_SIZE {
                return Err(format!(
                    "counter_array '{}': size {} exceeds {MAX_ARRAY_SIZE}",
                    c.name, c.size
                ));
            }
            if c.is_direct {
                // `count` cannot name a direct counter; its table counts.
                continue;
            }
            self.counters.insert(c.name.clone(), i);
        }
        Ok(j.counter_arrays
            .iter()
            .map(|c| CounterArray {
                name: c.name.clone(),
                size: if c.is_direct { 0 } else { c.size as usize },
                direct: c.is_direct,
            })
            .collect())
    }

    /// Meter arrays; direct ones are also indexed by name with their
    /// result field, for the tables that name them.
    pub(super) fn meters(&mut self, j: &Json) -> Result<Vec<MeterArray>> {
        let mut out = Vec::new();
        for (i, m) in j.meter_arrays.iter().enumerate() {
            let what = format!("meter_array '{}'", m.name);
            if m.size > MAX_ARRAY_SIZE {
                return Err(format!("{what}: size {} exceeds {MAX_ARRAY_SIZE}", m.size));
            }
            if m.rate_count != 2 {
                return Err(format!(
                    "{what}: rate_count {} (only two-rate three-color meters exist in v1model)",
                    m.rate_count
                ));
            }
            let unit = match m.kind.as_str() {
                "packets" => MeterUnit::Packets,
                "bytes" => MeterUnit::Bytes,
                other => return Err(format!("{what}: type '{other}' is not supported")),
            };
            if m.is_direct {
                let (h, f) = m
                    .result_target
                    .as_ref()
                    .ok_or_else(|| format!("{what}: direct meter without result_target"))?;
                let result = self
                    .field_index
                    .get(&(h.clone(), f.clone()))
                    .copied()
                    .ok_or_else(|| format!("{what}: unknown result_target field '{h}.{f}'"))?;
                self.direct_meters
                    .insert(m.name.clone(), DirectMeter { meter: i, result });
            } else {
                self.meters.insert(m.name.clone(), i);
            }
            out.push(MeterArray {
                name: m.name.clone(),
                size: if m.is_direct { 0 } else { m.size as usize },
                unit,
                direct: m.is_direct,
            });
        }
        Ok(out)
    }
}

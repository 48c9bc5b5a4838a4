//! A queue's depth and register cells read at one instant, for tests and
//! the queue monitor: no packet enters or leaves the queue, and no action
//! writes the cells, between the reads.

use super::externs::register_cell;
use super::Switch;
use crate::error::{ApiError, ApiResult};
use crate::pipeline::DROP_PORT;
use crate::sync::{lock, read_lock};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueSnapshot {
    pub qdepth_pkts: u64,
    /// Each queued packet's length as ingress left it (what the queue's
    /// byte limit and rate count).
    pub qdepth_bytes: u64,
    /// The requested cells, in the order asked.
    pub registers: Vec<u128>,
    pub now_us: u64,
}

impl Switch {
    /// Holds the traffic manager's lock, so the queue cannot change, and
    /// while holding it reads the cells under their arrays' locks, taken in
    /// ascending array order as actions take them (lock order in the
    /// comment on `Switch::tm`).
    pub fn queue_snapshot(
        &self,
        port: u32,
        queue: usize,
        registers: &[(String, u64)],
    ) -> ApiResult<QueueSnapshot> {
        if port >= DROP_PORT as u32 {
            return Err(ApiError::Invalid(format!(
                "port {port} out of range (0..510)"
            )));
        }
        let state = read_lock(&self.state);
        let cells = match state.as_ref() {
            Some(l) => registers
                .iter()
                .map(|(name, index)| register_cell(&l.prog, name, *index))
                .collect::<ApiResult<Vec<_>>>()?,
            None if registers.is_empty() => Vec::new(),
            None => return Err(ApiError::Invalid("no pipeline loaded".into())),
        };
        let mut arrays: Vec<usize> = cells.iter().map(|&(r, _)| r).collect();
        arrays.sort_unstable();
        arrays.dedup();

        let tm = lock(&self.tm);
        let n = tm.priority_queues();
        if queue >= n {
            return Err(ApiError::Invalid(format!(
                "queue {queue} out of range: the switch has {n} queue(s) per port"
            )));
        }
        let (qdepth_pkts, qdepth_bytes) = tm
            .port_ref(port)
            .map_or((0, 0), |p| (p.queues[queue].len(), p.queues[queue].bytes()));
        let guards: Vec<_> = match state.as_ref() {
            Some(l) => arrays.iter().map(|&r| lock(&l.rt.registers[r])).collect(),
            None => Vec::new(),
        };
        let values = cells
            .iter()
            .map(|&(r, i)| guards[arrays.partition_point(|&a| a < r)][i])
            .collect();
        Ok(QueueSnapshot {
            qdepth_pkts: qdepth_pkts as u64,
            qdepth_bytes: qdepth_bytes as u64,
            registers: values,
            now_us: self.clock.now_us(),
        })
    }
}

//! In-memory ports: packets sent on them are queued for `take_output`.

use std::sync::Mutex;

use crate::sync::lock;

/// Packets kept until `take_output`: a caller that never drains (say, a CPU
/// port nobody reads) must not grow memory without bound.
pub const CAPACITY: usize = 1 << 16;

#[derive(Default)]
pub struct MemoryOutput {
    /// (port, packet, departure time in ns since start).
    packets: Mutex<Vec<(u32, Vec<u8>, u64)>>,
}

impl MemoryOutput {
    /// Queues a packet; false (and the packet is dropped) when full.
    pub fn push(&self, port: u32, data: &[u8], ns: u64) -> bool {
        let mut q = lock(&self.packets);
        if q.len() >= CAPACITY {
            return false;
        }
        q.push((port, data.to_vec(), ns));
        true
    }

    /// Removes and returns everything sent so far, in order.
    pub fn take(&self) -> Vec<(u32, Vec<u8>, u64)> {
        std::mem::take(&mut *lock(&self.packets))
    }
}

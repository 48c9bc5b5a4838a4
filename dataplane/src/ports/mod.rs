//! Switch ports: AF_PACKET sockets (a memory-mapped receive ring, batched
//! sends) on Linux interfaces, and in-memory ports whose output is collected for tests.

pub mod afpacket;
pub mod memory;
mod ring;
mod tx_batch;

use std::collections::HashMap;
use std::sync::Arc;

pub use afpacket::AfPacket;
pub use memory::MemoryOutput;

pub enum Port {
    Memory,
    Interface(Arc<AfPacket>),
}

#[derive(Default)]
pub struct Ports {
    pub by_number: HashMap<u32, Port>,
}

impl Ports {
    pub fn interfaces(&self) -> Vec<(u32, Arc<AfPacket>)> {
        self.by_number
            .iter()
            .filter_map(|(&n, p)| match p {
                Port::Interface(s) => Some((n, Arc::clone(s))),
                Port::Memory => None,
            })
            .collect()
    }
}

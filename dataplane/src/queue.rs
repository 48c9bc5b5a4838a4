//! Queues between ingress and egress: for now one FIFO per egress port with
//! BMv2's default depth of 64 packets (the traffic manager will replace it).
//! Queued packets and their buffers are recycled, so a steady flow of
//! packets does not allocate.

use std::collections::{HashMap, VecDeque};

use crate::packet::Phv;

pub const DEFAULT_DEPTH: usize = 64;

#[derive(Default)]
pub struct Queued {
    pub phv: Phv,
    pub payload: Vec<u8>,
    pub port: u32,
    pub enq_us: u64,
    /// Packets in the queue before this one was added.
    pub enq_qdepth: usize,
}

pub struct Queues {
    ports: HashMap<u32, VecDeque<Queued>>,
    pool: Vec<Queued>,
    depth: usize,
}

impl Default for Queues {
    fn default() -> Self {
        Queues {
            ports: HashMap::new(),
            pool: Vec::new(),
            depth: DEFAULT_DEPTH,
        }
    }
}

impl Queues {
    /// Copies the packet into the port's FIFO; false if the queue is full.
    pub fn enqueue(&mut self, port: u32, phv: &Phv, payload: &[u8], now_us: u64) -> bool {
        let q = self.ports.entry(port).or_default();
        if q.len() >= self.depth {
            return false;
        }
        let mut item = self.pool.pop().unwrap_or_default();
        item.phv.clone_from(phv);
        item.payload.clear();
        item.payload.extend_from_slice(payload);
        item.port = port;
        item.enq_us = now_us;
        item.enq_qdepth = q.len();
        q.push_back(item);
        true
    }

    /// Takes the next packet from some non-empty queue, with the number of
    /// packets left behind it in that queue.
    pub fn dequeue(&mut self) -> Option<(Queued, usize)> {
        self.ports
            .values_mut()
            .find_map(|q| q.pop_front().map(|item| (item, q.len())))
    }

    pub fn recycle(&mut self, item: Queued) {
        self.pool.push(item);
    }

    /// Drops everything (a new program changes the PHV layout).
    pub fn clear(&mut self) {
        self.ports.clear();
        self.pool.clear();
    }
}

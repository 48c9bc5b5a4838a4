//! One egress queue: a FIFO whose packets get their times when they are
//! enqueued, as in BMv2. A packet is dequeued (and egress runs) when the
//! link is free: dequeue = max(now, end of the previous transmission); it
//! leaves the port one service time later (1/rate_pps or 8*len/rate_bps),
//! so departures follow max(now, previous departure) + service time. A
//! packet counts in the queue's depth until it is dequeued, so a packet
//! being transmitted is no longer in the queue, as in BMv2.

use std::collections::VecDeque;

use super::counts::PeriodCounts;
use crate::packet::Phv;

/// BMv2's default queue depth, in packets.
pub const DEFAULT_DEPTH_PKTS: usize = 64;

const PS_PER_S: f64 = 1e12;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rate {
    Unlimited,
    /// Packets per second (BMv2's `set_queue_rate`).
    Pps(f64),
    /// Bits per second of packet bytes.
    Bps(u64),
}

impl Rate {
    /// Time to send a packet of `len` bytes, in picoseconds: fine enough
    /// that rounding never accumulates to a microsecond over a run.
    pub fn service_ps(self, len: usize) -> u64 {
        match self {
            Rate::Unlimited => 0,
            Rate::Pps(r) => (PS_PER_S / r) as u64,
            Rate::Bps(r) => {
                let ps = (len as u128 * 8 * 1_000_000_000_000) / u128::from(r.max(1));
                u64::try_from(ps).unwrap_or(u64::MAX)
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct QueueConfig {
    pub rate: Rate,
    pub depth_pkts: Option<usize>,
    pub depth_bytes: Option<usize>,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            rate: Rate::Unlimited,
            depth_pkts: Some(DEFAULT_DEPTH_PKTS),
            depth_bytes: None,
        }
    }
}

/// A packet between ingress and egress, with what egress will see of the
/// queue.
#[derive(Default)]
pub struct Queued {
    pub phv: Phv,
    pub payload: Vec<u8>,
    pub port: u32,
    pub qid: usize,
    /// Bytes counted against the queue and the rate.
    pub len: usize,
    pub enq_ns: u64,
    /// Packets in the queue before this one was added (BMv2's enq_qdepth).
    pub enq_qdepth: usize,
    /// When it is dequeued (egress runs), in ps since start.
    pub dequeue_ps: u64,
    /// When its transmission ends: it leaves the port then.
    pub depart_ps: u64,
    /// Program generation the PHV was laid out for.
    pub generation: u64,
    /// Earlier passes through ingress (resubmit, recirculate).
    pub passes: u8,
    /// truncate(): the packet leaves with at most this many bytes.
    pub truncate: Option<u32>,
}

#[derive(Default)]
pub struct Queue {
    pub config: QueueConfig,
    items: VecDeque<Queued>,
    bytes: usize,
    /// End of the last transmission scheduled.
    last_depart_ps: u64,
    pub drops: u64,
    /// Arrivals, departures, drops and sojourns since the queue monitor
    /// last took them.
    pub counts: PeriodCounts,
}

impl Queue {
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Bytes queued: each packet's length as ingress left it.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether a packet of `len` bytes fits; a full queue drops the arrival.
    pub fn admits(&self, len: usize) -> bool {
        self.config.depth_pkts.is_none_or(|d| self.items.len() < d)
            && self
                .config
                .depth_bytes
                .is_none_or(|d| self.bytes + len <= d)
    }

    /// Adds a packet whose fields are already filled except the queue's:
    /// sets enq_qdepth and the departure time.
    pub fn push(&mut self, mut item: Queued, now_ns: u64) {
        let now_ps = now_ns.saturating_mul(1000);
        item.dequeue_ps = self.last_depart_ps.max(now_ps);
        item.depart_ps = item
            .dequeue_ps
            .saturating_add(self.config.rate.service_ps(item.len));
        self.last_depart_ps = item.depart_ps;
        item.enq_ns = now_ns;
        item.enq_qdepth = self.items.len();
        self.bytes += item.len;
        self.items.push_back(item);
    }

    pub fn head_dequeue_ps(&self) -> Option<u64> {
        self.items.front().map(|i| i.dequeue_ps)
    }

    /// Removes the head; returns it with the packets left (deq_qdepth).
    pub fn pop(&mut self) -> Option<(Queued, usize)> {
        let item = self.items.pop_front()?;
        self.bytes -= item.len;
        Some((item, self.items.len()))
    }

    /// Drops every packet (a new program changes the PHV layout) and
    /// forgets the departure schedule.
    pub fn clear(&mut self) {
        self.bytes = 0;
        self.last_depart_ps = 0;
        self.items.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(len: usize) -> Queued {
        Queued {
            len,
            ..Queued::default()
        }
    }

    #[test]
    fn departures_follow_the_rate_from_a_burst() {
        let mut q = Queue {
            config: QueueConfig {
                rate: Rate::Bps(10_000_000),
                ..QueueConfig::default()
            },
            ..Queue::default()
        };
        for _ in 0..3 {
            q.push(packet(1500), 0);
        }
        let times: Vec<(u64, u64)> = (0..3)
            .map(|_| q.pop().map_or((0, 0), |(p, _)| (p.dequeue_ps, p.depart_ps)))
            .collect();
        assert_eq!(
            times,
            vec![
                (0, 1_200_000_000),
                (1_200_000_000, 2_400_000_000),
                (2_400_000_000, 3_600_000_000)
            ]
        );
    }

    #[test]
    fn depth_in_packets_and_bytes() {
        let mut q = Queue {
            config: QueueConfig {
                rate: Rate::Pps(1.0),
                depth_pkts: Some(2),
                depth_bytes: Some(250),
            },
            ..Queue::default()
        };
        assert!(q.admits(100));
        q.push(packet(100), 0);
        assert!(q.admits(150));
        assert!(!q.admits(151));
        q.push(packet(100), 0);
        assert!(!q.admits(1));
        assert_eq!(q.pop().map(|(_, left)| left), Some(1));
    }
}

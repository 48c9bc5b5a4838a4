//! The traffic manager between ingress and egress: per egress port, one
//! queue or N priority queues (standard_metadata.priority picks, the highest
//! queue goes first), with per-port and per-queue counters (and the queue
//! monitor's per-period counts, `counts.rs`). It only keeps
//! packets and decides who departs when; the switch runs egress at each
//! departure (switch/egress.rs, and the event loop in real time).

pub mod counts;
pub mod queue;

use std::collections::HashMap;

use crate::packet::Phv;
pub use counts::PeriodCounts;
use queue::Queue;
pub use queue::{QueueConfig, Queued, Rate};

#[derive(Default)]
pub struct PortTm {
    pub queues: Vec<Queue>,
    /// The link's rate (`set_link`), shared by all the port's queues: a
    /// packet is dequeued only once the previous one is sent, so priority
    /// queues compete for it, highest first.
    pub line_rate: Option<Rate>,
    /// When the line finishes sending the last dequeued packet, in ps.
    line_free_ps: u64,
    pub rx_packets: u64,
    pub tx_packets: u64,
    pub tm_drops: u64,
}

pub struct TrafficManager {
    priority_queues: usize,
    ports: HashMap<u32, PortTm>,
    /// Queued packets and their buffers are recycled, so a steady flow does
    /// not allocate.
    pool: Vec<Queued>,
}

/// What enqueue needs to know of a packet besides its PHV and payload.
pub struct Arrival<'a> {
    pub port: u32,
    pub priority: u128,
    pub len: usize,
    pub phv: &'a Phv,
    pub payload: &'a [u8],
    pub generation: u64,
    pub passes: u8,
    pub truncate: Option<u32>,
}

impl PortTm {
    /// When the head of queue `qid` may be dequeued: its own time, and not
    /// before the line is free.
    fn head_due_ps(&self, qid: usize) -> Option<u64> {
        let d = self.queues.get(qid)?.head_dequeue_ps()?;
        Some(match self.line_rate {
            Some(_) => d.max(self.line_free_ps),
            None => d,
        })
    }
}

impl TrafficManager {
    pub fn new(priority_queues: usize) -> Self {
        TrafficManager {
            priority_queues: priority_queues.max(1),
            ports: HashMap::new(),
            pool: Vec::new(),
        }
    }

    pub fn priority_queues(&self) -> usize {
        self.priority_queues
    }

    pub fn port(&mut self, port: u32) -> &mut PortTm {
        let n = self.priority_queues;
        self.ports.entry(port).or_insert_with(|| PortTm {
            queues: (0..n).map(|_| Queue::default()).collect(),
            ..PortTm::default()
        })
    }

    pub fn port_ref(&self, port: u32) -> Option<&PortTm> {
        self.ports.get(&port)
    }

    /// Queues a copy of the packet; false if its queue is full (the
    /// arrival is dropped and counted).
    pub fn enqueue(&mut self, a: &Arrival<'_>, now_ns: u64) -> bool {
        // Priorities beyond the last queue go to the highest one.
        let qid = usize::try_from(a.priority)
            .unwrap_or(usize::MAX)
            .min(self.priority_queues - 1);
        let mut item = self.pool.pop().unwrap_or_default();
        let p = self.port(a.port);
        let q = &mut p.queues[qid];
        if !q.admits(a.len) {
            q.drops += 1;
            q.counts.drops += 1;
            p.tm_drops += 1;
            self.pool.push(item);
            return false;
        }
        item.phv.clone_from(a.phv);
        item.payload.clear();
        item.payload.extend_from_slice(a.payload);
        item.port = a.port;
        item.qid = qid;
        item.len = a.len;
        item.generation = a.generation;
        item.passes = a.passes;
        item.truncate = a.truncate;
        q.push(item, now_ns);
        q.counts.arrivals += 1;
        true
    }

    /// Earliest dequeue of any queued packet, in ns (rounded up, so a
    /// packet is due at that time).
    pub fn next_dequeue_ns(&self) -> Option<u64> {
        self.ports
            .values()
            .flat_map(|p| (0..p.queues.len()).filter_map(|qid| p.head_due_ps(qid)))
            .min()
            .map(|ps| ps.div_ceil(1000))
    }

    /// Takes the next packet due at `now_ns`: the highest priority queue
    /// first, then the earliest dequeue time. Returns it with deq_qdepth.
    pub fn pop_due(&mut self, now_ns: u64) -> Option<(Queued, usize)> {
        let now_ps = now_ns.saturating_mul(1000);
        let (port, qid) = self
            .ports
            .iter()
            .flat_map(|(&port, p)| {
                (0..p.queues.len()).filter_map(move |qid| {
                    p.head_due_ps(qid)
                        .filter(|&d| d <= now_ps)
                        .map(|d| (std::cmp::Reverse(qid), d, port))
                })
            })
            .min()
            .map(|(std::cmp::Reverse(qid), _, port)| (port, qid))?;
        let p = self.ports.get_mut(&port)?;
        let q = &mut p.queues[qid];
        let (mut item, left) = q.pop()?;
        // The sojourn as egress computes deq_timedelta.
        q.counts
            .departed(now_ns / 1000 - item.enq_ns.min(now_ns) / 1000);
        if let Some(rate) = p.line_rate {
            // The line sets the times: dequeued when it is free, sent one
            // line service time later. A queue slower than the line (a CBQ
            // class) only spaces its dequeues; its packet holds the line for
            // the line's time, not its queue's.
            item.dequeue_ps = item.dequeue_ps.max(p.line_free_ps);
            item.depart_ps = item.dequeue_ps.saturating_add(rate.service_ps(item.len));
            p.line_free_ps = item.depart_ps;
        }
        Some((item, left))
    }

    /// Takes (and resets) one queue's counts since the last take; an
    /// unknown port or queue has none.
    pub fn take_counts(&mut self, port: u32, qid: usize) -> PeriodCounts {
        self.ports
            .get_mut(&port)
            .and_then(|p| p.queues.get_mut(qid))
            .map_or_else(PeriodCounts::default, |q| std::mem::take(&mut q.counts))
    }

    pub fn recycle(&mut self, item: Queued) {
        self.pool.push(item);
    }

    /// Drops every queued packet (a new program changes the PHV layout);
    /// configurations and counters stay.
    pub fn clear(&mut self) {
        for p in self.ports.values_mut() {
            p.line_free_ps = 0;
            for q in &mut p.queues {
                q.clear();
            }
        }
        self.pool.clear();
    }

    /// Applies `f` to one queue of a port, or to all of them.
    pub fn configure(
        &mut self,
        port: u32,
        queue: Option<usize>,
        f: impl Fn(&mut QueueConfig),
    ) -> Result<(), String> {
        let n = self.priority_queues;
        if let Some(q) = queue {
            if q >= n {
                return Err(format!(
                    "queue {q} out of range: the switch has {n} queue(s) per port"
                ));
            }
        }
        for (i, q) in self.port(port).queues.iter_mut().enumerate() {
            if queue.is_none_or(|want| want == i) {
                f(&mut q.config);
            }
        }
        Ok(())
    }
}

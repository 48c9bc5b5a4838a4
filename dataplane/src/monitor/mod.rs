//! The queue monitor: at a fixed period (1 ms and up) it records, for
//! every monitored (port, queue), the traffic manager's depth and what
//! happened since the previous record (arrivals, departures, drops, the
//! departed packets' sojourn), plus chosen register cells and counter
//! deltas, as one fixed-size record of u64s in a bounded ring.
//!
//! Here: what a sample reads (`Targets`), the sample grid and the record
//! being filled (`Sampler`), and the state the switch keeps (`Monitor`).
//! `layout.rs` names the fields; `ring.rs` holds the records. The switch
//! takes the samples (src/switch/monitor.rs): under the traffic manager's
//! lock and the register arrays' locks, from `advance_time` in virtual time
//! and from the event loop in real time. The packet path only bumps
//! the per-queue counts (src/tm/counts.rs).

pub mod layout;
pub mod ring;

use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

use crate::tm::PeriodCounts;
use layout::{Layout, QUEUE_FIELDS};
use ring::Ring;

/// The shortest period: a sample costs locks the packet path also takes.
pub const MIN_PERIOD_US: u64 = 1000;
/// Registers are recorded as u64s.
pub const MAX_REGISTER_WIDTH: u32 = 64;

/// The switch's monitor state. Lock order: `sampler`, then the traffic
/// manager and the register arrays (while sampling), then `ring`; readers
/// of the records take only `ring`, so they never wait for a sample's
/// locks, and the packet path takes neither.
pub struct Monitor {
    pub sampler: Mutex<Option<Sampler>>,
    pub ring: Mutex<Ring>,
    /// The next sample instant on the switch clock (ns); `u64::MAX` when
    /// no monitor runs. Read without a lock by the loops that move time.
    pub next_ns: AtomicU64,
}

impl Default for Monitor {
    fn default() -> Self {
        Monitor {
            sampler: Mutex::new(None),
            ring: Mutex::new(Ring::default()),
            next_ns: AtomicU64::new(u64::MAX),
        }
    }
}

/// What a sample reads, resolved against the loaded program.
#[derive(Debug, Clone, Default)]
pub struct Targets {
    /// (port, queue), in record order.
    pub queues: Vec<(u32, usize)>,
    /// `same_as[i]`: an earlier entry naming the same queue, whose fields
    /// entry `i` copies (a queue's counts are taken once per sample).
    pub same_as: Vec<Option<usize>>,
    /// (register array, index), in record order.
    pub cells: Vec<(usize, usize)>,
    /// The arrays of `cells`, ascending and distinct: the locks to take.
    pub arrays: Vec<usize>,
    /// (counter array, index), in record order.
    pub counters: Vec<(usize, usize)>,
}

impl Targets {
    pub fn new(
        queues: Vec<(u32, usize)>,
        cells: Vec<(usize, usize)>,
        counters: Vec<(usize, usize)>,
    ) -> Self {
        let same_as = (0..queues.len())
            .map(|i| queues[..i].iter().position(|q| *q == queues[i]))
            .collect();
        let mut arrays: Vec<usize> = cells.iter().map(|&(r, _)| r).collect();
        arrays.sort_unstable();
        arrays.dedup();
        Targets {
            queues,
            same_as,
            cells,
            arrays,
            counters,
        }
    }

    /// Whether the monitor reads the program's registers or counters (a
    /// new program may not have them).
    pub fn names_program_objects(&self) -> bool {
        !self.cells.is_empty() || !self.counters.is_empty()
    }

    pub fn layout(&self) -> Layout {
        Layout {
            queues: self.queues.len(),
            registers: self.cells.len(),
            counters: self.counters.len(),
        }
    }
}

/// A running monitor: its grid, what it reads, and the record being
/// filled (reused, so a sample allocates nothing for it).
pub struct Sampler {
    pub targets: Targets,
    layout: Layout,
    t0_ns: u64,
    period_ns: u64,
    /// The grid point the next sample is for.
    next_k: u64,
    /// Counter values at the previous record: (packets, bytes).
    prev_counters: Vec<(u64, u64)>,
    record: Vec<u64>,
}

impl Sampler {
    /// A monitor whose grid starts at `t0_ns`; `counters_now` are the
    /// counters' values at start, so the first deltas are since then.
    pub fn new(
        targets: Targets,
        t0_ns: u64,
        period_ns: u64,
        counters_now: Vec<(u64, u64)>,
    ) -> Self {
        let layout = targets.layout();
        Sampler {
            targets,
            layout,
            t0_ns,
            period_ns: period_ns.max(1),
            next_k: 0,
            prev_counters: counters_now,
            record: vec![0; layout.fields()],
        }
    }

    /// Grid point `k`'s instant: t0 + k * period.
    pub fn instant_ns(&self, k: u64) -> u64 {
        self.t0_ns.saturating_add(k.saturating_mul(self.period_ns))
    }

    pub fn next_instant_ns(&self) -> u64 {
        self.instant_ns(self.next_k)
    }

    /// For a sample taken at `now_ns`: the grid point it stands for (the
    /// last one at or before now, and never one already recorded) and how
    /// many grid points before it got no sample. The next sample is for the
    /// grid point after it.
    pub fn claim(&mut self, now_ns: u64) -> (u64, u64) {
        let k = (now_ns.saturating_sub(self.t0_ns) / self.period_ns).max(self.next_k);
        let missed = k - self.next_k;
        self.next_k = k + 1;
        (k, missed)
    }

    pub fn put_header(&mut self, k: u64, time_us: u64, realtime_ns: u64) {
        self.record[..3].copy_from_slice(&[k, time_us, realtime_ns]);
    }

    /// Queue `i`'s fields: its depth now and its counts since the last take.
    pub fn put_queue(&mut self, i: usize, qdepth_pkts: u64, qdepth_bytes: u64, c: PeriodCounts) {
        let at = self.layout.queue(i);
        self.record[at..at + QUEUE_FIELDS.len()].copy_from_slice(&[
            qdepth_pkts,
            qdepth_bytes,
            c.arrivals,
            c.departures,
            c.drops,
            c.sojourn_max_us,
            c.sojourn_sum_us,
        ]);
    }

    /// Queue `i`'s fields are queue `from`'s (the same queue named twice).
    pub fn copy_queue(&mut self, i: usize, from: usize) {
        let (at, src) = (self.layout.queue(i), self.layout.queue(from));
        self.record.copy_within(src..src + QUEUE_FIELDS.len(), at);
    }

    pub fn put_register(&mut self, j: usize, value: u64) {
        let at = self.layout.register(j);
        self.record[at] = value;
    }

    /// Counter cell `k` reads (packets, bytes) now: records the deltas
    /// since the previous record (modulo 2^64, so a counter_write between
    /// records keeps the deltas summing to the counter's change).
    pub fn put_counter(&mut self, k: usize, now: (u64, u64)) {
        let at = self.layout.counter(k);
        let prev = std::mem::replace(&mut self.prev_counters[k], now);
        self.record[at] = now.0.wrapping_sub(prev.0);
        self.record[at + 1] = now.1.wrapping_sub(prev.1);
    }

    pub fn record(&self) -> &[u64] {
        &self.record
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sampler(counters: usize) -> Sampler {
        let targets = Targets::new(
            vec![(1, 0), (2, 0), (1, 0)],
            vec![(3, 0), (1, 5), (3, 2)],
            (0..counters).map(|i| (0, i)).collect(),
        );
        Sampler::new(targets, 5_000, 3_000_000, vec![(10, 1000); counters])
    }

    #[test]
    fn samples_on_time_claim_consecutive_grid_points() {
        let mut s = sampler(0);
        assert_eq!(s.next_instant_ns(), 5_000);
        assert_eq!(s.claim(5_000), (0, 0));
        assert_eq!(s.next_instant_ns(), 3_005_000);
        assert_eq!(s.claim(3_005_000), (1, 0));
        // Late, but by less than a period: still grid point 2.
        assert_eq!(s.claim(6_005_000 + 2_999_999), (2, 0));
    }

    #[test]
    fn a_late_sample_stands_for_its_grid_point_and_counts_the_skipped() {
        let mut s = sampler(0);
        assert_eq!(s.claim(5_000), (0, 0));
        // 3.5 periods after t0: grid points 1 and 2 were missed.
        assert_eq!(s.claim(5_000 + 10_500_000), (3, 2));
        assert_eq!(s.next_instant_ns(), 5_000 + 12_000_000);
        // Never a grid point twice, even if asked early.
        assert_eq!(s.claim(0), (4, 0));
    }

    #[test]
    fn a_queue_named_twice_is_taken_once_and_copied() {
        let s = sampler(0);
        assert_eq!(s.targets.same_as, [None, None, Some(0)]);
        assert_eq!(s.targets.arrays, [1, 3]);
        let mut s = s;
        let c = PeriodCounts {
            arrivals: 4,
            departures: 3,
            drops: 1,
            sojourn_max_us: 9,
            sojourn_sum_us: 20,
        };
        s.put_queue(0, 2, 300, c);
        s.copy_queue(2, 0);
        let l = s.layout;
        assert_eq!(s.record()[l.queue(2)..l.queue(3)], [2, 300, 4, 3, 1, 9, 20]);
    }

    #[test]
    fn counters_record_deltas_since_the_previous_record() {
        let mut s = sampler(2);
        s.put_counter(1, (15, 1600));
        let at = s.layout.counter(1);
        assert_eq!(s.record()[at..at + 2], [5, 600]);
        s.put_counter(1, (15, 1600));
        assert_eq!(s.record()[at..at + 2], [0, 0]);
        // Written lower in between: the delta wraps, so deltas still sum
        // to the change.
        s.put_counter(1, (14, 1600));
        assert_eq!(s.record()[at], u64::MAX);
        s.put_register(2, 77);
        s.put_header(7, 21_005, 1);
        assert_eq!(s.record()[s.layout.register(2)], 77);
        assert_eq!(s.record()[..3], [7, 21_005, 1]);
    }
}

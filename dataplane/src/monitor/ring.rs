//! The monitor's bounded ring of records, with its counts. Records are
//! kept back to back as u64s; a full ring refuses the new record and counts
//! an overrun, so what a reader takes is always a run of consecutive
//! samples from the oldest kept.

use std::collections::VecDeque;

/// What `monitor_stats` reports.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RingStats {
    /// Samples taken (kept or overrun).
    pub records: u64,
    /// Samples dropped because the ring was full.
    pub overruns: u64,
    /// Grid points with no sample: the sampler was late by a whole period
    /// or more.
    pub missed: u64,
    pub capacity: u64,
}

#[derive(Debug, Default)]
pub struct Ring {
    /// Fields per record.
    record_len: usize,
    capacity: usize,
    data: VecDeque<u64>,
    stats: RingStats,
}

impl Ring {
    /// A ring of `capacity` records of `record_len` fields each (both at
    /// least 1). Memory grows with use, up to the capacity.
    pub fn new(record_len: usize, capacity: usize) -> Self {
        Ring {
            record_len: record_len.max(1),
            capacity: capacity.max(1),
            data: VecDeque::new(),
            stats: RingStats {
                capacity: capacity as u64,
                ..RingStats::default()
            },
        }
    }

    /// Records held.
    pub fn len(&self) -> usize {
        self.data.len() / self.record_len
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Adds one record (exactly `record_len` fields); false, and an
    /// overrun counted, if the ring is full.
    pub fn push(&mut self, record: &[u64]) -> bool {
        debug_assert_eq!(record.len(), self.record_len);
        self.stats.records += 1;
        if self.len() >= self.capacity {
            self.stats.overruns += 1;
            return false;
        }
        self.data.extend(record);
        true
    }

    /// Counts grid points the sampler skipped.
    pub fn add_missed(&mut self, n: u64) {
        self.stats.missed += n;
    }

    /// Removes the oldest `max_records` records (all if 0) and returns them
    /// packed as little-endian u64s.
    pub fn take(&mut self, max_records: usize) -> Vec<u8> {
        let n = match max_records {
            0 => self.len(),
            m => m.min(self.len()),
        };
        let mut out = Vec::with_capacity(n * self.record_len * 8);
        for v in self.data.drain(..n * self.record_len) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    pub fn stats(&self) -> RingStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unpack(b: &[u8]) -> Vec<u64> {
        b.chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect()
    }

    #[test]
    fn a_full_ring_keeps_the_oldest_and_counts_overruns() {
        let mut r = Ring::new(2, 3);
        for k in 0..5u64 {
            assert_eq!(r.push(&[k, 10 * k]), k < 3);
        }
        let s = r.stats();
        assert_eq!((s.records, s.overruns, s.capacity), (5, 2, 3));
        assert_eq!(unpack(&r.take(0)), [0, 0, 1, 10, 2, 20]);
        assert!(r.is_empty());
        // Room again: the next record is kept.
        assert!(r.push(&[5, 50]));
        assert_eq!(r.stats().overruns, 2);
    }

    #[test]
    fn take_returns_the_oldest_first_and_at_most_what_is_asked() {
        let mut r = Ring::new(1, 10);
        for k in 0..4u64 {
            r.push(&[k]);
        }
        assert_eq!(unpack(&r.take(3)), [0, 1, 2]);
        r.push(&[4]);
        assert_eq!(unpack(&r.take(5)), [3, 4]);
        assert!(r.take(0).is_empty());
    }

    #[test]
    fn records_are_little_endian_u64s_back_to_back() {
        let mut r = Ring::new(2, 4);
        r.push(&[1, 0x0102_0304_0506_0708]);
        assert_eq!(r.take(0), [1, 0, 0, 0, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1]);
        r.add_missed(3);
        assert_eq!(r.stats().missed, 3);
    }
}

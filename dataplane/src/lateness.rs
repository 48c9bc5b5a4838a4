//! How late the emulation hands packets to their ports: a fixed-size
//! log-linear histogram (HDR-style) of lateness in ns. Below `EXACT` every
//! value has its own bucket; above, each power of two is split into `EXACT`
//! buckets, so a bucket's bound is within 1/EXACT (1.6 %) of any value in
//! it. Recording is three relaxed atomic operations: no lock and no
//! allocation on the packet path. The maximum is kept exactly.

use std::sync::atomic::{AtomicU64, Ordering};

/// Sub-buckets per power of two (2^SUB_BITS): the relative resolution.
const SUB_BITS: u32 = 6;
const EXACT: u64 = 1 << SUB_BITS;
/// Values from 2^TOP_BITS ns (about 17 s) on share the last bucket.
const TOP_BITS: u32 = 34;
/// The exact buckets, `EXACT` per power of two up to TOP_BITS, and the last.
pub const BUCKETS: usize = (((TOP_BITS - SUB_BITS + 1) as usize) << SUB_BITS) + 1;

/// The bucket of a lateness in ns.
fn bucket_of(lateness_ns: u64) -> usize {
    if lateness_ns < EXACT {
        return lateness_ns as usize;
    }
    if lateness_ns >= 1 << TOP_BITS {
        return BUCKETS - 1;
    }
    let power = 63 - lateness_ns.leading_zeros();
    let shift = power - SUB_BITS;
    let sub = (lateness_ns >> shift) - EXACT;
    (((shift + 1) as usize) << SUB_BITS) + sub as usize
}

/// The largest lateness (ns) bucket `i` holds; the last bucket's is its
/// lower bound, as it holds every larger value.
pub fn bucket_bound_ns(i: usize) -> u64 {
    if i >= BUCKETS - 1 {
        return 1 << TOP_BITS;
    }
    if i < EXACT as usize {
        return i as u64;
    }
    let shift = (i >> SUB_BITS) as u32 - 1;
    let sub = (i as u64) & (EXACT - 1);
    ((EXACT + sub) << shift) + (1 << shift) - 1
}

pub struct LatenessHistogram {
    buckets: Box<[AtomicU64]>,
    departures: AtomicU64,
    max_ns: AtomicU64,
}

impl Default for LatenessHistogram {
    fn default() -> Self {
        LatenessHistogram {
            buckets: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
            departures: AtomicU64::new(0),
            max_ns: AtomicU64::new(0),
        }
    }
}

impl LatenessHistogram {
    /// A packet scheduled for `scheduled_ns` handed over at `now_ns`; one
    /// handed over early counts as on time.
    pub fn record(&self, scheduled_ns: u64, now_ns: u64) {
        let lateness_ns = now_ns.saturating_sub(scheduled_ns);
        self.buckets[bucket_of(lateness_ns)].fetch_add(1, Ordering::Relaxed);
        self.departures.fetch_add(1, Ordering::Relaxed);
        self.max_ns.fetch_max(lateness_ns, Ordering::Relaxed);
    }

    /// The counts as they stand (each counter read once; a packet recorded
    /// meanwhile may be in some of them and not others).
    pub fn snapshot(&self) -> LatenessSnapshot {
        let buckets = self
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        LatenessSnapshot {
            buckets,
            departures: self.departures.load(Ordering::Relaxed),
            max_ns: self.max_ns.load(Ordering::Relaxed),
        }
    }
}

/// The histogram's counts at one time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatenessSnapshot {
    /// Packets per bucket; `bucket_bound_ns` gives each bucket's bound.
    pub buckets: Vec<u64>,
    pub departures: u64,
    pub max_ns: u64,
}

impl LatenessSnapshot {
    /// The bound of the bucket holding the `q` quantile (0 < q <= 1): the
    /// smallest bound that at least q of the packets are at or under; 0
    /// before any packet.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        let total: u64 = self.buckets.iter().sum();
        if total == 0 {
            return 0;
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for (i, &n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return bucket_bound_ns(i).min(self.max_ns);
            }
        }
        self.max_ns
    }

    /// (bucket bound in ns, packets) of each bucket that holds any.
    pub fn nonzero_buckets(&self) -> Vec<(u64, u64)> {
        self.buckets
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(i, &n)| (bucket_bound_ns(i), n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_exact_and_bounds_are_within_the_resolution() {
        for v in 0..EXACT {
            assert_eq!(bucket_bound_ns(bucket_of(v)), v);
        }
        for v in [
            64,
            65,
            127,
            128,
            1000,
            20_000,
            999_999,
            3_000_000_017,
            (1 << 34) - 1,
        ] {
            let bound = bucket_bound_ns(bucket_of(v));
            assert!(bound >= v, "{v} over its bucket's bound {bound}");
            let error = (bound - v) as f64 / v as f64;
            assert!(error < 1.0 / EXACT as f64, "{v}: bound {bound}");
        }
    }

    #[test]
    fn buckets_are_ordered_and_cover_every_value() {
        for i in 1..BUCKETS {
            assert!(bucket_bound_ns(i) > bucket_bound_ns(i - 1), "bucket {i}");
            assert_eq!(bucket_of(bucket_bound_ns(i - 1) + 1), i, "bucket {i}");
        }
    }

    #[test]
    fn values_past_the_range_are_clamped_into_the_last_bucket() {
        let h = LatenessHistogram::default();
        h.record(0, 20_000_000_000);
        h.record(0, u64::MAX);
        let s = h.snapshot();
        assert_eq!(s.buckets[BUCKETS - 1], 2);
        assert_eq!(s.max_ns, u64::MAX);
        assert_eq!(s.quantile_ns(0.5), 1 << TOP_BITS);
        assert!(
            bucket_bound_ns(BUCKETS - 1) > 10_000_000_000,
            "range up to 10 s"
        );
    }

    #[test]
    fn quantiles_of_a_known_spread() {
        let h = LatenessHistogram::default();
        // 1..=1000 us late, one packet each; then one 50 ms late.
        for us in 1..=1000u64 {
            h.record(5_000, 5_000 + us * 1000);
        }
        h.record(0, 50_000_000);
        let s = h.snapshot();
        assert_eq!(s.departures, 1001);
        let near = |got: u64, want: u64| {
            let error = got.abs_diff(want) as f64 / want as f64;
            assert!(error <= 1.0 / EXACT as f64, "{got} vs {want}");
        };
        near(s.quantile_ns(0.5), 501_000);
        near(s.quantile_ns(0.99), 991_000);
        assert_eq!(s.quantile_ns(1.0), 50_000_000);
        assert_eq!(s.max_ns, 50_000_000);
    }

    #[test]
    fn early_and_on_time_packets_count_as_zero() {
        let h = LatenessHistogram::default();
        h.record(1000, 1000);
        h.record(2000, 1500);
        let s = h.snapshot();
        assert_eq!((s.buckets[0], s.max_ns, s.quantile_ns(0.99)), (2, 0, 0));
        assert_eq!(s.nonzero_buckets(), vec![(0, 2)]);
        assert_eq!(LatenessHistogram::default().snapshot().quantile_ns(0.5), 0);
    }
}

//! What happened to one queue since the queue monitor last looked: packets
//! enqueued, dequeued and dropped because the queue was full, and the
//! sojourn (dequeue time - enqueue time, as the program's deq_timedelta) of
//! the packets dequeued. Plain counters, bumped under the traffic manager's
//! lock where it enqueues, dequeues and drops; the monitor takes and resets
//! them at each sample (src/monitor/).

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PeriodCounts {
    pub arrivals: u64,
    pub departures: u64,
    /// Arrivals dropped because the queue was full.
    pub drops: u64,
    pub sojourn_max_us: u64,
    pub sojourn_sum_us: u64,
}

impl PeriodCounts {
    /// A packet left the queue after `sojourn_us`.
    pub fn departed(&mut self, sojourn_us: u64) {
        self.departures += 1;
        self.sojourn_max_us = self.sojourn_max_us.max(sojourn_us);
        self.sojourn_sum_us = self.sojourn_sum_us.wrapping_add(sojourn_us);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn departures_keep_the_largest_and_the_sum() {
        let mut c = PeriodCounts::default();
        for s in [30, 120, 7] {
            c.departed(s);
        }
        assert_eq!(
            (c.departures, c.sojourn_max_us, c.sojourn_sum_us),
            (3, 120, 157)
        );
    }
}

//! The switch clock. Every timestamp the program sees (BMv2's units:
//! microseconds since the switch started) and every departure time comes
//! from here. Virtual time stands still until `advance_to`, so tests and
//! STF runs are repeatable; real time is CLOCK_MONOTONIC since start.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

pub struct Clock {
    epoch: Instant,
    /// Virtual time in ns; unused in real time.
    virtual_ns: Option<AtomicU64>,
}

impl Clock {
    pub fn new(virtual_time: bool) -> Self {
        Clock {
            epoch: Instant::now(),
            virtual_ns: virtual_time.then(|| AtomicU64::new(0)),
        }
    }

    pub fn is_virtual(&self) -> bool {
        self.virtual_ns.is_some()
    }

    pub fn now_ns(&self) -> u64 {
        match &self.virtual_ns {
            Some(v) => v.load(Ordering::SeqCst),
            None => u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX),
        }
    }

    pub fn now_us(&self) -> u64 {
        self.now_ns() / 1000
    }

    /// Moves virtual time forward to `ns` (never backwards); no effect in
    /// real time.
    pub fn advance_to(&self, ns: u64) {
        if let Some(v) = &self.virtual_ns {
            v.fetch_max(ns, Ordering::SeqCst);
        }
    }
}

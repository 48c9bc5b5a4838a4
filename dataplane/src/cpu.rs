//! The CPU port's outputs to the controller: packet-ins (what the program
//! sends to the CPU port) and digests. Both are bounded: a controller that
//! stops reading costs dropped, counted messages, never a blocked switch.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

pub const CAPACITY: usize = 4096;

pub struct Mailbox<T> {
    items: Mutex<(VecDeque<T>, u64)>,
    ready: Condvar,
}

impl<T> Default for Mailbox<T> {
    fn default() -> Self {
        Mailbox {
            items: Mutex::new((VecDeque::new(), 0)),
            ready: Condvar::new(),
        }
    }
}

impl<T> Mailbox<T> {
    /// Adds a message; false (and it is counted as dropped) when full.
    pub fn push(&self, item: T) -> bool {
        let mut g = self.items.lock().unwrap_or_else(|e| e.into_inner());
        if g.0.len() >= CAPACITY {
            g.1 += 1;
            return false;
        }
        g.0.push_back(item);
        self.ready.notify_all();
        true
    }

    /// Everything waiting, after waiting up to `timeout` for the first.
    pub fn take(&self, timeout: Duration) -> Vec<T> {
        let deadline = Instant::now() + timeout;
        let mut g = self.items.lock().unwrap_or_else(|e| e.into_inner());
        while g.0.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            g = self
                .ready
                .wait_timeout(g, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        g.0.drain(..).collect()
    }

    /// Messages dropped because the mailbox was full.
    pub fn dropped(&self) -> u64 {
        self.items.lock().unwrap_or_else(|e| e.into_inner()).1
    }
}

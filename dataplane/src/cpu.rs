//! The CPU port's outputs to the controller: packet-ins (what the program
//! sends to the CPU port) and digests. Both are bounded: a controller that
//! stops reading costs dropped, counted messages, never a blocked switch.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::sync::{lock, wait_timeout};

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
        let mut g = lock(&self.items);
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
        let mut g = lock(&self.items);
        while g.0.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            g = wait_timeout(&self.ready, g, left);
        }
        g.0.drain(..).collect()
    }

    /// Messages dropped because the mailbox was full.
    pub fn dropped(&self) -> u64 {
        lock(&self.items).1
    }
}

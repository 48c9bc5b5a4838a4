//! The CPU port's outputs to the controller: packet-ins (what the program
//! sends to the CPU port) and digests. Both are bounded: a controller that
//! stops reading costs dropped, counted messages, never a blocked switch.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::sync::{lock, wait_timeout};

pub const CAPACITY: usize = 4096;

struct Items<T> {
    queue: VecDeque<T>,
    dropped: u64,
    /// Bumped by `interrupt`: a `take` waiting since an earlier count
    /// returns.
    interrupts: u64,
}

pub struct Mailbox<T> {
    items: Mutex<Items<T>>,
    ready: Condvar,
}

impl<T> Default for Mailbox<T> {
    fn default() -> Self {
        Mailbox {
            items: Mutex::new(Items {
                queue: VecDeque::new(),
                dropped: 0,
                interrupts: 0,
            }),
            ready: Condvar::new(),
        }
    }
}

impl<T> Mailbox<T> {
    /// Adds a message; false (and it is counted as dropped) when full.
    pub fn push(&self, item: T) -> bool {
        let mut g = lock(&self.items);
        if g.queue.len() >= CAPACITY {
            g.dropped += 1;
            return false;
        }
        g.queue.push_back(item);
        self.ready.notify_all();
        true
    }

    /// Everything waiting, after waiting up to `timeout` for the first (or
    /// until an `interrupt`).
    pub fn take(&self, timeout: Duration) -> Vec<T> {
        let deadline = Instant::now() + timeout;
        let mut g = lock(&self.items);
        let interrupts = g.interrupts;
        while g.queue.is_empty() && g.interrupts == interrupts {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            g = wait_timeout(&self.ready, g, left);
        }
        g.queue.drain(..).collect()
    }

    /// Makes every `take` waiting now return, so that its caller can stop
    /// without waiting out its timeout.
    pub fn interrupt(&self) {
        lock(&self.items).interrupts += 1;
        self.ready.notify_all();
    }

    /// Messages dropped because the mailbox was full.
    pub fn dropped(&self) -> u64 {
        lock(&self.items).dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn an_interrupt_ends_a_wait_at_once() {
        let mailbox = Arc::new(Mailbox::<u8>::default());
        let waiting = Arc::clone(&mailbox);
        let start = Instant::now();
        let taker = std::thread::spawn(move || waiting.take(Duration::from_secs(30)));
        while start.elapsed() < Duration::from_secs(30) && !taker.is_finished() {
            mailbox.interrupt();
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(taker.join().unwrap(), Vec::<u8>::new());
        assert!(start.elapsed() < Duration::from_secs(30));
    }

    #[test]
    fn a_full_mailbox_counts_what_it_drops() {
        let mailbox = Mailbox::default();
        for i in 0..=CAPACITY {
            mailbox.push(i);
        }
        assert_eq!(mailbox.dropped(), 1);
        assert_eq!(mailbox.take(Duration::ZERO).len(), CAPACITY);
    }
}

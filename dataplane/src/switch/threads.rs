//! The switch's threads: the packet thread polls the interface ports; in
//! real time the scheduler thread sleeps until the next departure, landing
//! or monitor sample and runs what is due.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Ctx, Switch};
use crate::error::{ApiError, ApiResult};
use crate::ports::AfPacket;
use crate::sync::{lock, read_lock, wait_timeout};

/// Longest sleep of the scheduler thread: it rechecks `running` this often.
const SCHEDULER_IDLE: Duration = Duration::from_millis(100);
const POLL_TIMEOUT_MS: i32 = 100;
/// How long the packet thread watches its rings before it sleeps in
/// poll(). A sleep and its wake-up cost more than a packet's whole trip
/// through the switch, so at high rates sleeping between packets would cap
/// the rate far below what the thread forwards when busy.
const IDLE_SPIN: Duration = Duration::from_micros(50);
/// At low rates the spin is pure waste: at 10 Mbit/s (about 1.6 kpps of
/// data and ACKs through a router) a 50 us spin after every packet cost more
/// than forwarding them. So the thread spins only while the smoothed gap
/// between packet arrivals is shorter than the spin; the gap is averaged
/// with weight 1/2^GAP_EWMA_SHIFT, like TCP's srtt.
const GAP_EWMA_SHIFT: u32 = 3;
/// Longer gaps count as this long, so a burst after a quiet spell brings the
/// average under the spin within a few dozen packets.
const GAP_CAP_NS: u64 = 1_000_000;
/// Packets taken from one socket before moving to the next, for fairness.
const RX_BATCH: usize = 64;

impl Switch {
    /// Starts the packet thread for interface ports (if any) and, in real
    /// time, the scheduler thread. Idempotent.
    pub fn start(self: &Arc<Self>) -> ApiResult<()> {
        if self.running.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new()
                .name(name.into())
                .spawn(f)
                .map_err(|e| ApiError::Invalid(format!("cannot start {name} thread: {e}")))
        };
        let mut threads = lock(&self.threads);
        if !self.clock.is_virtual() {
            let sw = Arc::clone(self);
            threads.push(spawn("p4dp-sched", Box::new(move || sw.scheduler_loop()))?);
        }
        let ifs = read_lock(&self.ports).interfaces();
        if !ifs.is_empty() {
            let sw = Arc::clone(self);
            threads.push(spawn("p4dp-rx", Box::new(move || sw.rx_loop(&ifs)))?);
        }
        Ok(())
    }

    /// Stops and joins the packet threads. Idempotent.
    pub fn stop(&self) {
        self.running.store(false, Ordering::SeqCst);
        self.tm_wake.notify_all();
        let handles: Vec<_> = lock(&self.threads).drain(..).collect();
        for h in handles {
            let _ = h.join();
        }
    }

    /// Real time: sleeps until the next departure, landing or monitor
    /// sample (or a new packet), then runs egress for what is due and takes
    /// the sample. Idle, it sleeps; it never spins.
    pub(super) fn scheduler_loop(&self) {
        let mut ctx = Ctx::default();
        while self.running.load(Ordering::SeqCst) {
            {
                let state = read_lock(&self.state);
                if let Some(l) = state.as_ref() {
                    self.run_due(l, &mut ctx);
                }
                self.monitor_tick(state.as_ref());
            }
            self.flush_ports();
            let tm = lock(&self.tm);
            if !self.running.load(Ordering::SeqCst) {
                break;
            }
            let now = self.clock.now_ns();
            let wait = match self.next_wake_ns(&tm) {
                Some(t) if t <= now => continue,
                Some(t) => Duration::from_nanos(t - now).min(SCHEDULER_IDLE),
                None => SCHEDULER_IDLE,
            };
            self.scheduler_wakes_ns.store(
                now.saturating_add(wait.as_nanos() as u64),
                Ordering::Relaxed,
            );
            let _tm = wait_timeout(&self.tm_wake, tm, wait);
            // Awake: it looks at the queues again before it sleeps.
            self.scheduler_wakes_ns.store(0, Ordering::Relaxed);
        }
    }

    pub(super) fn rx_loop(&self, ifs: &[(u32, Arc<AfPacket>)]) {
        let mut fds: Vec<libc::pollfd> = ifs
            .iter()
            .map(|(_, s)| libc::pollfd {
                fd: s.raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let mut ctx = Ctx::default();
        let mut arrivals = ArrivalGap::new();
        while self.running.load(Ordering::SeqCst) {
            let mut taken = 0;
            {
                let state = read_lock(&self.state);
                for (port, sock) in ifs {
                    taken += sock.recv_batch(RX_BATCH, |data| {
                        if let Some(l) = state.as_ref() {
                            self.receive(l, &mut ctx, *port, data);
                            self.run_due(l, &mut ctx);
                        }
                    });
                }
            }
            self.flush_ports();
            if taken > 0 {
                arrivals.packets_arrived(Instant::now());
                continue;
            }
            if arrivals.spin_pays() && self.spin_for_packets(ifs) {
                continue;
            }
            // Nothing waiting: sleep until a ring has a frame.
            // SAFETY: fds is a valid array of pollfd for its length.
            let n =
                unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, POLL_TIMEOUT_MS) };
            if n < 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            for f in fds.iter_mut() {
                if f.revents & (libc::POLLHUP | libc::POLLNVAL) != 0 {
                    // The interface is gone; a negative fd makes poll skip it
                    // instead of waking us in a busy loop.
                    f.fd = -1;
                }
            }
        }
    }

    /// Watches the rings for up to IDLE_SPIN; true as soon as one has a packet.
    fn spin_for_packets(&self, ifs: &[(u32, Arc<AfPacket>)]) -> bool {
        let until = Instant::now() + IDLE_SPIN;
        while Instant::now() < until {
            if ifs.iter().any(|(_, s)| s.has_waiting()) {
                return true;
            }
            std::hint::spin_loop();
        }
        false
    }
}

/// The smoothed gap between the batches the packet thread takes.
struct ArrivalGap {
    last: Instant,
    gap_ns: u64,
}

impl ArrivalGap {
    fn new() -> Self {
        Self {
            last: Instant::now(),
            gap_ns: GAP_CAP_NS,
        }
    }

    fn packets_arrived(&mut self, now: Instant) {
        let gap = now
            .duration_since(self.last)
            .as_nanos()
            .min(GAP_CAP_NS.into()) as u64;
        self.gap_ns = self.gap_ns - (self.gap_ns >> GAP_EWMA_SHIFT) + (gap >> GAP_EWMA_SHIFT);
        self.last = now;
    }

    fn spin_pays(&self) -> bool {
        self.gap_ns < IDLE_SPIN.as_nanos() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spins_only_while_packets_come_faster_than_the_spin() {
        let mut arrivals = ArrivalGap::new();
        assert!(!arrivals.spin_pays(), "no traffic yet");
        let mut now = Instant::now();
        for _ in 0..64 {
            now += Duration::from_micros(5);
            arrivals.packets_arrived(now);
        }
        assert!(arrivals.spin_pays(), "200 kpps: {} ns", arrivals.gap_ns);
        for _ in 0..64 {
            now += Duration::from_micros(600);
            arrivals.packets_arrived(now);
        }
        assert!(!arrivals.spin_pays(), "1.6 kpps: {} ns", arrivals.gap_ns);
    }
}

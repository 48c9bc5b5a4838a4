//! The switch's event loop: one thread that takes packets from the
//! interface ports and, in real time, runs each departure, landing and
//! monitor sample at its time. It sleeps in epoll on the ports' sockets
//! and the waker's eventfd, with the next event's time as the timeout, so a
//! packet that starts a departure needs no wake-up of another thread, and
//! the answers a veth peer's stack sends back during our own send are taken
//! before the thread sleeps again.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::readiness::Readiness;
use super::{Ctx, Switch};
use crate::error::{ApiError, ApiResult};
use crate::ports::AfPacket;
use crate::sync::{lock, read_lock};

/// Longest sleep of the loop: it rechecks `running` this often.
const IDLE_SLEEP: Duration = Duration::from_millis(100);
/// An event due sooner than this is waited for awake: a sleep and its
/// wake-up cost more CPU than that (about 20 us on the lab's VMs) and wake
/// later than a spin.
const SPIN_BELOW: Duration = Duration::from_micros(5);
/// How long the loop watches its rings before it sleeps in epoll. A
/// sleep and its wake-up cost more than a packet's whole trip through the
/// switch, so at high rates sleeping between packets would cap the rate far
/// below what the thread forwards when busy.
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
/// The default slack (50 us) lets the kernel wake a timed sleep that much
/// late: the departures would be late by it.
const TIMER_SLACK_NS: libc::c_ulong = 1;

impl Switch {
    /// Starts the event loop, if there is anything for it to do: interface
    /// ports to read, or (in real time) events to run on time. Idempotent.
    pub fn start(self: &Arc<Self>) -> ApiResult<()> {
        if self.running.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let ifs = read_lock(&self.ports).interfaces();
        if ifs.is_empty() && self.clock.is_virtual() {
            return Ok(());
        }
        let sw = Arc::clone(self);
        let handle = std::thread::Builder::new()
            .name("p4dp-loop".into())
            .spawn(move || sw.event_loop(&ifs))
            .map_err(|e| ApiError::Invalid(format!("cannot start the event loop thread: {e}")))?;
        lock(&self.threads).push(handle);
        Ok(())
    }

    /// Stops and joins the event loop. Idempotent.
    pub fn stop(&self) {
        self.running.store(false, Ordering::SeqCst);
        self.waker.wake();
        let handles: Vec<_> = lock(&self.threads).drain(..).collect();
        for h in handles {
            let _ = h.join();
        }
    }

    /// Takes what the rings hold, runs what is due, sends, and sleeps until
    /// the next packet, event or wake-up. In virtual time the clock moves
    /// only in `advance_time`, so the loop runs events only after packets.
    pub(super) fn event_loop(&self, ifs: &[(u32, Arc<AfPacket>)]) {
        // SAFETY: prctl with an integer argument only changes this thread.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, TIMER_SLACK_NS) };
        if let Some(priority) = self.realtime_priority {
            run_at_realtime_priority(priority);
        }
        let mut fds: Vec<_> = ifs.iter().map(|(_, s)| s.raw_fd()).collect();
        let waker_token = fds.len();
        fds.push(self.waker.raw_fd());
        let mut readiness = match Readiness::new(&fds) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("p4switch: the event loop cannot watch its sockets: {e}");
                return;
            }
        };
        let mut ctx = Ctx::default();
        let mut arrivals = ArrivalGap::new();
        while self.running.load(Ordering::SeqCst) {
            let taken = self.serve(ifs, &mut ctx);
            self.flush_ports();
            if taken > 0 {
                arrivals.packets_arrived(Instant::now());
                continue;
            }
            // Our own sends may have brought answers (a veth peer's stack runs
            // in the sender's thread): take them before sleeping.
            if ifs.iter().any(|(_, s)| s.has_waiting()) {
                continue;
            }
            let Some(until) = self.plan_wake() else {
                continue;
            };
            if arrivals.spin_pays() && self.spin_for_packets(ifs, until) {
                continue;
            }
            let wait = until.saturating_duration_since(Instant::now());
            readiness.wait(wait, |token| {
                if token == waker_token {
                    self.waker.drain();
                }
            });
            // Awake: it looks at the queues again before it sleeps.
            self.loop_wakes_ns.store(0, Ordering::Relaxed);
        }
    }

    /// In real time first records the monitor's instants passed (nothing
    /// changed since); then takes up to RX_BATCH packets from each ring,
    /// each followed by the departures it made due; in real time, then runs
    /// every departure and landing due. Returns the packets taken.
    fn serve(&self, ifs: &[(u32, Arc<AfPacket>)], ctx: &mut Ctx) -> usize {
        let state = read_lock(&self.state);
        let timed = !self.clock.is_virtual();
        if timed {
            self.monitor_catch_up(state.as_ref());
        }
        let mut taken = 0;
        for (port, sock) in ifs {
            taken += sock.recv_batch(RX_BATCH, |data| {
                if let Some(l) = state.as_ref() {
                    self.receive(l, ctx, *port, data);
                    self.run_due(l, ctx);
                }
            });
        }
        if let Some(l) = state.as_ref().filter(|_| timed) {
            self.run_due(l, ctx);
        }
        taken
    }

    /// When the loop must wake next: the next departure or landing, or a
    /// sample's deadline (real time), at most IDLE_SLEEP away; None when
    /// one is due within SPIN_BELOW. The time is published under the traffic manager's lock,
    /// so a thread queueing an earlier event knows to wake the loop.
    fn plan_wake(&self) -> Option<Instant> {
        let start = Instant::now();
        if self.clock.is_virtual() {
            return Some(start + IDLE_SLEEP);
        }
        let tm = lock(&self.tm);
        let now = self.clock.now_ns();
        let wait = match self.next_wake_ns(&tm) {
            Some(t) if t <= now.saturating_add(SPIN_BELOW.as_nanos() as u64) => return None,
            Some(t) => Duration::from_nanos(t - now).min(IDLE_SLEEP),
            None => IDLE_SLEEP,
        };
        self.loop_wakes_ns.store(
            now.saturating_add(wait.as_nanos() as u64),
            Ordering::Relaxed,
        );
        Some(start + wait)
    }

    /// Watches the rings until `until` or for up to IDLE_SPIN; true as soon
    /// as one has a packet, or when `until` comes.
    fn spin_for_packets(&self, ifs: &[(u32, Arc<AfPacket>)], until: Instant) -> bool {
        let spin_end = Instant::now() + IDLE_SPIN;
        loop {
            let now = Instant::now();
            if now >= until {
                return true;
            }
            if now >= spin_end {
                return false;
            }
            if ifs.iter().any(|(_, s)| s.has_waiting()) {
                return true;
            }
            std::hint::spin_loop();
        }
    }
}

/// Puts the calling thread in SCHED_FIFO at `priority`. A normal thread
/// that wakes on time still waits for whatever runs on its core: on a
/// 2-core machine shared with the hosts' stacks and traffic generators that
/// made departures hundreds of microseconds late at p99. A real-time thread
/// preempts them at once; the kernel's real-time throttling (95 % of each
/// second by default) keeps a spinning loop from starving them. Without
/// the privilege the loop runs at normal priority, and says so.
fn run_at_realtime_priority(priority: i32) {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: param is a valid sched_param; pid 0 is the calling thread.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } != 0 {
        let err = std::io::Error::last_os_error();
        eprintln!(
            "p4switch: the event loop runs at normal priority, not SCHED_FIFO {priority}: {err}"
        );
    }
}

/// The smoothed gap between the batches the event loop takes.
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

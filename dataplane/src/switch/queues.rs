//! Time, queue and link settings from the control plane, and the next
//! event (departure or landing) the clock waits for.

use std::sync::atomic::Ordering;

use super::{QueueSettings, Switch};
use crate::error::{ApiError, ApiResult};
use crate::pipeline::DROP_PORT;
use crate::ports::Port;
use crate::sync::{lock, read_lock};
use crate::tm::{QueueConfig, Rate, TrafficManager};

/// How long a monitor record may wait for the event loop's next wake-up:
/// the records reach their reader (the gNMI stream) in batches of 200 ms.
const MONITOR_LAG_NS: u64 = 20_000_000;

impl Switch {
    /// Virtual time only: moves the clock forward by `us`, running every
    /// departure due on the way at its own time, and taking the monitor's
    /// samples at theirs (after the events due at or before them).
    pub fn advance_time(&self, us: u64) -> ApiResult<()> {
        if !self.clock.is_virtual() {
            return Err(ApiError::Invalid(
                "advance_time needs virtual_time=True".into(),
            ));
        }
        let target = self.clock.now_ns().saturating_add(us.saturating_mul(1000));
        let state = read_lock(&self.state);
        let mut ctx = lock(&self.inject_ctx);
        loop {
            let due = |t: &u64| *t <= target;
            let event = self.next_event_ns(&lock(&self.tm)).filter(due);
            let sample = self.monitor_next_ns().filter(due);
            match (event, sample, state.as_ref()) {
                // An event at a sample's instant runs first: the sample
                // shows the state at that instant.
                (Some(t), s, Some(l)) if s.is_none_or(|s| t <= s) => {
                    self.clock.advance_to(t);
                    self.run_due(l, &mut ctx);
                    self.flush_ports();
                }
                (_, Some(s), l) => {
                    self.clock.advance_to(s);
                    self.monitor_tick(l);
                }
                _ => break,
            }
        }
        self.clock.advance_to(target);
        Ok(())
    }

    pub fn set_queue(&self, port: u32, queue: Option<usize>, s: QueueSettings) -> ApiResult<()> {
        if port >= DROP_PORT as u32 {
            return Err(ApiError::Invalid(format!(
                "port {port} out of range (0..510)"
            )));
        }
        let apply = |c: &mut QueueConfig| {
            c.rate = s.rate;
            if s.depth_pkts.is_some() || s.depth_bytes.is_some() {
                c.depth_pkts = s.depth_pkts;
                c.depth_bytes = s.depth_bytes;
            }
        };
        lock(&self.tm)
            .configure(port, queue, apply)
            .map_err(ApiError::Invalid)
    }

    /// Emulates the port's link: `delay_us` of propagation each way, and a
    /// line of `rate_bps`: each queue's rate becomes it, and the queues
    /// share the line (highest priority first when it frees). None leaves a
    /// setting as it is; 0 removes it (no delay; unlimited rate).
    pub fn set_link(
        &self,
        port: u32,
        delay_us: Option<u64>,
        rate_bps: Option<u64>,
    ) -> ApiResult<()> {
        if port >= DROP_PORT as u32 {
            return Err(ApiError::Invalid(format!(
                "port {port} out of range (0..510)"
            )));
        }
        if let Some(r) = rate_bps {
            let rate = if r == 0 {
                Rate::Unlimited
            } else {
                Rate::Bps(r)
            };
            let mut tm = lock(&self.tm);
            // Each queue drains at the line's rate, and the queues share
            // the line.
            tm.configure(port, None, |c| c.rate = rate)
                .map_err(ApiError::Invalid)?;
            tm.port(port).line_rate = (r != 0).then_some(rate);
        }
        if let Some(d) = delay_us {
            let mut links = lock(&self.links);
            links.set_delay(port, d.saturating_mul(1000));
            if links.any_delay() {
                self.links_active.store(true, Ordering::SeqCst);
            }
        }
        Ok(())
    }

    /// rx_packets, tx_packets, tm_drops, rx_drops, tx_drops, and per queue
    /// qN_qdepth_pkts (the packets queue N holds), qN_drops.
    pub fn port_stats(&self, port: u32) -> Vec<(String, u64)> {
        // Sends are batched: a packet counts as sent when queued, and one the
        // interface refuses later moves from tx_packets to tx_drops.
        let ports = read_lock(&self.ports);
        let (rx_drops, tx_drops) = match ports.by_number.get(&port) {
            Some(Port::Interface(s)) => (s.rx_dropped(), s.tx_dropped()),
            _ => (0, 0),
        };
        drop(ports);
        let mut tm = lock(&self.tm);
        let p = tm.port(port);
        let mut out = vec![
            ("rx_packets".to_owned(), p.rx_packets),
            (
                "tx_packets".to_owned(),
                p.tx_packets.saturating_sub(tx_drops),
            ),
            ("tm_drops".to_owned(), p.tm_drops),
            ("rx_drops".to_owned(), rx_drops),
            ("tx_drops".to_owned(), tx_drops),
        ];
        for (i, q) in p.queues.iter().enumerate() {
            out.push((format!("q{i}_qdepth_pkts"), q.len() as u64));
            out.push((format!("q{i}_drops"), q.drops));
        }
        out
    }

    /// Wakes the event loop for a new event at `at_ns`, but only if it is
    /// asleep past that time: a wake-up per packet would cost a context
    /// switch per packet. An event already due is left to the calling
    /// thread, whose `run_due` follows every packet it receives.
    pub(super) fn wake_for(&self, at_ns: u64) {
        let tm = lock(&self.tm);
        self.wake_for_locked(&tm, at_ns);
    }

    /// `wake_for` with the traffic manager already locked: the lock orders
    /// this check after the event loop's own look at the queues.
    pub(super) fn wake_for_locked(&self, _tm: &TrafficManager, at_ns: u64) {
        let asleep_until = self.loop_wakes_ns.load(Ordering::Relaxed);
        if at_ns < asleep_until && at_ns > self.clock.now_ns() {
            self.waker.wake();
        }
    }

    /// What the event loop sleeps until, given the locked traffic manager:
    /// the next departure or landing, or MONITOR_LAG_NS after the next
    /// monitor sample's instant. The loop takes samples at its first wake-up
    /// after their instants, so only a quiet link needs a wake-up for them.
    pub(super) fn next_wake_ns(&self, tm: &TrafficManager) -> Option<u64> {
        let sample = self
            .monitor_next_ns()
            .map(|t| t.saturating_add(MONITOR_LAG_NS));
        match (self.next_event_ns(tm), sample) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The next departure or landing, given the locked traffic manager.
    pub(super) fn next_event_ns(&self, tm: &TrafficManager) -> Option<u64> {
        let landing = lock(&self.links).next_landing_ns();
        match (tm.next_dequeue_ns(), landing) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

//! The queue monitor's API and its samples (the record, grid and ring are
//! in src/monitor/). A sample holds the traffic manager's lock, then the
//! register arrays' locks in ascending order, as `queue_snapshot` does, so
//! the depths, counts and cells are of one instant. In virtual time
//! `advance_time` takes each sample at its instant, after every event due
//! at or before it. In real time the event loop takes it at its first
//! wake-up after the instant, before it runs anything: nothing changed the
//! queues or registers between, so the record is of the instant, and a
//! sample costs no wake-up of its own on a busy link.

use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use super::externs::{counter_cell, register_cell};
use super::{Loaded, Switch};
use crate::error::{ApiError, ApiResult};
use crate::monitor::ring::{Ring, RingStats};
use crate::monitor::{Sampler, Targets, MAX_REGISTER_WIDTH, MIN_PERIOD_US};
use crate::pipeline::DROP_PORT;
use crate::program::Program;
use crate::sync::{lock, read_lock};
use crate::tm::TrafficManager;

/// `monitor_start`'s arguments, as the caller gave them (checked here).
#[derive(Debug, Clone)]
pub struct MonitorRequest {
    pub period_us: i64,
    /// (port, queue).
    pub queues: Vec<(i64, i64)>,
    /// (register name, index).
    pub registers: Vec<(String, i64)>,
    /// (counter name, index).
    pub counters: Vec<(String, i64)>,
    /// Records the ring holds.
    pub capacity: i64,
}

fn check_period(period_us: i64) -> ApiResult<u64> {
    u64::try_from(period_us)
        .ok()
        .filter(|&p| p >= MIN_PERIOD_US)
        .ok_or_else(|| {
            ApiError::Invalid(format!(
                "the monitor's period must be at least {MIN_PERIOD_US} us, got {period_us}"
            ))
        })
}

fn check_capacity(capacity: i64) -> ApiResult<usize> {
    usize::try_from(capacity)
        .ok()
        .filter(|&c| c > 0)
        .ok_or_else(|| {
            ApiError::Invalid(format!(
                "the monitor's capacity must be at least 1 record, got {capacity}"
            ))
        })
}

fn check_queue(i: usize, (port, queue): (i64, i64), n: usize) -> ApiResult<(u32, usize)> {
    let port = u32::try_from(port)
        .ok()
        .filter(|&p| p < DROP_PORT as u32)
        .ok_or_else(|| {
            ApiError::Invalid(format!(
                "monitor queues[{i}]: port {port} out of range (0..510)"
            ))
        })?;
    let queue = usize::try_from(queue)
        .ok()
        .filter(|&q| q < n)
        .ok_or_else(|| {
            ApiError::Invalid(format!(
                "monitor queues[{i}]: queue {queue} out of range: the switch has {n} queue(s) \
             per port (priority_queues)"
            ))
        })?;
    Ok((port, queue))
}

fn index(kind: &str, name: &str, index: i64) -> ApiResult<u64> {
    u64::try_from(index)
        .map_err(|_| ApiError::Invalid(format!("{kind} '{name}': index {index} out of range")))
}

fn register_cells(prog: &Program, named: &[(String, i64)]) -> ApiResult<Vec<(usize, usize)>> {
    named
        .iter()
        .map(|(name, i)| {
            let (r, i) = register_cell(prog, name, index("register", name, *i)?)?;
            let width = prog.registers[r].width;
            if width > MAX_REGISTER_WIDTH {
                return Err(ApiError::Invalid(format!(
                    "register '{name}' is {width} bits wide: the monitor records at most \
                     {MAX_REGISTER_WIDTH}-bit values"
                )));
            }
            Ok((r, i))
        })
        .collect()
}

fn counter_cells(prog: &Program, named: &[(String, i64)]) -> ApiResult<Vec<(usize, usize)>> {
    named
        .iter()
        .map(|(name, i)| counter_cell(prog, name, index("counter", name, *i)?))
        .collect()
}

fn realtime_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

impl Switch {
    /// Starts (or replaces) the monitor and takes its record 0 now; returns
    /// the field names of one record. Records not yet taken are discarded.
    pub fn monitor_start(&self, req: &MonitorRequest) -> ApiResult<Vec<String>> {
        let period_us = check_period(req.period_us)?;
        let capacity = check_capacity(req.capacity)?;
        // Held throughout, so no new program comes between resolving the
        // names and installing the monitor (load_pipeline stops it).
        let state = read_lock(&self.state);
        let targets = self.monitor_targets(state.as_ref(), req)?;
        let layout = targets.layout();
        let mut slot = lock(&self.monitor.sampler);
        self.monitor.next_ns.store(u64::MAX, Ordering::SeqCst);
        self.reset_queue_counts(&targets.queues);
        let counters_now = state.as_ref().map_or_else(Vec::new, |l| {
            targets
                .counters
                .iter()
                .map(|&c| counter_now(l, c))
                .collect()
        });
        let t0 = self.clock.now_ns();
        let mut s = Sampler::new(targets, t0, period_us.saturating_mul(1000), counters_now);
        *lock(&self.monitor.ring) = Ring::new(layout.fields(), capacity);
        self.take_sample(&mut s, state.as_ref(), t0);
        *slot = Some(s);
        drop(slot);
        drop(state);
        // The event loop may sleep past record 1's instant: it looks again.
        self.waker.wake();
        Ok(layout.field_names())
    }

    /// The queues' counts start from zero (record 0's are since now).
    fn reset_queue_counts(&self, queues: &[(u32, usize)]) {
        let mut tm = lock(&self.tm);
        for &(port, qid) in queues {
            tm.port(port);
            tm.take_counts(port, qid);
        }
    }

    /// Stops the monitor, after the records of the instants passed; its
    /// records stay until taken. Idempotent.
    pub fn monitor_stop(&self) {
        self.monitor_catch_up(read_lock(&self.state).as_ref());
        let mut slot = lock(&self.monitor.sampler);
        self.monitor.next_ns.store(u64::MAX, Ordering::SeqCst);
        *slot = None;
    }

    /// Removes and returns the oldest `max_records` records (all if 0),
    /// packed as little-endian u64s. Takes only the ring's lock.
    pub fn monitor_take(&self, max_records: usize) -> Vec<u8> {
        lock(&self.monitor.ring).take(max_records)
    }

    pub fn monitor_stats(&self) -> RingStats {
        lock(&self.monitor.ring).stats()
    }

    /// A new program is loaded (the caller holds the state's write lock):
    /// a monitor naming registers or counters stops, since their names may
    /// be gone; one of queues only keeps running.
    pub(super) fn monitor_program_changed(&self) {
        let mut slot = lock(&self.monitor.sampler);
        if slot
            .as_ref()
            .is_some_and(|s| s.targets.names_program_objects())
        {
            self.monitor.next_ns.store(u64::MAX, Ordering::SeqCst);
            *slot = None;
        }
    }

    /// The next sample instant, if a monitor runs.
    pub(super) fn monitor_next_ns(&self) -> Option<u64> {
        Some(self.monitor.next_ns.load(Ordering::SeqCst)).filter(|&t| t != u64::MAX)
    }

    /// Virtual time: takes a sample if one is due at the clock's time (a
    /// cheap check when none is). The caller holds the state's read lock
    /// and passes it.
    pub(super) fn monitor_tick(&self, l: Option<&Loaded>) {
        if self.clock.now_ns() < self.monitor.next_ns.load(Ordering::SeqCst) {
            return;
        }
        let mut slot = lock(&self.monitor.sampler);
        if let Some(s) = slot.as_mut() {
            let now = self.clock.now_ns();
            if now >= s.next_instant_ns() {
                self.take_sample(s, l, now);
            }
        }
    }

    /// Real time: records every grid instant passed, each at its own time
    /// with the state as it is now. The caller has changed nothing since
    /// those instants (the event loop calls this first thing when it wakes,
    /// `inject` before its packet), so the state is theirs. The caller
    /// holds the state's read lock and passes it.
    pub(super) fn monitor_catch_up(&self, l: Option<&Loaded>) {
        if self.clock.now_ns() < self.monitor.next_ns.load(Ordering::SeqCst) {
            return;
        }
        let mut slot = lock(&self.monitor.sampler);
        if let Some(s) = slot.as_mut() {
            let now = self.clock.now_ns();
            while s.next_instant_ns() <= now {
                let at = s.next_instant_ns();
                self.take_sample(s, l, at);
            }
        }
    }

    fn monitor_targets(&self, l: Option<&Loaded>, req: &MonitorRequest) -> ApiResult<Targets> {
        let n = lock(&self.tm).priority_queues();
        let queues = req
            .queues
            .iter()
            .enumerate()
            .map(|(i, &q)| check_queue(i, q, n))
            .collect::<ApiResult<Vec<_>>>()?;
        let (cells, counters) = match l {
            Some(l) => (
                register_cells(&l.prog, &req.registers)?,
                counter_cells(&l.prog, &req.counters)?,
            ),
            None if req.registers.is_empty() && req.counters.is_empty() => (vec![], vec![]),
            None => {
                return Err(ApiError::Invalid(
                    "no pipeline loaded: the monitor cannot read registers or counters".into(),
                ))
            }
        };
        Ok(Targets::new(queues, cells, counters))
    }

    /// One record for the switch clock's `at_ns` (now, or an instant the
    /// state has not changed since): the grid point it stands for, then the
    /// queues, cells and counters under the locks; into the ring after.
    fn take_sample(&self, s: &mut Sampler, l: Option<&Loaded>, at_ns: u64) {
        let missed = {
            let mut tm = lock(&self.tm);
            let (k, missed) = s.claim(at_ns);
            let since_ns = self.clock.now_ns().saturating_sub(at_ns);
            s.put_header(k, at_ns / 1000, realtime_ns().saturating_sub(since_ns));
            sample_queues(&mut tm, s);
            if let Some(l) = l {
                sample_program(l, s);
            }
            missed
        };
        let mut ring = lock(&self.monitor.ring);
        ring.add_missed(missed);
        ring.push(s.record());
        self.monitor
            .next_ns
            .store(s.next_instant_ns(), Ordering::SeqCst);
    }
}

/// Each queue's depth now and its counts since the last sample.
fn sample_queues(tm: &mut TrafficManager, s: &mut Sampler) {
    for i in 0..s.targets.queues.len() {
        if let Some(first) = s.targets.same_as[i] {
            s.copy_queue(i, first);
            continue;
        }
        let (port, qid) = s.targets.queues[i];
        let (pkts, bytes) = tm
            .port_ref(port)
            .and_then(|p| p.queues.get(qid))
            .map_or((0, 0), |q| (q.len() as u64, q.bytes() as u64));
        let counts = tm.take_counts(port, qid);
        s.put_queue(i, pkts, bytes, counts);
    }
}

/// The register cells under their arrays' locks (ascending, as actions
/// take them), and the counters, while the caller holds the traffic
/// manager's lock.
fn sample_program(l: &Loaded, s: &mut Sampler) {
    let guards: Vec<_> = s
        .targets
        .arrays
        .iter()
        .map(|&r| lock(&l.rt.registers[r]))
        .collect();
    for j in 0..s.targets.cells.len() {
        let (r, i) = s.targets.cells[j];
        let g = &guards[s.targets.arrays.partition_point(|&a| a < r)];
        // Widths are at most 64 bits (checked at start).
        s.put_register(j, g[i] as u64);
    }
    for k in 0..s.targets.counters.len() {
        let now = counter_now(l, s.targets.counters[k]);
        s.put_counter(k, now);
    }
}

/// (packets, bytes) of a counter cell.
fn counter_now(l: &Loaded, (c, i): (usize, usize)) -> (u64, u64) {
    let (p, b) = &l.rt.counters[c][i];
    (p.load(Ordering::Relaxed), b.load(Ordering::Relaxed))
}

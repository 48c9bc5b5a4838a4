//! The v1model switch: parser -> verify checksum -> ingress -> traffic
//! manager -> egress -> compute checksum -> deparser -> transmit, with
//! BMv2's standard_metadata semantics. Here: the switch's state and the
//! packet entry points; `ingress.rs` and `egress.rs` the two halves;
//! `queues.rs` time, queue and link settings; `snapshot.rs` a queue's
//! depth and register cells read at one instant; `monitor.rs` the queue
//! monitor's API and samples; `threads.rs` the event loop that
//! takes packets from interface ports and, in real time, runs egress at each
//! departure; `readiness.rs` what it sleeps on; `waker.rs` how other
//! threads wake it. The control plane's API:
//! `control_plane.rs` tables and value sets, `externs.rs` registers,
//! counters and meters, `replication.rs` multicast groups and clone
//! sessions.

mod action_profiles;
mod control_plane;
mod egress;
mod externs;
mod ingress;
mod monitor;
mod queues;
mod readiness;
mod replication;
mod snapshot;
mod threads;
mod waker;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;

use crate::clock::Clock;
use crate::cpu::Mailbox;
use crate::error::{ApiError, ApiResult};
use crate::lateness::{LatenessHistogram, LatenessSnapshot};
use crate::links::Links;
use crate::monitor::Monitor;
use crate::packet::Phv;
use crate::pipeline::{Runtime, DROP_PORT};
use crate::ports::{AfPacket, MemoryOutput, Port, Ports};
use crate::pre::Pre;
use crate::program::{self, width_mask, Program};
use crate::sync::{lock, read_lock, write_lock};
use crate::tm::{Rate, TrafficManager};

pub use control_plane::ApiKey;
pub use monitor::MonitorRequest;
pub use snapshot::QueueSnapshot;
use waker::Waker;

/// A program with its run-time state.
pub struct Loaded {
    pub prog: Program,
    pub rt: Runtime,
    /// Distinguishes programs, so per-thread scratch and queued packets laid
    /// out for an older PHV are rebuilt or dropped.
    generation: u64,
}

/// Per-thread scratch state: reused for every packet.
#[derive(Default)]
pub struct Ctx {
    phv: Phv,
    /// The headers as parsed, before ingress: what an ingress clone carries.
    parsed: Phv,
    key: Vec<u128>,
    scratch: Vec<u8>,
    hash_buf: Vec<u8>,
    out: Vec<u8>,
    /// The last packet a link landed: its buffer goes back to the links
    /// with the next one.
    landed: Vec<u8>,
    generation: u64,
}

/// Construction options (the Python constructor's arguments).
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub seed: u64,
    pub virtual_time: bool,
    pub priority_queues: usize,
    pub cpu_port: Option<u32>,
    /// BMv2's action-level register locking (see `Runtime::atomic_actions`);
    /// false only to show what it guarantees.
    pub atomic_actions: bool,
    /// SCHED_FIFO priority (1..=99) of the event loop, or normal scheduling.
    pub realtime_priority: Option<i32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: 0,
            virtual_time: false,
            priority_queues: 1,
            cpu_port: None,
            atomic_actions: true,
            realtime_priority: None,
        }
    }
}

/// Queue settings from `set_queue`; `None` depth fields leave the depth
/// unchanged unless the other one is given.
#[derive(Debug, Clone, Copy)]
pub struct QueueSettings {
    pub rate: Rate,
    pub depth_pkts: Option<usize>,
    pub depth_bytes: Option<usize>,
}

pub struct Switch {
    pub(crate) state: RwLock<Option<Loaded>>,
    ports: RwLock<Ports>,
    memory: MemoryOutput,
    trace: AtomicBool,
    pub(crate) clock: Clock,
    seed: u64,
    atomic_actions: bool,
    realtime_priority: Option<i32>,
    generation: AtomicU64,
    inject_ctx: Mutex<Ctx>,
    running: AtomicBool,
    threads: Mutex<Vec<JoinHandle<()>>>,
    /// Taken under `state`, `inject_ctx`, `egress_turn` and the monitor's
    /// sampler, never the other way round; `links` and `pre` are taken
    /// under it. Register locks come after it: `queue_snapshot` and the
    /// monitor's samples take them while holding it, and no thread takes it
    /// while holding one, since actions run outside it (ingress locks it
    /// after its control, egress only around pop and recycle) and no
    /// primitive takes it.
    tm: Mutex<TrafficManager>,
    /// Wakes the event loop for an event earlier than it sleeps until.
    waker: Waker,
    /// When the sleeping event loop will wake by itself (ns); 0 while it is
    /// awake. Written under `tm`.
    loop_wakes_ns: AtomicU64,
    /// Held from taking a departure to its transmission; taken before `tm`.
    egress_turn: Mutex<()>,
    pub(crate) pre: RwLock<Pre>,
    /// Taken after `tm` when both are needed.
    links: Mutex<Links>,
    /// Some interface's transmit ring holds packets not yet flushed.
    tx_pending: AtomicBool,
    /// Some port has had a link delay or a packet in transmission: only
    /// then does a packet look at `links`.
    links_active: AtomicBool,
    cpu_port: Option<u32>,
    pub(crate) packet_ins: Mailbox<Vec<u8>>,
    pub(crate) digests: Mailbox<(String, Vec<Vec<u8>>)>,
    /// The queue monitor (src/monitor/): its sampler lock comes after
    /// `state` and `inject_ctx`, before `tm`; its ring's lock is a leaf.
    monitor: Monitor,
    /// How late each packet reached its port: the emulation's fidelity.
    lateness: LatenessHistogram,
}

/// Big-endian bytes of a `width`-bit value, in the fewest whole bytes.
pub fn value_bytes(v: u128, width: u32) -> Vec<u8> {
    let n = (width.div_ceil(8).max(1) as usize).min(16);
    (v & width_mask(width)).to_be_bytes()[16 - n..].to_vec()
}

impl Switch {
    pub fn new(seed: u64) -> Self {
        Self::with_options(Options {
            seed,
            ..Options::default()
        })
    }

    pub fn with_options(o: Options) -> Self {
        Switch {
            state: RwLock::new(None),
            ports: RwLock::new(Ports::default()),
            memory: MemoryOutput::default(),
            trace: AtomicBool::new(false),
            clock: Clock::new(o.virtual_time),
            seed: o.seed,
            atomic_actions: o.atomic_actions,
            realtime_priority: o.realtime_priority,
            generation: AtomicU64::new(0),
            inject_ctx: Mutex::new(Ctx::default()),
            running: AtomicBool::new(false),
            threads: Mutex::new(Vec::new()),
            tm: Mutex::new(TrafficManager::new(o.priority_queues)),
            waker: Waker::new().expect("an eventfd for the switch's event loop"),
            loop_wakes_ns: AtomicU64::new(0),
            egress_turn: Mutex::new(()),
            pre: RwLock::new(Pre::default()),
            links: Mutex::new(Links::default()),
            links_active: AtomicBool::new(false),
            tx_pending: AtomicBool::new(false),
            cpu_port: o.cpu_port,
            packet_ins: Mailbox::default(),
            digests: Mailbox::default(),
            monitor: Monitor::default(),
            lateness: LatenessHistogram::default(),
        }
    }

    fn add_port(&self, port: u32, p: Port) -> ApiResult<()> {
        if self.running.load(Ordering::SeqCst) {
            return Err(ApiError::Invalid(
                "ports must be added before start()".into(),
            ));
        }
        if port >= DROP_PORT as u32 {
            return Err(ApiError::Invalid(format!(
                "port {port} out of range (0..510; 511 is the drop port)"
            )));
        }
        let mut ports = write_lock(&self.ports);
        if ports.by_number.contains_key(&port) {
            return Err(ApiError::Invalid(format!("port {port} already added")));
        }
        ports.by_number.insert(port, p);
        Ok(())
    }

    pub fn add_interface(&self, port: u32, ifname: &str) -> ApiResult<()> {
        let sock = AfPacket::open(ifname)
            .map_err(|e| ApiError::Invalid(format!("interface '{ifname}' (port {port}): {e}")))?;
        self.add_port(port, Port::Interface(Arc::new(sock)))
    }

    pub fn add_memory_port(&self, port: u32) -> ApiResult<()> {
        self.add_port(port, Port::Memory)
    }

    pub fn load_pipeline(&self, json: &[u8]) -> ApiResult<()> {
        let prog = program::load(json).map_err(ApiError::Invalid)?;
        let rt = Runtime::new(&prog, self.seed, self.atomic_actions);
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let mut state = write_lock(&self.state);
        *state = Some(Loaded {
            prog,
            rt,
            generation,
        });
        self.monitor_program_changed();
        // Queued packets were laid out for the old program.
        lock(&self.tm).clear();
        Ok(())
    }

    pub fn has_pipeline(&self) -> bool {
        read_lock(&self.state).is_some()
    }

    pub fn set_trace(&self, on: bool) {
        self.trace.store(on, Ordering::Relaxed);
    }

    pub fn take_output(&self) -> Vec<(u32, Vec<u8>)> {
        self.memory
            .take()
            .into_iter()
            .map(|(p, d, _)| (p, d))
            .collect()
    }

    /// Outputs with their departure time in ns since start.
    pub fn take_output_timed(&self) -> Vec<(u32, Vec<u8>, u64)> {
        self.memory.take()
    }

    pub fn now_us(&self) -> u64 {
        self.clock.now_us()
    }

    /// How late packets reached their ports since the switch started,
    /// against their scheduled departure or landing.
    pub fn lateness(&self) -> LatenessSnapshot {
        self.lateness.snapshot()
    }

    pub fn cpu_port(&self) -> Option<u32> {
        self.cpu_port
    }

    /// Runs one packet through ingress on the caller's thread, then every
    /// departure due now: with unlimited rates (the default) the packet is
    /// out of egress when this returns.
    pub fn inject(&self, port: u32, data: &[u8]) -> ApiResult<()> {
        if port >= DROP_PORT as u32 {
            return Err(ApiError::Invalid(format!(
                "port {port} out of range (0..510)"
            )));
        }
        let state = read_lock(&self.state);
        let loaded = state
            .as_ref()
            .ok_or_else(|| ApiError::Invalid("no pipeline loaded".into()))?;
        let mut ctx = lock(&self.inject_ctx);
        if !self.clock.is_virtual() {
            // The monitor's instants passed are recorded before this packet
            // changes the queues.
            self.monitor_catch_up(state.as_ref());
        }
        self.receive(loaded, &mut ctx, port, data);
        self.run_due(loaded, &mut ctx);
        self.flush_ports();
        Ok(())
    }

    /// Packet-out: the packet enters ingress with ingress_port = cpu_port.
    pub fn packet_out(&self, data: &[u8]) -> ApiResult<()> {
        let port = self.cpu_port.ok_or_else(|| {
            ApiError::Invalid("packet_out needs a cpu_port (given at construction)".into())
        })?;
        self.inject(port, data)
    }
}

//! The v1model switch: parser -> verify checksum -> ingress -> queue ->
//! egress -> compute checksum -> deparser -> transmit, with BMv2's
//! standard_metadata semantics, plus the packet thread for interface ports.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::checksum;
use crate::packet::{deparser, parser, Phv};
use crate::pipeline::{Exec, Runtime, DROP_PORT};
use crate::ports::{AfPacket, MemoryOutput, Port, Ports};
use crate::program::{self, Program};
use crate::queue::Queues;

/// Errors of the control-plane API; python.rs maps them to KeyError and
/// ValueError.
#[derive(Debug)]
pub enum ApiError {
    NotFound(String),
    Invalid(String),
}

pub type ApiResult<T> = Result<T, ApiError>;

/// A program with its run-time state.
pub struct Loaded {
    pub prog: Program,
    pub rt: Runtime,
    /// Distinguishes programs, so per-thread scratch sized for an older PHV
    /// layout is rebuilt.
    generation: u64,
}

/// Per-thread scratch state: reused for every packet.
#[derive(Default)]
pub struct Ctx {
    phv: Phv,
    key: Vec<u128>,
    scratch: Vec<u8>,
    hash_buf: Vec<u8>,
    out: Vec<u8>,
    queues: Queues,
    generation: u64,
}

const POLL_TIMEOUT_MS: i32 = 100;
/// Packets taken from one socket before moving to the next, for fairness.
const RX_BATCH: usize = 64;
const RX_BUF: usize = 65536;

pub struct Switch {
    pub(crate) state: RwLock<Option<Loaded>>,
    ports: RwLock<Ports>,
    memory: MemoryOutput,
    trace: AtomicBool,
    epoch: Instant,
    seed: u64,
    generation: AtomicU64,
    inject_ctx: Mutex<Ctx>,
    running: AtomicBool,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

fn lock_err<T>(e: std::sync::PoisonError<T>) -> T {
    e.into_inner()
}

impl Switch {
    pub fn new(seed: u64) -> Self {
        Switch {
            state: RwLock::new(None),
            ports: RwLock::new(Ports::default()),
            memory: MemoryOutput::default(),
            trace: AtomicBool::new(false),
            epoch: Instant::now(),
            seed,
            generation: AtomicU64::new(0),
            inject_ctx: Mutex::new(Ctx::default()),
            running: AtomicBool::new(false),
            threads: Mutex::new(Vec::new()),
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
        let mut ports = self.ports.write().unwrap_or_else(lock_err);
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
        let rt = Runtime::new(&prog, self.seed);
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        *self.state.write().unwrap_or_else(lock_err) = Some(Loaded {
            prog,
            rt,
            generation,
        });
        Ok(())
    }

    pub fn has_pipeline(&self) -> bool {
        self.state.read().unwrap_or_else(lock_err).is_some()
    }

    pub fn set_trace(&self, on: bool) {
        self.trace.store(on, Ordering::Relaxed);
    }

    pub fn take_output(&self) -> Vec<(u32, Vec<u8>)> {
        self.memory.take()
    }

    /// Runs one packet through the whole pipeline on the caller's thread.
    pub fn inject(&self, port: u32, data: &[u8]) -> ApiResult<()> {
        if port >= DROP_PORT as u32 {
            return Err(ApiError::Invalid(format!(
                "port {port} out of range (0..510)"
            )));
        }
        let state = self.state.read().unwrap_or_else(lock_err);
        let loaded = state
            .as_ref()
            .ok_or_else(|| ApiError::Invalid("no pipeline loaded".into()))?;
        let mut ctx = self.inject_ctx.lock().unwrap_or_else(lock_err);
        self.process(loaded, &mut ctx, port, data);
        Ok(())
    }

    fn now_us(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
    }

    /// Ingress half: parse, verify, ingress control, enqueue; then drains
    /// the queues through egress.
    fn process(&self, l: &Loaded, ctx: &mut Ctx, in_port: u32, data: &[u8]) {
        let prog = &l.prog;
        let trace = self.trace.load(Ordering::Relaxed);
        if ctx.generation != l.generation {
            ctx.phv = Phv::new(prog);
            ctx.queues.clear();
            ctx.generation = l.generation;
        }
        let phv = &mut ctx.phv;
        phv.reset(prog);
        let now = self.now_us();
        let std = &prog.std;
        phv.set_opt(prog, std.ingress_port, u128::from(in_port));
        phv.set_opt(prog, std.packet_length, data.len() as u128);
        phv.set_opt(prog, std.instance_type, 0);
        phv.set_opt(prog, std.ingress_global_timestamp, u128::from(now));
        if trace {
            eprintln!("[dp] packet in on port {in_port}, {} bytes", data.len());
        }
        let mut exec = Exec {
            prog,
            rt: &l.rt,
            trace,
            packet_len: data.len() as u32,
            key: &mut ctx.key,
            buf: &mut ctx.hash_buf,
        };
        let off = parser::parse(&mut exec, phv, data);
        let payload = &data[off..];
        checksum::verify(prog, phv, payload, &mut ctx.scratch, trace);
        exec.run_control(phv, &prog.ingress);
        let mcast = phv.get_opt(std.mcast_grp);
        let spec = phv.get_opt(std.egress_spec);
        if mcast != 0 {
            if trace {
                eprintln!(
                    "[dp]   dropped: multicast group {mcast} (multicast is not supported yet)"
                );
            }
            return;
        }
        if spec == DROP_PORT {
            if trace {
                eprintln!("[dp]   dropped in ingress (egress_spec = 511)");
            }
            return;
        }
        if !ctx.queues.enqueue(spec as u32, phv, payload, now) {
            if trace {
                eprintln!("[dp]   dropped: queue of port {spec} is full");
            }
            return;
        }
        self.drain(l, ctx, trace);
    }

    /// Egress half: for each queued packet, egress control, checksum update,
    /// deparse and transmit.
    fn drain(&self, l: &Loaded, ctx: &mut Ctx, trace: bool) {
        let prog = &l.prog;
        let std = &prog.std;
        while let Some((mut q, left)) = ctx.queues.dequeue() {
            let now = self.now_us();
            let phv = &mut q.phv;
            phv.set_opt(prog, std.egress_port, u128::from(q.port));
            // BMv2 clears egress_spec before egress so that mark_to_drop there
            // can be detected.
            phv.set_opt(prog, std.egress_spec, 0);
            phv.set_opt(prog, std.enq_timestamp, u128::from(q.enq_us));
            phv.set_opt(prog, std.enq_qdepth, q.enq_qdepth as u128);
            phv.set_opt(
                prog,
                std.deq_timedelta,
                u128::from(now.saturating_sub(q.enq_us)),
            );
            phv.set_opt(prog, std.deq_qdepth, left as u128);
            phv.set_opt(prog, std.egress_global_timestamp, u128::from(now));
            if trace {
                eprintln!("[dp]   dequeued for port {}", q.port);
            }
            let mut exec = Exec {
                prog,
                rt: &l.rt,
                trace,
                packet_len: phv.get_opt(std.packet_length) as u32,
                key: &mut ctx.key,
                buf: &mut ctx.hash_buf,
            };
            exec.run_control(phv, &prog.egress);
            if phv.get_opt(std.egress_spec) == DROP_PORT {
                if trace {
                    eprintln!("[dp]   dropped in egress (egress_spec = 511)");
                }
            } else {
                checksum::update(prog, phv, &q.payload, &mut ctx.scratch);
                deparser::deparse(prog, phv, &q.payload, &mut ctx.out);
                self.transmit(q.port, &ctx.out, trace);
            }
            ctx.queues.recycle(q);
        }
    }

    fn transmit(&self, port: u32, data: &[u8], trace: bool) {
        let ports = self.ports.read().unwrap_or_else(lock_err);
        match ports.by_number.get(&port) {
            Some(Port::Memory) => {
                let sent = self.memory.push(port, data);
                if trace {
                    if sent {
                        eprintln!("[dp]   sent {} bytes on port {port}", data.len());
                    } else {
                        eprintln!("[dp]   dropped: output of memory port {port} is full");
                    }
                }
            }
            Some(Port::Interface(s)) => {
                let r = s.send(data);
                if trace {
                    match r {
                        Ok(()) => eprintln!(
                            "[dp]   sent {} bytes on port {port} ({})",
                            data.len(),
                            s.ifname
                        ),
                        Err(e) => {
                            eprintln!("[dp]   send on port {port} ({}) failed: {e}", s.ifname)
                        }
                    }
                }
            }
            None => {
                if trace {
                    eprintln!("[dp]   dropped: no port {port}");
                }
            }
        }
    }

    /// Starts the packet thread for interface ports (if any). Idempotent.
    pub fn start(self: &Arc<Self>) -> ApiResult<()> {
        if self.running.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let ifs = self.ports.read().unwrap_or_else(lock_err).interfaces();
        if ifs.is_empty() {
            return Ok(());
        }
        let sw = Arc::clone(self);
        let h = std::thread::Builder::new()
            .name("p4dp-rx".into())
            .spawn(move || sw.rx_loop(&ifs))
            .map_err(|e| ApiError::Invalid(format!("cannot start packet thread: {e}")))?;
        self.threads.lock().unwrap_or_else(lock_err).push(h);
        Ok(())
    }

    /// Stops and joins the packet threads. Idempotent.
    pub fn stop(&self) {
        self.running.store(false, Ordering::SeqCst);
        let handles: Vec<_> = self
            .threads
            .lock()
            .unwrap_or_else(lock_err)
            .drain(..)
            .collect();
        for h in handles {
            let _ = h.join();
        }
    }

    fn rx_loop(&self, ifs: &[(u32, Arc<AfPacket>)]) {
        let mut fds: Vec<libc::pollfd> = ifs
            .iter()
            .map(|(_, s)| libc::pollfd {
                fd: s.raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let mut buf = vec![0u8; RX_BUF];
        let mut ctx = Ctx::default();
        while self.running.load(Ordering::SeqCst) {
            // SAFETY: fds is a valid array of pollfd for its length.
            let n =
                unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, POLL_TIMEOUT_MS) };
            if n <= 0 {
                if n < 0 {
                    std::thread::sleep(Duration::from_millis(1));
                }
                continue;
            }
            for (i, (port, sock)) in ifs.iter().enumerate() {
                if fds[i].revents & (libc::POLLHUP | libc::POLLNVAL) != 0 {
                    // The interface is gone; a negative fd makes poll skip it
                    // instead of waking us in a busy loop.
                    fds[i].fd = -1;
                    continue;
                }
                if fds[i].revents & (libc::POLLIN | libc::POLLERR) == 0 {
                    continue;
                }
                for _ in 0..RX_BATCH {
                    match sock.recv(&mut buf) {
                        Ok(Some(len)) => {
                            let state = self.state.read().unwrap_or_else(lock_err);
                            if let Some(l) = state.as_ref() {
                                self.process(l, &mut ctx, *port, &buf[..len.min(RX_BUF)]);
                            }
                        }
                        Ok(None) | Err(_) => break,
                    }
                }
            }
        }
    }
}

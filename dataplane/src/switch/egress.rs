//! The egress half: runs at each departure (and lands what the links
//! delayed): egress control, checksum update, deparse, then transmit,
//! recirculate or clone.

use std::sync::atomic::Ordering;

use super::ingress::{Origin, Pass, FROM_PORT, INSTANCE_EGRESS_CLONE, INSTANCE_RECIRC};
use super::{Ctx, Loaded, Switch};
use crate::links::Direction;
use crate::packet::{deparser, Phv};
use crate::pipeline::checksum;
use crate::pipeline::{Effects, Exec, DROP_PORT};
use crate::ports::Port;
use crate::program::Program;
use crate::sync::{lock, read_lock};
use crate::tm::{Queued, TrafficManager};

/// standard_metadata as a queued packet enters egress at `now`, with
/// `deq_qdepth` packets left behind it.
fn set_egress_metadata(prog: &Program, q: &mut Queued, deq_qdepth: usize, now: u64) {
    let std = &prog.std;
    let phv = &mut q.phv;
    phv.set_opt(prog, std.egress_port, u128::from(q.port));
    // BMv2 clears egress_spec before egress so that mark_to_drop there
    // can be detected.
    phv.set_opt(prog, std.egress_spec, 0);
    phv.set_opt(prog, std.enq_timestamp, u128::from(q.enq_ns / 1000));
    phv.set_opt(prog, std.enq_qdepth, q.enq_qdepth as u128);
    phv.set_opt(
        prog,
        std.deq_timedelta,
        u128::from(now / 1000 - q.enq_ns.min(now) / 1000),
    );
    phv.set_opt(prog, std.deq_qdepth, deq_qdepth as u128);
    phv.set_opt(prog, std.qid, q.qid as u128);
    phv.set_opt(prog, std.egress_global_timestamp, u128::from(now / 1000));
}

/// Checksum update, the deparser's primitives, then the packet's bytes into
/// `out`; returns the effects of the deparser's primitives.
fn deparse_packet(
    exec: &mut Exec,
    phv: &mut Phv,
    payload: &[u8],
    scratch: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> Effects {
    let prog = exec.prog;
    checksum::update(prog, phv, payload, scratch);
    for p in &prog.deparser_primitives {
        exec.primitive(phv, &[], p);
    }
    deparser::deparse(prog, phv, payload, out);
    exec.effects
}

impl Switch {
    /// Runs egress for every packet due at the clock's current time, and
    /// lands every packet whose link delay is over.
    pub(super) fn run_due(&self, l: &Loaded, ctx: &mut Ctx) {
        loop {
            // One thread at a time takes and finishes a departure, so the
            // event loop and caller threads keep each queue's order.
            let _turn = lock(&self.egress_turn);
            let now = self.clock.now_ns();
            let next = lock(&self.tm).pop_due(now);
            if let Some((q, left)) = next {
                self.egress(l, ctx, q, left, now);
                continue;
            }
            if !self.links_active.load(Ordering::Relaxed) {
                break;
            }
            let landed = lock(&self.links).pop_landed(now, &mut ctx.landed);
            let Some(p) = landed else { break };
            // Out of `ctx` while ingress borrows it; back in for the links
            // to reuse.
            let data = std::mem::take(&mut ctx.landed);
            match p.dir {
                Direction::In => self.process(l, ctx, p.port, &data, &FROM_PORT),
                // Stamped with the scheduled time, not this thread's
                // (possibly late) wake-up.
                Direction::Out => {
                    let trace = self.trace.load(Ordering::Relaxed);
                    self.deliver(p.port, &data, p.lands_ns, trace);
                }
            }
            ctx.landed = data;
        }
    }

    /// Egress half: egress control, checksum update, deparse and transmit
    /// (or recirculate).
    pub(super) fn egress(
        &self,
        l: &Loaded,
        ctx: &mut Ctx,
        mut q: Queued,
        deq_qdepth: usize,
        now: u64,
    ) {
        let prog = &l.prog;
        let std = &prog.std;
        let trace = self.trace.load(Ordering::Relaxed);
        if q.generation != l.generation {
            lock(&self.tm).recycle(q);
            return;
        }
        set_egress_metadata(prog, &mut q, deq_qdepth, now);
        if trace {
            eprintln!(
                "[dp] dequeued for port {} (queue {}, {} left)",
                q.port, q.qid, deq_qdepth
            );
        }
        let phv = &mut q.phv;
        let mut exec = Exec {
            prog,
            rt: &l.rt,
            trace,
            packet_len: phv.get_opt(std.packet_length) as u32,
            now_ns: now,
            key: &mut ctx.key,
            buf: &mut ctx.hash_buf,
            effects: Effects::default(),
        };
        exec.run_control(phv, &prog.egress);
        let effects = std::mem::take(&mut exec.effects);
        if effects.digest.is_some() && trace {
            eprintln!("[dp]   generate_digest in egress is ignored, as in BMv2");
        }
        let mut sent = false;
        let mut recirculate = None;
        if phv.get_opt(std.egress_spec) == DROP_PORT {
            if trace {
                eprintln!("[dp]   dropped in egress (egress_spec = 511)");
            }
        } else {
            // simple_switch reads the recirculate flag and the truncation
            // length after the deparser, so the deparser's own calls count.
            let late = deparse_packet(&mut exec, phv, &q.payload, &mut ctx.scratch, &mut ctx.out);
            if let Some(n) = late.truncate.or(effects.truncate).or(q.truncate) {
                ctx.out.truncate(n as usize);
            }
            match late.recirculate.or(effects.recirculate) {
                // BMv2: a recirculated packet is not transmitted; its bytes
                // as deparsed enter ingress again on its ingress port.
                Some(fl) => {
                    let again = Origin::again(prog, phv, fl, INSTANCE_RECIRC, q.passes);
                    let port = phv.get_opt(std.ingress_port) as u32;
                    recirculate = Some((port, ctx.out.clone(), again));
                }
                None => {
                    let depart_ns = q.depart_ps.div_ceil(1000);
                    sent = self.transmit(q.port, &ctx.out, now, depart_ns, trace);
                }
            }
        }
        let mut tm = lock(&self.tm);
        if sent {
            tm.port(q.port).tx_packets += 1;
        }
        if let Some((s, _)) = effects.clone {
            self.clone_egress(&mut tm, l, &mut q, s, now, trace);
        }
        tm.recycle(q);
        drop(tm);
        if let Some((port, data, again)) = recirculate {
            self.pass_again(l, ctx, port, &data, again, trace);
        }
    }

    /// An egress clone: the packet as egress left it, to each replica of
    /// the session.
    fn clone_egress(
        &self,
        tm: &mut TrafficManager,
        l: &Loaded,
        q: &mut Queued,
        session: u32,
        now: u64,
        trace: bool,
    ) {
        q.phv
            .set_opt(&l.prog, l.prog.std.instance_type, INSTANCE_EGRESS_CLONE);
        let pass = Pass {
            now,
            trace,
            passes: q.passes,
            truncate: None,
        };
        self.clone_to_session(tm, l, &mut q.phv, &q.payload, session, &pass);
    }

    /// Sends a packet whose transmission ends at `depart_ns` through the
    /// port's link; true if it left the switch.
    pub(super) fn transmit(
        &self,
        port: u32,
        data: &[u8],
        now_ns: u64,
        depart_ns: u64,
        trace: bool,
    ) -> bool {
        let serializing = depart_ns > now_ns;
        if serializing || self.links_active.load(Ordering::Relaxed) {
            let mut links = lock(&self.links);
            // A thread that woke late may take this packet before landing the
            // port's previous one: it queues behind it on the wire, in order.
            if serializing || links.delay_ns(port) > 0 || links.holds_out(port) {
                // Set before the packet is on the wire, so run_due looks.
                self.links_active.store(true, Ordering::SeqCst);
                let lands_ns = links.send(Direction::Out, port, data, depart_ns);
                drop(links);
                if trace {
                    eprintln!(
                        "[dp]   transmitting on port {port} until {depart_ns} ns, then the link"
                    );
                }
                self.wake_for(lands_ns);
                return true;
            }
        }
        // Stamped with its scheduled departure, not a late thread's clock.
        self.deliver(port, data, depart_ns.min(now_ns), trace)
    }

    /// Hands a packet scheduled for `scheduled_ns` to its port (or the
    /// controller), counting how late the clock says it is; true if it left.
    pub(super) fn deliver(&self, port: u32, data: &[u8], scheduled_ns: u64, trace: bool) -> bool {
        self.lateness.record(scheduled_ns, self.clock.now_ns());
        if Some(port) == self.cpu_port {
            let kept = self.packet_ins.push(data.to_vec());
            if trace {
                let what = if kept {
                    "kept"
                } else {
                    "dropped (mailbox full)"
                };
                eprintln!("[dp]   packet-in of {} bytes {what}", data.len());
            }
            return kept;
        }
        let ports = read_lock(&self.ports);
        match ports.by_number.get(&port) {
            Some(Port::Memory) => {
                let sent = self.memory.push(port, data, scheduled_ns);
                if trace {
                    if sent {
                        eprintln!("[dp]   sent {} bytes on port {port}", data.len());
                    } else {
                        eprintln!("[dp]   dropped: output of memory port {port} is full");
                    }
                }
                sent
            }
            Some(Port::Interface(s)) => {
                let r = s.send(data);
                self.tx_pending.store(true, Ordering::Relaxed);
                if trace {
                    match &r {
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
                r.is_ok()
            }
            None => {
                if trace {
                    eprintln!("[dp]   dropped: no port {port}");
                }
                false
            }
        }
    }

    /// Sends what the ports' transmit rings hold. Every thread that runs
    /// `run_due` calls this when its batch of work is done.
    pub(super) fn flush_ports(&self) {
        if !self.tx_pending.swap(false, Ordering::Relaxed) {
            return;
        }
        let ports = read_lock(&self.ports);
        for p in ports.by_number.values() {
            if let Port::Interface(s) = p {
                if let Err(e) = s.flush() {
                    if self.trace.load(Ordering::Relaxed) {
                        eprintln!("[dp]   sending on {} failed: {e}", s.ifname);
                    }
                }
            }
        }
    }
}

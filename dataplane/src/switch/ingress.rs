//! The ingress half: parse, verify, ingress control, then the packet's
//! copies into the traffic manager (clone, resubmit, multicast or unicast).

use std::sync::atomic::Ordering;

use super::{value_bytes, Ctx, Loaded, Switch};
use crate::links::Direction;
use crate::packet::{deparser, Phv};
use crate::pipeline::checksum;
use crate::pipeline::{parser, Effects, Exec, DROP_PORT};
use crate::program::Program;
use crate::sync::{lock, read_lock};
use crate::tm::{Arrival, TrafficManager};

/// BMv2's standard_metadata.instance_type values.
pub(super) const INSTANCE_NORMAL: u128 = 0;
pub(super) const INSTANCE_INGRESS_CLONE: u128 = 1;
pub(super) const INSTANCE_EGRESS_CLONE: u128 = 2;
pub(super) const INSTANCE_RECIRC: u128 = 4;
pub(super) const INSTANCE_REPLICATION: u128 = 5;
pub(super) const INSTANCE_RESUBMIT: u128 = 6;

/// Passes through ingress one packet may make by resubmit and recirculate.
pub(super) const MAX_PASSES: u8 = 16;

/// How a packet enters ingress: from a port, or again after resubmit or
/// recirculate with the metadata its field list keeps.
pub(super) struct Origin {
    instance_type: u128,
    /// Earlier passes through ingress.
    passes: u8,
    preserved: Vec<(usize, u128)>,
}

pub(super) const FROM_PORT: Origin = Origin {
    instance_type: INSTANCE_NORMAL,
    passes: 0,
    preserved: Vec::new(),
};

impl Origin {
    pub(super) fn again(
        prog: &Program,
        phv: &Phv,
        fl: Option<usize>,
        instance_type: u128,
        passes: u8,
    ) -> Self {
        Origin {
            instance_type,
            passes: passes.saturating_add(1),
            preserved: fl
                .map_or(&[][..], |i| &prog.field_lists[i])
                .iter()
                .map(|&f| (f, phv.get(f)))
                .collect(),
        }
    }
}

/// Per-packet facts the enqueue path needs.
#[derive(Clone, Copy)]
pub(super) struct Pass {
    pub(super) now: u64,
    pub(super) trace: bool,
    pub(super) passes: u8,
    pub(super) truncate: Option<u32>,
}

/// standard_metadata as a packet enters ingress at `now`, after the
/// metadata its origin preserved.
fn set_ingress_metadata(
    prog: &Program,
    phv: &mut Phv,
    origin: &Origin,
    in_port: u32,
    len: usize,
    now: u64,
) {
    let std = &prog.std;
    for &(f, v) in &origin.preserved {
        phv.set(prog, f, v);
    }
    phv.set_opt(prog, std.ingress_port, u128::from(in_port));
    phv.set_opt(prog, std.packet_length, len as u128);
    phv.set_opt(prog, std.instance_type, origin.instance_type);
    phv.set_opt(prog, std.ingress_global_timestamp, u128::from(now / 1000));
}

/// An ingress clone carries the packet as parsed, with the metadata of its
/// field list as ingress left it.
fn prepare_ingress_clone(prog: &Program, parsed: &mut Phv, phv: &Phv, fl: Option<usize>) {
    for &f in fl.map_or(&[][..], |i| &prog.field_lists[i]) {
        parsed.set(prog, f, phv.get(f));
    }
    parsed.set_opt(prog, prog.std.instance_type, INSTANCE_INGRESS_CLONE);
}

impl Switch {
    /// A packet arriving on a port: through the link's delay, if any, then
    /// ingress.
    pub(super) fn receive(&self, l: &Loaded, ctx: &mut Ctx, port: u32, data: &[u8]) {
        if self.links_active.load(Ordering::Relaxed) {
            let mut links = lock(&self.links);
            if links.delay_ns(port) > 0 {
                let lands_ns = links.send(Direction::In, port, data, self.clock.now_ns());
                drop(links);
                self.wake_for(lands_ns);
                return;
            }
        }
        self.process(l, ctx, port, data, &FROM_PORT);
    }

    /// Ingress half: parse, verify, ingress control, then the packet's
    /// copies into the traffic manager (clone, resubmit, multicast or
    /// unicast).
    pub(super) fn process(
        &self,
        l: &Loaded,
        ctx: &mut Ctx,
        in_port: u32,
        data: &[u8],
        origin: &Origin,
    ) {
        let prog = &l.prog;
        let trace = self.trace.load(Ordering::Relaxed);
        if ctx.generation != l.generation {
            ctx.phv = Phv::new(prog);
            ctx.parsed = Phv::new(prog);
            ctx.generation = l.generation;
        }
        let phv = &mut ctx.phv;
        phv.reset(prog);
        let now = self.clock.now_ns();
        set_ingress_metadata(prog, phv, origin, in_port, data.len(), now);
        if trace {
            eprintln!(
                "[dp] packet in on port {in_port}, {} bytes (instance type {})",
                data.len(),
                origin.instance_type
            );
        }
        let mut exec = Exec {
            prog,
            rt: &l.rt,
            trace,
            packet_len: data.len() as u32,
            now_ns: now,
            key: &mut ctx.key,
            buf: &mut ctx.hash_buf,
            effects: Effects::default(),
        };
        let off = parser::parse(&mut exec, phv, data);
        let payload = &data[off..];
        checksum::verify(prog, phv, payload, &mut ctx.scratch, trace);
        if prog.clones_in_ingress {
            ctx.parsed.clone_from(phv);
        }
        exec.run_control(phv, &prog.ingress);
        let effects = exec.effects;
        if let Some(d) = effects.digest {
            self.digest(prog, phv, d, trace);
        }
        let pass = Pass {
            now,
            trace,
            passes: origin.passes,
            truncate: effects.truncate,
        };
        let mut tm = lock(&self.tm);
        if origin.instance_type == INSTANCE_NORMAL {
            tm.port(in_port).rx_packets += 1;
        }
        if let Some((s, fl)) = effects.clone {
            let parsed = &mut ctx.parsed;
            prepare_ingress_clone(prog, parsed, phv, fl);
            self.clone_to_session(&mut tm, l, parsed, payload, s, &pass);
        }
        if let Some(fl) = effects.resubmit {
            drop(tm);
            // BMv2: a resubmitted packet is not forwarded; the original
            // bytes go through ingress again.
            let again = Origin::again(prog, phv, fl, INSTANCE_RESUBMIT, origin.passes);
            self.pass_again(l, ctx, in_port, data, again, trace);
            return;
        }
        self.forward(&mut tm, l, phv, payload, &pass);
        if let Some(t) = tm.next_dequeue_ns() {
            self.wake_for_locked(&tm, t);
        }
    }

    /// Queues the packet ingress left where its metadata sends it: to each
    /// replica of its multicast group, else to its egress port unless that
    /// is the drop port.
    fn forward(
        &self,
        tm: &mut TrafficManager,
        l: &Loaded,
        phv: &mut Phv,
        payload: &[u8],
        pass: &Pass,
    ) {
        let prog = &l.prog;
        let std = &prog.std;
        let mcast = phv.get_opt(std.mcast_grp);
        let spec = phv.get_opt(std.egress_spec);
        if mcast != 0 {
            let pre = read_lock(&self.pre);
            match u32::try_from(mcast).ok().and_then(|g| pre.group(g)) {
                Some(replicas) => {
                    phv.set_opt(prog, std.instance_type, INSTANCE_REPLICATION);
                    for &(port, rid) in replicas {
                        phv.set_opt(prog, std.egress_rid, u128::from(rid));
                        self.enqueue(tm, l, phv, payload, port, pass);
                    }
                }
                None => {
                    if pass.trace {
                        eprintln!("[dp]   dropped: multicast group {mcast} does not exist");
                    }
                }
            }
        } else if spec == DROP_PORT {
            if pass.trace {
                eprintln!("[dp]   dropped in ingress (egress_spec = 511)");
            }
        } else {
            self.enqueue(tm, l, phv, payload, spec as u32, pass);
        }
    }

    /// Runs a resubmitted or recirculated packet through ingress, unless it
    /// has looped too often (a program that always resubmits must not hang
    /// the switch).
    pub(super) fn pass_again(
        &self,
        l: &Loaded,
        ctx: &mut Ctx,
        in_port: u32,
        data: &[u8],
        again: Origin,
        trace: bool,
    ) {
        if again.passes > MAX_PASSES {
            if trace {
                eprintln!("[dp]   dropped: more than {MAX_PASSES} resubmits/recirculations");
            }
            return;
        }
        self.process(l, ctx, in_port, data, &again);
    }

    pub(super) fn enqueue(
        &self,
        tm: &mut TrafficManager,
        l: &Loaded,
        phv: &Phv,
        payload: &[u8],
        port: u32,
        pass: &Pass,
    ) {
        let prog = &l.prog;
        let arrival = Arrival {
            port,
            priority: phv.get_opt(prog.std.priority),
            len: deparser::length(prog, phv, payload.len()),
            phv,
            payload,
            generation: l.generation,
            passes: pass.passes,
            truncate: pass.truncate,
        };
        let queued = tm.enqueue(&arrival, pass.now);
        if pass.trace {
            if queued {
                eprintln!("[dp]   queued for port {port}");
            } else {
                eprintln!("[dp]   dropped: queue of port {port} is full");
            }
        }
    }

    /// Queues one copy per replica of a clone session.
    pub(super) fn clone_to_session(
        &self,
        tm: &mut TrafficManager,
        l: &Loaded,
        phv: &mut Phv,
        payload: &[u8],
        session: u32,
        pass: &Pass,
    ) {
        let pre = read_lock(&self.pre);
        let Some(s) = pre.session(session) else {
            if pass.trace {
                eprintln!("[dp]   clone to session {session}: no such session, not cloned");
            }
            return;
        };
        let prog = &l.prog;
        if pass.trace {
            eprintln!("[dp]   clone to session {session}");
        }
        let clone_pass = Pass {
            truncate: match s.packet_length_bytes {
                0 => None,
                n => Some(n),
            },
            ..*pass
        };
        for &(port, rid) in &s.replicas {
            phv.set_opt(prog, prog.std.egress_rid, u128::from(rid));
            self.enqueue(tm, l, phv, payload, port, &clone_pass);
        }
    }

    pub(super) fn digest(&self, prog: &Program, phv: &Phv, list: usize, trace: bool) {
        let ll = &prog.learn_lists[list];
        let values = ll
            .fields
            .iter()
            .map(|&f| value_bytes(phv.get(f), prog.fields[f].width))
            .collect();
        let kept = self.digests.push((ll.name.clone(), values));
        if trace {
            let what = if kept {
                "sent"
            } else {
                "dropped (mailbox full)"
            };
            eprintln!("[dp]   digest {} {what}", ll.name);
        }
    }
}

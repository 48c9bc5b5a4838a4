//! The program's stages: the parser, then the match-action part:
//! expressions, actions, tables and the control flow that links them
//! (next_tables, conditionals), with the checksum calculations.

pub mod action_profile;
pub mod checksum;
pub mod expr;
mod externs;
mod header_writes;
mod log_text;
pub mod meter;
pub mod parser;
mod registers;
pub mod table;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::packet::Phv;
use crate::program::MeterUnit;
use crate::program::{
    ActionCall, Control, EntryAction, KeySource, LogArg, Node, Primitive, Program, Table,
};
use crate::sync::lock;
use action_profile::ProfileState;
use expr::eval;
use log_text::header_text;
use meter::Meter;
use registers::HeldRegisters;
use table::TableState;

/// Value BMv2's v1model uses for "drop" in egress_spec.
pub const DROP_PORT: u128 = 511;

/// Bound on primitives run by one action call. Actions loop (P4's `for`, as
/// backward jumps), and a packet must never hang the switch: 2^22 steps run
/// two nested loops over bit<8> counters many times over, in well under a
/// second; an action that gets there simply ends.
const MAX_ACTION_STEPS: usize = 1 << 22;

/// Run-time state of a loaded program: table entries and stateful externs.
#[derive(Debug)]
pub struct Runtime {
    pub tables: Vec<TableState>,
    pub action_profiles: Vec<ProfileState>,
    /// Lock order: ascending index, taken after the traffic manager's lock
    /// (switch/mod.rs) and before a meter's.
    pub registers: Vec<Mutex<Vec<u128>>>,
    /// Per counter array, per index: (packets, bytes).
    pub counters: Vec<Vec<(AtomicU64, AtomicU64)>>,
    /// Per meter array, per index (direct meters live in their tables).
    pub meters: Vec<Vec<Mutex<Meter>>>,
    /// An action holds every register array it references while it runs
    /// (BMv2's guarantee); false: each register primitive locks only for
    /// itself, so a read-modify-write in one action can lose updates.
    pub atomic_actions: bool,
    rng: AtomicU64,
}

impl Runtime {
    pub fn new(prog: &Program, seed: u64, atomic_actions: bool) -> Self {
        Runtime {
            tables: prog.tables.iter().map(TableState::new).collect(),
            action_profiles: prog
                .action_profiles
                .iter()
                .map(|_| ProfileState::default())
                .collect(),
            registers: prog
                .registers
                .iter()
                .map(|r| Mutex::new(vec![0; r.size]))
                .collect(),
            counters: prog
                .counters
                .iter()
                .map(|c| {
                    (0..c.size)
                        .map(|_| (AtomicU64::new(0), AtomicU64::new(0)))
                        .collect()
                })
                .collect(),
            meters: prog
                .meters
                .iter()
                .map(|m| (0..m.size).map(|_| Mutex::default()).collect())
                .collect(),
            atomic_actions,
            rng: AtomicU64::new(seed),
        }
    }

    /// splitmix64: seeded and lock-free, so runs are reproducible.
    fn random(&self) -> u64 {
        let mut z = self
            .rng
            .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed)
            .wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// What a control asked for besides changing the PHV; the switch acts on it
/// after the control, as BMv2 does (the last call of each kind wins).
#[derive(Debug, Default, Clone, Copy)]
pub struct Effects {
    /// Clone session, with the field list of metadata the clone keeps.
    pub clone: Option<(u32, Option<usize>)>,
    pub digest: Option<usize>,
    /// resubmit / recirculate, with the field list of metadata kept.
    pub resubmit: Option<Option<usize>>,
    pub recirculate: Option<Option<usize>>,
    pub truncate: Option<u32>,
}

/// Per-packet inputs of a control besides the PHV.
pub struct Exec<'a> {
    pub prog: &'a Program,
    pub rt: &'a Runtime,
    pub trace: bool,
    pub packet_len: u32,
    /// The switch clock, for meters.
    pub now_ns: u64,
    /// Scratch for table keys, reused across packets.
    pub key: &'a mut Vec<u128>,
    /// Scratch for hash inputs, reused across packets.
    pub buf: &'a mut Vec<u8>,
    pub effects: Effects,
}

impl Exec<'_> {
    /// Runs a control (ingress or egress) from its first node.
    pub fn run_control(&mut self, phv: &mut Phv, ctl: &Control) {
        let prog = self.prog;
        if self.trace {
            eprintln!("[dp]   control {}", ctl.name);
        }
        let mut node = ctl.init;
        while let Some(n) = node {
            node = match n {
                Node::Conditional(c) => {
                    let c = &prog.conditionals[c];
                    let v = eval(prog, phv, &[], &c.expr) != 0;
                    if self.trace {
                        eprintln!("[dp]   condition {} is {v}", c.name);
                    }
                    if v {
                        c.true_next
                    } else {
                        c.false_next
                    }
                }
                Node::Table(t) => match self.apply_table(phv, t) {
                    Some(next) => next,
                    None => return,
                },
            };
        }
    }

    /// Applies a table; returns the next node, or `None` after `exit`.
    fn apply_table(&mut self, phv: &mut Phv, t: usize) -> Option<Option<Node>> {
        let prog = self.prog;
        let tab = &prog.tables[t];
        self.key.clear();
        for k in &tab.keys {
            let v = match k.source {
                KeySource::Field(f) => phv.get(f),
                KeySource::Valid(h) => u128::from(phv.valid[h]),
            };
            self.key.push(k.mask.map_or(v, |m| v & m));
        }
        let state = &self.rt.tables[t];
        let (handle, call) = match state.lookup(self.key) {
            Some((h, e)) => (
                Some(h),
                entry_call(
                    prog,
                    &self.rt.action_profiles,
                    self.buf,
                    phv,
                    tab,
                    &e.action,
                ),
            ),
            None => (None, tab.has_default.then_some(&state.default)),
        };
        let hit = handle.is_some();
        if let Some(d) = handle.and_then(|h| state.direct(h)) {
            if tab.support_timeout {
                d.last_hit_ns.store(self.now_ns, Ordering::Relaxed);
            }
            if tab.with_counters {
                d.count(self.packet_len);
            }
            if let Some(dm) = tab.direct_meter {
                let amount = self.meter_amount(prog.meters[dm.meter].unit);
                let color = lock(&d.meter).execute(amount, self.now_ns);
                phv.set(prog, dm.result, color);
            }
        }
        if self.trace {
            let keys: Vec<String> = self.key.iter().map(|k| format!("{k:#x}")).collect();
            let outcome = match handle {
                Some(h) => format!("hit entry {h}"),
                None => "miss, default".to_owned(),
            };
            let action = call.map_or("no action", |c| prog.actions[c.action].name.as_str());
            eprintln!(
                "[dp]   table {} key [{}]: {outcome} -> {action}",
                tab.name,
                keys.join(", "),
            );
        }
        let branch = match (tab.hit_next, tab.miss_next) {
            (Some(h), Some(m)) => Some(if hit { h } else { m }),
            _ => None,
        };
        let Some(call) = call else {
            return Some(branch.unwrap_or(tab.base_next));
        };
        if self.run_action(phv, call.action, &call.data) {
            return None;
        }
        Some(branch.unwrap_or_else(|| {
            tab.actions
                .iter()
                .position(|&a| a == call.action)
                .and_then(|i| tab.next_by_action[i])
        }))
    }

    /// Runs an action; returns true if it executed `exit`. The register
    /// arrays it references stay locked from before its first primitive to
    /// its end (exit and jumps included), so a read-modify-write inside one
    /// action is atomic against the other pipeline threads.
    pub fn run_action(&mut self, phv: &mut Phv, action: usize, params: &[u128]) -> bool {
        let prog = self.prog;
        let a = &prog.actions[action];
        if self.trace {
            let ps: Vec<String> = a
                .params
                .iter()
                .zip(params)
                .map(|(p, v)| format!("{}={v:#x}", p.name))
                .collect();
            eprintln!("[dp]   action {}({})", a.name, ps.join(", "));
        }
        let rt = self.rt;
        let ids: &[usize] = if rt.atomic_actions { &a.registers } else { &[] };
        let mut held = HeldRegisters::lock(rt, ids);
        let mut pc = 0;
        let mut steps = 0;
        while pc < a.body.len() && steps < MAX_ACTION_STEPS {
            steps += 1;
            match self.step(phv, params, &a.body[pc], Some(&mut held)) {
                Flow::Next => pc += 1,
                Flow::Jump(t) => pc = t,
                Flow::Exit => return true,
            }
        }
        false
    }

    fn meter_amount(&self, unit: MeterUnit) -> u64 {
        match unit {
            MeterUnit::Packets => 1,
            MeterUnit::Bytes => u64::from(self.packet_len),
        }
    }

    /// Runs one primitive of a parser state (a `primitive` op). A register
    /// primitive locks its array for itself only. BMv2 runs each parser
    /// primitive as a one-primitive action through `ActionFnEntry::execute`,
    /// which skips the action-level lock; its register primitives take none
    /// of their own, so ours is the stronger of the two.
    pub fn primitive(&mut self, phv: &mut Phv, params: &[u128], p: &Primitive) -> Flow {
        self.step(phv, params, p, None)
    }

    /// Runs one primitive; `held` are the register locks of the action it
    /// belongs to.
    fn step(
        &mut self,
        phv: &mut Phv,
        params: &[u128],
        p: &Primitive,
        held: Option<&mut HeldRegisters<'_>>,
    ) -> Flow {
        let prog = self.prog;
        let ev = |phv: &Phv, e| eval(prog, phv, params, e);
        match p {
            Primitive::Assign(f, e) => {
                let v = ev(phv, e) as u128;
                phv.set(prog, *f, v);
            }
            Primitive::AssignAt { .. }
            | Primitive::AssignHeader { .. }
            | Primitive::AssignUnion { .. }
            | Primitive::AssignHeaderStack { .. }
            | Primitive::AssignUnionStack { .. }
            | Primitive::StackShift { .. }
            | Primitive::UnionStackShift { .. }
            | Primitive::SetValid(..) => header_writes::run(prog, phv, params, p),
            Primitive::MarkToDrop => {
                phv.set_opt(prog, prog.std.egress_spec, DROP_PORT);
                phv.set_opt(prog, prog.std.mcast_grp, 0);
            }
            Primitive::Exit => return Flow::Exit,
            Primitive::AssignVarbit { dst, src } => phv.copy_varbit(*dst, *src),
            Primitive::NoOp => {}
            Primitive::Clone {
                session,
                field_list,
                ..
            } => {
                // Session ids are 32-bit in v1model; 0 cancels, as in BMv2.
                let id = ev(phv, session) as u32;
                self.effects.clone = (id != 0).then_some((id, *field_list));
            }
            Primitive::Resubmit(fl) => self.effects.resubmit = Some(*fl),
            Primitive::Recirculate(fl) => self.effects.recirculate = Some(*fl),
            Primitive::Truncate(e) => {
                self.effects.truncate = Some(u32::try_from(ev(phv, e)).unwrap_or(u32::MAX));
            }
            Primitive::Digest(l) => self.effects.digest = Some(*l),
            Primitive::Count { .. }
            | Primitive::ExecuteMeter { .. }
            | Primitive::RegisterRead { .. }
            | Primitive::RegisterWrite { .. }
            | Primitive::Random { .. }
            | Primitive::Hash { .. } => self.run_extern(phv, params, p, held),
            Primitive::Jump(t) => return Flow::Jump(*t),
            Primitive::JumpIfZero(e, t) => {
                if ev(phv, e) == 0 {
                    return Flow::Jump(*t);
                }
            }
            Primitive::Log { fmt, args } => {
                if self.trace {
                    log_msg(prog, phv, params, fmt, args);
                }
            }
            Primitive::Assert(e) => {
                if ev(phv, e) == 0 {
                    return self.assertion_failed(phv);
                }
            }
        }
        Flow::Next
    }

    /// A failed `assert`: BMv2 aborts the process; we drop the packet instead.
    fn assertion_failed(&self, phv: &mut Phv) -> Flow {
        if self.trace {
            eprintln!("[dp]   assert failed: dropping");
        }
        phv.set_opt(self.prog, self.prog.std.egress_spec, DROP_PORT);
        Flow::Exit
    }
}

/// `log_msg`, shown only when tracing: it allocates.
fn log_msg(prog: &Program, phv: &Phv, params: &[u128], fmt: &str, args: &[LogArg]) {
    let vals: Vec<String> = args
        .iter()
        .map(|a| match a {
            LogArg::Value(e) => eval(prog, phv, params, e).to_string(),
            LogArg::Header(h) => header_text(prog, phv, *h),
        })
        .collect();
    eprintln!("[dp]   log_msg \"{fmt}\" {}", vals.join(", "));
}

pub enum Flow {
    Next,
    Jump(usize),
    Exit,
}

/// The action an entry runs: its own, or its action profile member, or the
/// member its group chooses by the selector hash. `None` for an empty group
/// (BMv2 then runs no action) or a member deleted under the entry.
fn entry_call<'s>(
    prog: &Program,
    profiles: &'s [ProfileState],
    buf: &mut Vec<u8>,
    phv: &Phv,
    tab: &Table,
    action: &'s EntryAction,
) -> Option<&'s ActionCall> {
    let p = tab.profile;
    match action {
        EntryAction::Call(c) => Some(c),
        EntryAction::Member(m) => p.and_then(|p| profiles[p].member(*m)),
        EntryAction::Group(g) => p.and_then(|p| {
            let hash = prog.action_profiles[p]
                .selector
                .map_or(0, |calc| checksum::compute(prog, calc, phv, &[], buf));
            profiles[p].choose(*g, hash)
        }),
    }
}

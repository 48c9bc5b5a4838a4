//! Register locking, as BMv2's RegisterSync: while an action runs, every
//! register array it references is locked, so a read-modify-write inside
//! one action is atomic against the other pipeline threads (ingress on the
//! packet or caller thread, egress on the event loop in real time).

use std::sync::MutexGuard;

use super::Runtime;
use crate::program::MAX_ACTION_REGISTERS;
use crate::sync::lock;

/// The register arrays a running action holds locked: `guards[k]` locks
/// array `ids[k]`. A fixed-size array (the load caps an action at
/// `MAX_ACTION_REGISTERS` arrays), so running an action allocates nothing.
pub(super) struct HeldRegisters<'a> {
    ids: &'a [usize],
    guards: [Option<MutexGuard<'a, Vec<u128>>>; MAX_ACTION_REGISTERS],
}

impl<'a> HeldRegisters<'a> {
    /// Locks `ids` (ascending, as `Action::registers`) in that order: one
    /// global order of register locks, so actions sharing arrays cannot
    /// deadlock.
    pub(super) fn lock(rt: &'a Runtime, ids: &'a [usize]) -> Self {
        let mut guards = [const { None }; MAX_ACTION_REGISTERS];
        for (g, &r) in guards.iter_mut().zip(ids) {
            *g = Some(lock(&rt.registers[r]));
        }
        HeldRegisters { ids, guards }
    }

    fn cells(&mut self, register: usize) -> Option<&mut Vec<u128>> {
        let k = self.ids.binary_search(&register).ok()?;
        self.guards[k].as_deref_mut()
    }
}

/// Runs `f` on a register array's cells: through the guard the running
/// action holds (std's Mutex is not re-entrant), else under the array's
/// lock for this access only.
pub(super) fn with_cells<R>(
    rt: &Runtime,
    held: Option<&mut HeldRegisters<'_>>,
    register: usize,
    f: impl FnOnce(&mut Vec<u128>) -> R,
) -> R {
    if let Some(cells) = held.and_then(|h| h.cells(register)) {
        return f(cells);
    }
    f(&mut lock(&rt.registers[register]))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};

    use serde_json::{json, Value};

    use super::super::{Effects, Exec};
    use super::*;
    use crate::packet::Phv;
    use crate::program::{self, Program};

    fn field(name: &str) -> Value {
        json!({"type": "field", "value": ["scalars", name]})
    }
    fn reg(name: &str) -> Value {
        json!({"type": "register_array", "value": name})
    }
    fn zero() -> Value {
        json!({"type": "hexstr", "value": "0x0"})
    }
    fn read(dst: &str, r: &str) -> Value {
        json!({"op": "register_read", "parameters": [field(dst), reg(r), zero()]})
    }
    /// r[0] = (src + 1) & 0xffffffff
    fn write_incremented(r: &str, src: &str) -> Value {
        let plus = json!({"type": "expression", "value": {"op": "+", "left": field(src),
            "right": {"type": "hexstr", "value": "0x1"}}});
        let masked = json!({"type": "expression", "value": {"op": "&", "left": plus,
            "right": {"type": "hexstr", "value": "0xffffffff"}}});
        // A parameter of type expression wraps the expression (JSON_format.md).
        let param = json!({"type": "expression", "value": masked});
        json!({"op": "register_write", "parameters": [reg(r), zero(), param]})
    }

    const INC_SLOW: usize = 0;
    const INC: usize = 1;
    const R_THEN_S: usize = 2;
    const S_THEN_R: usize = 3;
    const R: usize = 0;
    const S: usize = 1;

    /// `inc_slow` increments r[0], counting in c[0] once it has read it and
    /// reading s[0] between its read and its write of r; `inc` increments
    /// r[0]; the last two write r and s in opposite primitive orders.
    fn program(extra_registers: usize) -> Result<Program, String> {
        let mut regs = vec![
            json!({"name": "r", "id": 0, "size": 1, "bitwidth": 32}),
            json!({"name": "s", "id": 1, "size": 1, "bitwidth": 32}),
        ];
        let mut wide = Vec::new();
        for i in 0..extra_registers {
            let name = format!("x{i}");
            regs.push(json!({"name": name, "id": 2 + i, "size": 1, "bitwidth": 32}));
            wide.push(read("x", &name));
        }
        let j = json!({
            "header_types": [{"name": "scalars_0", "fields": [["x", 32, false], ["y", 32, false]]}],
            "headers": [{"name": "scalars", "header_type": "scalars_0", "metadata": true}],
            "register_arrays": regs,
            "counter_arrays": [{"name": "c", "id": 0, "size": 1, "is_direct": false}],
            "actions": [
                {"name": "inc_slow", "id": 0, "runtime_data": [], "primitives": [
                    read("x", "r"),
                    {"op": "count", "parameters": [{"type": "counter_array", "value": "c"}, zero()]},
                    read("y", "s"),
                    write_incremented("r", "x")]},
                {"name": "inc", "id": 1, "runtime_data": [], "primitives": [
                    read("x", "r"), write_incremented("r", "x")]},
                {"name": "r_then_s", "id": 2, "runtime_data": [], "primitives": [
                    read("x", "r"), write_incremented("s", "x")]},
                {"name": "s_then_r", "id": 3, "runtime_data": [], "primitives": [
                    read("y", "s"), write_incremented("r", "y")]},
                {"name": "wide", "id": 4, "runtime_data": [], "primitives": wide}
            ],
            "pipelines": [{"name": "ingress", "init_table": null, "tables": []},
                          {"name": "egress", "init_table": null, "tables": []}]
        });
        program::load(j.to_string().as_bytes())
    }

    fn run(prog: &Program, rt: &Runtime, action: usize, times: usize) {
        let mut phv = Phv::new(prog);
        let (mut key, mut buf) = (Vec::new(), Vec::new());
        let mut exec = Exec {
            prog,
            rt,
            trace: false,
            packet_len: 0,
            now_ns: 0,
            key: &mut key,
            buf: &mut buf,
            effects: Effects::default(),
        };
        for _ in 0..times {
            exec.run_action(&mut phv, action, &[]);
        }
    }

    fn wait_until(what: &str, cond: impl Fn() -> bool) {
        let until = Instant::now() + Duration::from_secs(10);
        while !cond() {
            assert!(Instant::now() < until, "timed out waiting until {what}");
            std::thread::yield_now();
        }
    }

    /// Thread A runs `inc_slow` while this thread holds s, so A stops
    /// inside its action; thread B then runs `inc` on the same cell. The
    /// interleaving is forced, not left to chance. Returns r[0].
    fn forced_race(atomic: bool) -> u128 {
        let prog = program(0).unwrap();
        let rt = Runtime::new(&prog, 0, atomic);
        let hold_s = rt.registers[S].lock().unwrap();
        std::thread::scope(|sc| {
            let a = sc.spawn(|| run(&prog, &rt, INC_SLOW, 1));
            let counted = || rt.counters[0][0].0.load(Ordering::SeqCst);
            if atomic {
                // A locks r and s before its first primitive: it holds r
                // and has run nothing while it waits for s.
                wait_until("A holds r", || rt.registers[R].try_lock().is_err());
                assert_eq!(counted(), 0);
                let b = sc.spawn(|| run(&prog, &rt, INC, 1));
                drop(hold_s);
                a.join().unwrap();
                b.join().unwrap();
            } else {
                // A has read r and waits for s: B's whole increment fits in
                // A's read-modify-write, and A then overwrites it.
                wait_until("A has read r", || counted() == 1);
                let b = sc.spawn(|| run(&prog, &rt, INC, 1));
                b.join().unwrap();
                assert_eq!(rt.registers[R].lock().unwrap()[0], 1);
                drop(hold_s);
                a.join().unwrap();
            }
        });
        let r = rt.registers[R].lock().unwrap()[0];
        r
    }

    #[test]
    fn an_action_holds_its_registers_from_start_to_end() {
        assert_eq!(forced_race(true), 2);
    }

    #[test]
    fn without_atomic_actions_an_update_is_lost() {
        assert_eq!(forced_race(false), 1);
    }

    #[test]
    fn concurrent_increments_are_exact() {
        let prog = program(0).unwrap();
        let rt = Runtime::new(&prog, 0, true);
        std::thread::scope(|sc| {
            for _ in 0..2 {
                sc.spawn(|| run(&prog, &rt, INC, 20_000));
            }
        });
        assert_eq!(rt.registers[R].lock().unwrap()[0], 40_000);
    }

    #[test]
    fn actions_lock_in_one_order_whatever_their_primitives_order() {
        // Locking in primitive order would deadlock here: one action takes
        // r then s, the other s then r.
        let prog = program(0).unwrap();
        assert_eq!(prog.actions[R_THEN_S].registers, [R, S]);
        assert_eq!(prog.actions[S_THEN_R].registers, [R, S]);
        let rt = Runtime::new(&prog, 0, true);
        std::thread::scope(|sc| {
            sc.spawn(|| run(&prog, &rt, R_THEN_S, 20_000));
            sc.spawn(|| run(&prog, &rt, S_THEN_R, 20_000));
        });
    }

    #[test]
    fn an_action_referencing_too_many_arrays_is_rejected_by_name() {
        let at_cap = program(MAX_ACTION_REGISTERS).unwrap();
        assert_eq!(at_cap.actions[4].registers.len(), MAX_ACTION_REGISTERS);
        let err = program(MAX_ACTION_REGISTERS + 1).unwrap_err();
        let want = format!(
            "action 'wide': references {} register arrays",
            MAX_ACTION_REGISTERS + 1
        );
        assert!(err.contains(&want), "{err}");
    }
}

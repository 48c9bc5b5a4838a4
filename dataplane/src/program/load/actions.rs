//! Actions: their parameters and bodies, indexed by id for tables.

use std::collections::HashMap;

use super::{Loader, Result, Scope};
use crate::program::json::{self, Json};
use crate::program::{Action, ActionParam, Primitive, MAX_ACTION_REGISTERS, MAX_FIELD_WIDTH};

impl Loader {
    /// The program's actions, and their indices by name (the first action
    /// of a name, when names repeat).
    pub(super) fn actions(&mut self, j: &Json) -> Result<(Vec<Action>, HashMap<String, usize>)> {
        for (i, a) in j.actions.iter().enumerate() {
            if self.action_by_id.insert(a.id, i).is_some() {
                return Err(format!("action '{}': duplicate action id {}", a.name, a.id));
            }
        }
        let actions = j
            .actions
            .iter()
            .map(|a| self.action(a))
            .collect::<Result<Vec<_>>>()?;
        let mut action_by_name = HashMap::new();
        for (i, a) in actions.iter().enumerate() {
            action_by_name.entry(a.name.clone()).or_insert(i);
        }
        Ok((actions, action_by_name))
    }

    fn action(&self, a: &json::Action) -> Result<Action> {
        let what = format!("action '{}'", a.name);
        let sc = Scope {
            what: &what,
            params: a.runtime_data.len(),
        };
        let params = a
            .runtime_data
            .iter()
            .map(|p| {
                if p.bitwidth == 0 || p.bitwidth > MAX_FIELD_WIDTH {
                    Err(format!(
                        "{what}: parameter '{}' has width {}",
                        p.name, p.bitwidth
                    ))
                } else {
                    Ok(ActionParam {
                        name: p.name.clone(),
                        width: p.bitwidth,
                    })
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let body = a
            .primitives
            .iter()
            .map(|p| self.primitive(&p.op, &p.parameters, sc, a.primitives.len()))
            .collect::<Result<Vec<_>>>()?;
        let mut registers: Vec<usize> = body.iter().filter_map(Primitive::register).collect();
        registers.sort_unstable();
        registers.dedup();
        if registers.len() > MAX_ACTION_REGISTERS {
            return Err(format!(
                "{what}: references {} register arrays; an action may lock at most {MAX_ACTION_REGISTERS}",
                registers.len()
            ));
        }
        Ok(Action {
            name: a.name.clone(),
            params,
            body,
            registers,
        })
    }
}

//! The ingress and egress pipelines: graphs of tables and conditionals,
//! each node naming the next one.

use std::collections::HashMap;

use super::{reject_nonempty, Loader, Result, Scope};
use crate::program::json::{self, Json};
use crate::program::{Action, ActionProfile, Conditional, Control, Node, Table};

/// Resolves a next-node name within one pipeline (`None` is the end).
pub(super) type NodeLookup<'a> = dyn Fn(Option<&str>, &str) -> Result<Option<Node>> + 'a;

/// The two v1model pipelines, with the tables and conditionals of both.
pub(super) struct Pipelines {
    pub(super) ingress: Control,
    pub(super) egress: Control,
    pub(super) tables: Vec<Table>,
    pub(super) conditionals: Vec<Conditional>,
    pub(super) table_by_name: HashMap<String, usize>,
    pub(super) action_profiles: Vec<ActionProfile>,
    /// One calculation per selector, appended after the JSON's `calculations`.
    pub(super) selector_calculations: Vec<json::Calculation>,
}

/// The action profiles of both pipelines by name: index, and whether it has a
/// selector.
pub(super) type ProfileLookup = HashMap<String, (usize, bool)>;

impl Loader {
    pub(super) fn pipelines(&self, j: &Json, actions: &[Action]) -> Result<Pipelines> {
        let mut tables = Vec::new();
        let mut conditionals = Vec::new();
        let mut ingress = None;
        let mut egress = None;
        let (action_profiles, selector_calculations, profiles) =
            action_profiles(j, j.calculations.len())?;
        for p in &j.pipelines {
            let control = self.pipeline(p, actions, &profiles, &mut tables, &mut conditionals)?;
            match p.name.as_str() {
                "ingress" => ingress = Some(control),
                "egress" => egress = Some(control),
                other => {
                    return Err(format!(
                        "pipeline '{other}': v1model has only 'ingress' and 'egress'"
                    ))
                }
            }
        }
        let ingress = ingress.ok_or("no 'ingress' pipeline")?;
        let egress = egress.ok_or("no 'egress' pipeline")?;
        let mut table_by_name = HashMap::new();
        for (i, t) in tables.iter().enumerate() {
            if table_by_name.insert(t.name.clone(), i).is_some() {
                return Err(format!("table '{}': defined twice", t.name));
            }
        }
        Ok(Pipelines {
            ingress,
            egress,
            tables,
            conditionals,
            table_by_name,
            action_profiles,
            selector_calculations,
        })
    }

    fn pipeline(
        &self,
        p: &json::Pipeline,
        actions: &[Action],
        profiles: &ProfileLookup,
        tables: &mut Vec<Table>,
        conditionals: &mut Vec<Conditional>,
    ) -> Result<Control> {
        reject_nonempty(
            &format!("pipeline '{}': action_calls", p.name),
            &p.action_calls,
        )?;
        let t0 = tables.len();
        let c0 = conditionals.len();
        let mut nodes: HashMap<&str, Node> = HashMap::new();
        for (i, t) in p.tables.iter().enumerate() {
            nodes.insert(&t.name, Node::Table(t0 + i));
        }
        for (i, c) in p.conditionals.iter().enumerate() {
            if nodes.insert(&c.name, Node::Conditional(c0 + i)).is_some() {
                return Err(format!(
                    "pipeline '{}': name '{}' used twice",
                    p.name, c.name
                ));
            }
        }
        let node = |v: Option<&str>, what: &str| -> Result<Option<Node>> {
            match v {
                None => Ok(None),
                Some(n) => nodes
                    .get(n)
                    .copied()
                    .map(Some)
                    .ok_or_else(|| format!("{what}: unknown next node '{n}'")),
            }
        };
        for t in &p.tables {
            tables.push(self.table(t, actions, profiles, &node)?);
        }
        for c in &p.conditionals {
            let what = format!("conditional '{}'", c.name);
            conditionals.push(Conditional {
                name: c.name.clone(),
                expr: self.expr(&c.expression, Scope::outside_actions(&what))?,
                true_next: node(c.true_next.as_deref(), &what)?,
                false_next: node(c.false_next.as_deref(), &what)?,
            });
        }
        Ok(Control {
            name: p.name.clone(),
            init: node(p.init_table.as_deref(), &format!("pipeline '{}'", p.name))?,
        })
    }
}

/// The action profiles of every pipeline, each selector's input as a
/// calculation numbered from `first_calculation`.
fn action_profiles(
    j: &Json,
    first_calculation: usize,
) -> Result<(Vec<ActionProfile>, Vec<json::Calculation>, ProfileLookup)> {
    let mut profiles = Vec::new();
    let mut calculations = Vec::new();
    let mut lookup = ProfileLookup::new();
    for p in j.pipelines.iter().flat_map(|p| &p.action_profiles) {
        let selector = p.selector.as_ref().map(|s| {
            calculations.push(json::Calculation {
                name: format!("{} selector", p.name),
                algo: s.algo.clone(),
                input: s.input.clone(),
            });
            first_calculation + calculations.len() - 1
        });
        let entry = (profiles.len(), selector.is_some());
        if lookup.insert(p.name.clone(), entry).is_some() {
            return Err(format!("action profile '{}': defined twice", p.name));
        }
        profiles.push(ActionProfile {
            name: p.name.clone(),
            max_size: p.max_size,
            selector,
        });
    }
    Ok((profiles, calculations, lookup))
}

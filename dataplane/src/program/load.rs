//! JSON -> `Program`: name resolution and validation. Every error names the
//! object at fault, e.g. `table 'MyIngress.ipv4_lpm': unknown action id 7`.
//!
//! `load` checks the raw JSON (`checks`), reads it into `Json`, then a
//! `Loader` resolves it part by part, in an order where each part finds the
//! names it refers to already indexed: headers and fields, stacks, unions
//! and union stacks, arrays and lists, actions (`primitives`,
//! `expressions`), the parser, the pipelines (`tables`, `entries`),
//! calculations and checksums.

mod actions;
mod arrays;
mod calculations;
mod checks;
mod deparser;
mod entries;
mod expressions;
mod field_lists;
mod header_refs;
mod headers;
mod hex;
mod operands;
mod parser;
mod parser_ops;
mod pipelines;
mod primitives;
mod std_meta;
mod tables;
mod union_stacks;
mod unions;
mod value_sets;
mod varbit;

use std::collections::HashMap;

use serde_json::Value;

use super::json::{Json, KNOWN_KEYS};
use super::{DirectMeter, FieldInfo, HeaderInfo, Program, StackInfo, UnionInfo, UnionStackInfo};

type Result<T> = std::result::Result<T, String>;

/// Parses and resolves a BMv2 JSON program.
pub fn load(text: &[u8]) -> Result<Program> {
    let raw: Value = serde_json::from_slice(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let obj = raw
        .as_object()
        .ok_or("BMv2 JSON must be an object at the top level")?;
    for key in obj.keys() {
        if !KNOWN_KEYS.contains(&key.as_str()) {
            return Err(format!("unsupported top-level key '{key}'"));
        }
    }
    checks::check_version(obj.get("__meta__"))?;
    checks::check_ids(obj)?;
    let json: Json =
        serde_json::from_value(raw).map_err(|e| format!("malformed BMv2 JSON: {e}"))?;
    Loader::default().run(json)
}

fn type_of(v: &Value) -> &str {
    v.get("type").and_then(Value::as_str).unwrap_or("?")
}

#[derive(Default)]
struct Loader {
    fields: Vec<FieldInfo>,
    headers: Vec<HeaderInfo>,
    field_index: HashMap<(String, String), usize>,
    /// Fields wider than a field value holds, by name: their width. They are kept
    /// as several fields of at most MAX_FIELD_WIDTH bits, which only move with their
    /// header (extract, emit, copies, comparisons, checksums).
    wide_fields: HashMap<(String, String), u32>,
    header_index: HashMap<String, usize>,
    stacks: Vec<StackInfo>,
    stack_index: HashMap<String, usize>,
    unions: Vec<UnionInfo>,
    num_varbits: usize,
    union_index: HashMap<String, usize>,
    union_stacks: Vec<UnionStackInfo>,
    union_stack_index: HashMap<String, usize>,
    action_by_id: HashMap<u32, usize>,
    registers: HashMap<String, usize>,
    counters: HashMap<String, usize>,
    meters: HashMap<String, usize>,
    direct_meters: HashMap<String, DirectMeter>,
    learn_list_by_id: HashMap<u32, usize>,
    field_list_by_id: HashMap<u32, usize>,
    clones_in_ingress: std::cell::Cell<bool>,
    calculations: HashMap<String, usize>,
    value_set_index: HashMap<String, usize>,
}

/// What an expression may refer to besides the packet: action parameters
/// exist only inside actions.
#[derive(Clone, Copy)]
struct Scope<'a> {
    what: &'a str,
    params: usize,
}

impl<'a> Scope<'a> {
    /// A place outside every action (parser, deparser, conditionals,
    /// calculations): no action parameters to refer to.
    fn outside_actions(what: &'a str) -> Self {
        Scope { what, params: 0 }
    }
}

impl Loader {
    fn run(mut self, j: Json) -> Result<Program> {
        reject_nonempty("extern_instances", &j.extern_instances)?;

        self.headers(&j)?;
        let errors = j.errors.clone();
        let error_packet_too_short = error_value(&errors, "PacketTooShort", 1);
        let error_no_match = error_value(&errors, "NoMatch", 2);
        let error_stack_out_of_bounds = error_value(&errors, "StackOutOfBounds", 3);
        self.stacks(&j)?;
        self.unions(&j)?;
        self.union_stacks(&j)?;

        let registers = self.registers(&j)?;
        let counters = self.counters(&j)?;
        let meters = self.meters(&j)?;
        let learn_lists = self.learn_lists(&j)?;
        let field_lists = self.field_lists(&j)?;

        for (i, c) in j.calculations.iter().enumerate() {
            self.calculations.insert(c.name.clone(), i);
        }
        let (actions, action_by_name) = self.actions(&j)?;

        let value_sets = self.value_sets(&j)?;
        let (parse_states, parser_init) = self.parser(&j, &value_sets)?;
        let (deparse_order, deparser_primitives) = self.deparser(&j)?;

        let pipelines = self.pipelines(&j, &actions)?;

        let calculations = j
            .calculations
            .iter()
            .chain(&pipelines.selector_calculations)
            .map(|c| self.calculation(c))
            .collect::<Result<Vec<_>>>()?;
        let checksums = j
            .checksums
            .iter()
            .map(|c| self.checksum(c, &j.calculations))
            .collect::<Result<Vec<_>>>()?;

        let std = self.std_meta();
        Ok(Program {
            fields: self.fields,
            headers: self.headers,
            stacks: self.stacks,
            unions: self.unions,
            union_stacks: self.union_stacks,
            num_varbits: self.num_varbits,
            errors,
            error_packet_too_short,
            error_stack_out_of_bounds,
            error_no_match,
            parse_states,
            parser_init,
            value_sets,
            deparse_order,
            deparser_primitives,
            actions,
            tables: pipelines.tables,
            action_profiles: pipelines.action_profiles,
            conditionals: pipelines.conditionals,
            ingress: pipelines.ingress,
            egress: pipelines.egress,
            calculations,
            checksums,
            registers,
            counters,
            meters,
            learn_lists,
            field_lists,
            clones_in_ingress: self.clones_in_ingress.get(),
            std,
            table_by_name: pipelines.table_by_name,
            action_by_name,
        })
    }
}

/// The value of error `name` in the program's `errors`, or `default` when
/// it lists none.
fn error_value(errors: &[(String, u32)], name: &str, default: u32) -> u32 {
    errors
        .iter()
        .find(|(n, _)| n == name)
        .map_or(default, |(_, v)| *v)
}

fn reject_nonempty(what: &str, v: &[Value]) -> Result<()> {
    if v.is_empty() {
        Ok(())
    } else {
        Err(format!("{what} are not supported"))
    }
}

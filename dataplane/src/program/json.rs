//! Serde model of the BMv2 JSON format (behavioral-model `docs/JSON_format.md`).
//!
//! Only the shape is checked here; names are resolved and semantics validated
//! by `program::load`. Expression trees and primitive parameters stay as
//! `serde_json::Value` because their shape depends on their `type` tag.

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
pub struct Json {
    #[serde(default)]
    pub header_types: Vec<HeaderType>,
    #[serde(default)]
    pub headers: Vec<Header>,
    #[serde(default)]
    pub header_stacks: Vec<HeaderStack>,
    #[serde(default)]
    pub header_union_types: Vec<HeaderUnionType>,
    #[serde(default)]
    pub header_unions: Vec<HeaderUnion>,
    #[serde(default)]
    pub header_union_stacks: Vec<HeaderUnionStack>,
    #[serde(default)]
    pub errors: Vec<(String, u32)>,
    #[serde(default)]
    pub parsers: Vec<Parser>,
    #[serde(default)]
    pub parse_vsets: Vec<ParseVset>,
    #[serde(default)]
    pub deparsers: Vec<Deparser>,
    #[serde(default)]
    pub meter_arrays: Vec<MeterArray>,
    #[serde(default)]
    pub counter_arrays: Vec<CounterArray>,
    #[serde(default)]
    pub register_arrays: Vec<RegisterArray>,
    #[serde(default)]
    pub calculations: Vec<Calculation>,
    #[serde(default)]
    pub learn_lists: Vec<LearnListJson>,
    /// Same shape as learn lists: metadata kept by resubmit, recirculate
    /// and clone.
    #[serde(default)]
    pub field_lists: Vec<LearnListJson>,
    #[serde(default)]
    pub actions: Vec<Action>,
    #[serde(default)]
    pub pipelines: Vec<Pipeline>,
    #[serde(default)]
    pub checksums: Vec<Checksum>,
    #[serde(default)]
    pub extern_instances: Vec<Value>,
}

/// Top-level keys the loader accepts. Declarations that need no run-time
/// support (enums, field lists, aliases, metadata) are not
/// modelled: a program that uses one (e.g. a stack in an extract) is rejected
/// where the use appears. Any other key is rejected by name.
pub const KNOWN_KEYS: &[&str] = &[
    "header_types",
    "headers",
    "header_stacks",
    "header_union_types",
    "header_unions",
    "header_union_stacks",
    "field_lists",
    "errors",
    "enums",
    "parsers",
    "parse_vsets",
    "deparsers",
    "meter_arrays",
    "counter_arrays",
    "register_arrays",
    "calculations",
    "learn_lists",
    "actions",
    "pipelines",
    "checksums",
    "force_arith",
    "extern_instances",
    "field_aliases",
    "program",
    "__meta__",
];

#[derive(Debug, Deserialize)]
pub struct HeaderType {
    pub name: String,
    /// `[name, bitwidth, signed?, saturating?]`; bitwidth is `"*"` for varbit.
    pub fields: Vec<Vec<Value>>,
    /// Maximum length of the header in bytes, with a varbit field.
    #[serde(default)]
    pub max_length: Option<u32>,
}

#[derive(Debug, Deserialize)]
pub struct Header {
    pub name: String,
    pub header_type: String,
    #[serde(default)]
    pub metadata: bool,
}

#[derive(Debug, Deserialize)]
pub struct HeaderStack {
    pub name: String,
    pub header_ids: Vec<u32>,
}

/// A header union instance: its members are ordinary headers.
#[derive(Debug, Deserialize)]
pub struct HeaderUnion {
    pub name: String,
    pub header_ids: Vec<u32>,
}

/// A header union type: its members' names, in order, with their header
/// types.
#[derive(Debug, Deserialize)]
pub struct HeaderUnionType {
    pub name: String,
    pub headers: Vec<(String, String)>,
}

/// A header union stack: its elements are header unions, by id.
#[derive(Debug, Deserialize)]
pub struct HeaderUnionStack {
    pub name: String,
    pub union_type: String,
    pub header_union_ids: Vec<u32>,
}

#[derive(Debug, Deserialize)]
pub struct Parser {
    pub name: String,
    pub init_state: String,
    pub parse_states: Vec<ParseState>,
}

/// A parser value set (`value_set<T>(size)`), named `Parser.name`.
#[derive(Debug, Deserialize)]
pub struct ParseVset {
    pub name: String,
    pub compressed_bitwidth: u32,
    /// Older p4c omits it: then the set has no size limit.
    #[serde(default)]
    pub max_size: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub struct ParseState {
    pub name: String,
    #[serde(default)]
    pub parser_ops: Vec<ParserOp>,
    #[serde(default)]
    pub transition_key: Vec<Value>,
    #[serde(default)]
    pub transitions: Vec<Transition>,
}

#[derive(Debug, Deserialize)]
pub struct ParserOp {
    pub op: String,
    #[serde(default)]
    pub parameters: Vec<Value>,
}

#[derive(Debug, Deserialize)]
pub struct Transition {
    #[serde(rename = "type", default = "hexstr")]
    pub kind: String,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub mask: Option<String>,
    #[serde(default)]
    pub next_state: Option<String>,
}

fn hexstr() -> String {
    "hexstr".to_owned()
}

#[derive(Debug, Deserialize)]
pub struct Deparser {
    pub name: String,
    #[serde(default)]
    pub order: Vec<String>,
    #[serde(default)]
    pub primitives: Vec<Primitive>,
}

#[derive(Debug, Deserialize)]
pub struct CounterArray {
    pub name: String,
    #[serde(default)]
    pub size: u64,
    #[serde(default)]
    pub is_direct: bool,
}

#[derive(Debug, Deserialize)]
pub struct LearnListJson {
    pub id: u32,
    pub name: String,
    #[serde(default)]
    pub elements: Vec<Value>,
}

#[derive(Debug, Deserialize)]
pub struct MeterArray {
    pub name: String,
    #[serde(default)]
    pub size: u64,
    #[serde(default)]
    pub is_direct: bool,
    /// "bytes" or "packets".
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default = "two")]
    pub rate_count: u32,
    /// Where a direct meter writes the color: `[header, field]`.
    #[serde(default)]
    pub result_target: Option<(String, String)>,
}

fn two() -> u32 {
    2
}

#[derive(Debug, Deserialize)]
pub struct RegisterArray {
    pub name: String,
    pub size: u64,
    pub bitwidth: u32,
}

#[derive(Debug, Deserialize)]
pub struct Calculation {
    pub name: String,
    pub algo: String,
    #[serde(default)]
    pub input: Vec<Value>,
}

#[derive(Debug, Deserialize)]
pub struct Action {
    pub name: String,
    pub id: u32,
    #[serde(default)]
    pub runtime_data: Vec<RuntimeData>,
    #[serde(default)]
    pub primitives: Vec<Primitive>,
}

#[derive(Debug, Deserialize)]
pub struct RuntimeData {
    pub name: String,
    pub bitwidth: u32,
}

#[derive(Debug, Deserialize)]
pub struct Primitive {
    pub op: String,
    #[serde(default)]
    pub parameters: Vec<Value>,
}

#[derive(Debug, Deserialize)]
pub struct Pipeline {
    pub name: String,
    #[serde(default)]
    pub init_table: Option<String>,
    #[serde(default)]
    pub tables: Vec<Table>,
    #[serde(default)]
    pub action_profiles: Vec<ActionProfile>,
    #[serde(default)]
    pub conditionals: Vec<Conditional>,
    #[serde(default)]
    pub action_calls: Vec<Value>,
}

#[derive(Debug, Deserialize)]
pub struct Table {
    pub name: String,
    #[serde(default)]
    pub key: Vec<TableKey>,
    #[serde(default = "exact")]
    pub match_type: String,
    #[serde(rename = "type", default = "simple")]
    pub kind: String,
    #[serde(default)]
    pub action_profile: Option<String>,
    #[serde(default)]
    pub max_size: u64,
    #[serde(default)]
    pub direct_meters: Option<Value>,
    #[serde(default)]
    pub with_counters: bool,
    #[serde(default)]
    pub support_timeout: bool,
    #[serde(default)]
    pub action_ids: Vec<u32>,
    #[serde(default)]
    pub actions: Vec<String>,
    #[serde(default)]
    pub base_default_next: Option<String>,
    #[serde(default)]
    pub next_tables: serde_json::Map<String, Value>,
    #[serde(default)]
    pub default_entry: Option<DefaultEntry>,
    #[serde(default)]
    pub entries: Option<Vec<ConstEntry>>,
}

#[derive(Debug, Deserialize)]
pub struct ActionProfile {
    pub name: String,
    #[serde(default)]
    pub max_size: u64,
    #[serde(default)]
    pub selector: Option<Selector>,
}

#[derive(Debug, Deserialize)]
pub struct Selector {
    pub algo: String,
    #[serde(default)]
    pub input: Vec<Value>,
}

fn exact() -> String {
    "exact".to_owned()
}

fn simple() -> String {
    "simple".to_owned()
}

#[derive(Debug, Deserialize)]
pub struct TableKey {
    pub match_type: String,
    #[serde(default)]
    pub name: Option<String>,
    pub target: Value,
    #[serde(default)]
    pub mask: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct DefaultEntry {
    pub action_id: u32,
    #[serde(default)]
    pub action_const: bool,
    #[serde(default)]
    pub action_data: Vec<String>,
    #[serde(default)]
    pub action_entry_const: bool,
}

#[derive(Debug, Deserialize)]
pub struct ConstEntry {
    pub match_key: Vec<ConstKey>,
    pub action_entry: ActionEntry,
    #[serde(default)]
    pub priority: i64,
}

#[derive(Debug, Deserialize)]
pub struct ConstKey {
    pub match_type: String,
    /// A hex string; a boolean for a `valid` key.
    #[serde(default)]
    pub key: Option<Value>,
    #[serde(default)]
    pub mask: Option<Value>,
    #[serde(default)]
    pub prefix_length: Option<u32>,
    #[serde(default)]
    pub start: Option<Value>,
    #[serde(default)]
    pub end: Option<Value>,
}

#[derive(Debug, Deserialize)]
pub struct ActionEntry {
    pub action_id: u32,
    #[serde(default)]
    pub action_data: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct Conditional {
    pub name: String,
    pub expression: Value,
    #[serde(default)]
    pub true_next: Option<String>,
    #[serde(default)]
    pub false_next: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct Checksum {
    pub name: String,
    pub target: Value,
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    pub calculation: String,
    #[serde(default)]
    pub verify: Option<bool>,
    #[serde(default)]
    pub update: Option<bool>,
    #[serde(default)]
    pub if_cond: Option<Value>,
}

//! A BMv2 JSON program, resolved: every name the packet path needs is turned
//! into an index once at load time, so no string is looked up per packet.

mod json;
mod load;
mod value_set;

use std::collections::HashMap;

pub use load::load;
pub use value_set::ValueSet;

/// Widest field the packet path handles; field values are held in a `u128`.
pub const MAX_FIELD_WIDTH: u32 = 128;

/// Most register arrays one action may reference: a running action holds
/// their locks in a fixed-size array, so an action call never allocates.
/// Far above what the AQM programs reference; the load rejects an action
/// above it by name.
pub const MAX_ACTION_REGISTERS: usize = 16;

#[derive(Debug)]
pub struct FieldInfo {
    /// `header.field`, for traces and error messages.
    pub name: String,
    pub width: u32,
    pub signed: bool,
}

/// A header stack: its elements are ordinary headers (`name[i]`), plus a
/// per-packet next index kept in the PHV.
#[derive(Debug)]
pub struct StackInfo {
    pub name: String,
    pub headers: Vec<usize>,
}

#[derive(Debug)]
pub struct HeaderInfo {
    pub name: String,
    pub first_field: usize,
    pub num_fields: usize,
    /// Sum of the field widths; a multiple of 8 for packet headers.
    pub bits: u32,
    pub metadata: bool,
    /// The header's varbit field, if it has one.
    pub varbit: Option<VarbitInfo>,
    /// The header union this header is a member of: making it valid
    /// invalidates the other members.
    pub union: Option<usize>,
}

/// A varbit field: its `FieldInfo` has width 0 (the fixed fields ignore
/// it) and its bytes live in the PHV's slot `slot`, as they may exceed the
/// 128 bits a field value holds.
#[derive(Debug, Clone, Copy)]
pub struct VarbitInfo {
    pub field: usize,
    pub slot: usize,
    pub max_bits: u32,
}

/// A header union: at most one of its member headers is valid.
#[derive(Debug)]
pub struct UnionInfo {
    pub name: String,
    pub headers: Vec<usize>,
}

/// A header union stack: its elements are ordinary unions (`name[i]`, with
/// members `name[i].m`), plus a per-packet next index kept in the PHV.
#[derive(Debug)]
pub struct UnionStackInfo {
    pub name: String,
    pub unions: Vec<usize>,
    /// The union type's member names: a member's position is its header's
    /// position in every element.
    pub members: Vec<String>,
}

/// Expressions as the evaluator sees them. Values are evaluated as `i128`,
/// which matches BMv2's arbitrary-precision arithmetic as long as the program
/// masks results (p4c always does) and no value reaches 2^127.
#[derive(Debug, Clone)]
pub enum Expr {
    Field(usize),
    /// `stack.last.field` in a parser: (stack, field offset in the header).
    StackField(usize, usize),
    Const(i128),
    /// A header's isValid() (`valid`, or a `$valid$` field read).
    Valid(HeaderAt),
    /// `access_field`: the field at `offset` of a header chosen at run time.
    FieldAt {
        header: HeaderAt,
        offset: usize,
    },
    /// `stack.lastIndex`: the index of the last valid element (`last_stack_index`).
    LastStackIndex(usize),
    /// `last_stack_index` of a header union stack.
    LastUnionStackIndex(usize),
    /// `stack.last.member.field` in a parser key (`union_stack_field`): the
    /// field at `offset` in member `member` of the union extracted last.
    UnionStackField {
        stack: usize,
        member: usize,
        offset: usize,
    },
    /// A header union's isValid(): true iff one member is valid.
    ValidUnion(UnionAt),
    /// `==` of two headers (BMv2's EQ_HEADER): both invalid, or both valid with
    /// equal fields.
    HeaderEq(Box<(HeaderAt, HeaderAt)>),
    /// `==` of two header unions (EQ_UNION): no member valid in either, or the same
    /// member valid in both and equal.
    UnionEq(Box<(UnionAt, UnionAt)>),
    /// `==` of two varbit fields, by their PHV slots: the spec's (8.9) equal
    /// dynamic widths and equal bits.
    VarbitEq(usize, usize),
    /// An action parameter (`runtime_data` / `local`).
    Param(usize),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    TwoCompMod(Box<Expr>, u32),
    SatCast {
        value: Box<Expr>,
        width: u32,
        signed: bool,
    },
}

/// A header as an expression names it: an instance, or one chosen at run time.
/// BMv2's `dereference_header_stack` picks a stack element by a computed index,
/// `access_union_header` a member of a union (which `dereference_union_stack` may
/// pick from a union stack).
#[derive(Debug, Clone)]
pub enum HeaderAt {
    Instance(usize),
    StackElement { stack: usize, index: Box<Expr> },
    UnionMember { union: Box<UnionAt>, member: usize },
}

/// A header union as an expression names it: an instance, or a union stack's
/// element chosen at run time (`dereference_union_stack`).
#[derive(Debug, Clone)]
pub enum UnionAt {
    Instance(usize),
    StackElement { stack: usize, index: Box<Expr> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Not,
    BitNeg,
    D2b,
    B2d,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
}

#[derive(Debug)]
pub enum Primitive {
    Assign(usize, Expr),
    /// `assign` to `access_field` of a header chosen at run time.
    AssignAt {
        header: HeaderAt,
        offset: usize,
        value: Expr,
    },
    /// push_front (true) or pop_front of `count` elements.
    StackShift {
        stack: usize,
        count: usize,
        push: bool,
    },
    /// `assign_header_stack`: every element with its validity, and the next
    /// index.
    AssignHeaderStack {
        dst: usize,
        src: usize,
    },
    /// `assign_union_stack`: every element union and the next index.
    AssignUnionStack {
        dst: usize,
        src: usize,
    },
    /// push_front (true) or pop_front on a header union stack.
    UnionStackShift {
        stack: usize,
        count: usize,
        push: bool,
    },
    AssignHeader {
        dst: HeaderAt,
        src: HeaderAt,
    },
    /// `assign_union`: copies every member of union `src` onto `dst`.
    AssignUnion {
        dst: UnionAt,
        src: UnionAt,
    },
    SetValid(HeaderAt, bool),
    /// `assign_VL` (a parser's `set` of varbit fields): the bytes of varbit
    /// slot `src`, with their length, onto slot `dst`.
    AssignVarbit {
        dst: usize,
        src: usize,
    },
    MarkToDrop,
    Exit,
    NoOp,
    Count {
        counter: usize,
        index: Expr,
    },
    /// `execute_meter`: dst = color of the packet at meter[index].
    ExecuteMeter {
        meter: usize,
        index: Expr,
        dst: usize,
    },
    /// clone_ingress_pkt_to_egress (egress false) or
    /// clone_egress_pkt_to_egress (egress true) to a clone session.
    Clone {
        session: Expr,
        egress: bool,
        field_list: Option<usize>,
    },
    /// resubmit (ingress) or recirculate (egress), keeping a field list's
    /// metadata.
    Resubmit(Option<usize>),
    Recirculate(Option<usize>),
    /// truncate(length): the packet leaves with at most this many bytes.
    Truncate(Expr),
    /// generate_digest of a learn list (index into `Program::learn_lists`).
    Digest(usize),
    RegisterRead {
        dst: usize,
        register: usize,
        index: Expr,
    },
    RegisterWrite {
        register: usize,
        index: Expr,
        value: Expr,
    },
    Random {
        dst: usize,
        lo: Expr,
        hi: Expr,
    },
    /// v1model `hash()`: dst = base + calculation % max (max 0: no modulo).
    Hash {
        dst: usize,
        base: Expr,
        calculation: usize,
        max: Expr,
    },
    Jump(usize),
    JumpIfZero(Expr, usize),
    Log {
        fmt: String,
        args: Vec<LogArg>,
    },
    Assert(Expr),
}

/// One value `log_msg` prints: data, or a whole header (BMv2 prints its
/// validity and fields, p4c's issue2201-bmv2).
#[derive(Debug)]
pub enum LogArg {
    Value(Expr),
    Header(usize),
}

impl Primitive {
    /// The register array the primitive reads or writes, if any: only
    /// register_read and register_write touch registers (expressions
    /// cannot name one).
    pub fn register(&self) -> Option<usize> {
        match self {
            Primitive::RegisterRead { register, .. }
            | Primitive::RegisterWrite { register, .. } => Some(*register),
            _ => None,
        }
    }
}

#[derive(Debug)]
pub struct ActionParam {
    pub name: String,
    pub width: u32,
}

#[derive(Debug)]
pub struct Action {
    pub name: String,
    pub params: Vec<ActionParam>,
    pub body: Vec<Primitive>,
    /// The register arrays the body references, ascending and distinct
    /// (at most `MAX_ACTION_REGISTERS`): all are locked while it runs.
    pub registers: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node {
    Table(usize),
    Conditional(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    Exact,
    Lpm,
    Ternary,
    Range,
}

impl MatchKind {
    pub fn name(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Lpm => "lpm",
            MatchKind::Ternary => "ternary",
            MatchKind::Range => "range",
        }
    }
}

#[derive(Debug)]
pub enum KeySource {
    Field(usize),
    Valid(usize),
}

#[derive(Debug)]
pub struct KeySpec {
    pub name: String,
    pub source: KeySource,
    pub kind: MatchKind,
    pub width: u32,
    /// Applied to the field before matching (`key = { f & 0xff: exact; }`).
    pub mask: Option<u128>,
}

/// An action with its parameter values, as stored in a table entry.
#[derive(Debug, Clone)]
pub struct ActionCall {
    pub action: usize,
    pub data: Vec<u128>,
}

/// One match-field value of an entry: exact and LPM are stored as ternary
/// value/mask; range as low/high.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeyValue {
    Masked {
        value: u128,
        mask: u128,
        prefix: Option<u32>,
    },
    Range {
        low: u128,
        high: u128,
    },
}

/// What an entry runs: an action of its own, or, in a table with an action
/// profile, a member of the profile or a group of members to choose from.
#[derive(Debug, Clone)]
pub enum EntryAction {
    Call(ActionCall),
    Member(usize),
    Group(usize),
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub keys: Vec<KeyValue>,
    pub action: EntryAction,
    /// Higher wins (P4Runtime semantics).
    pub priority: i64,
}

#[derive(Debug)]
pub struct Table {
    pub name: String,
    pub keys: Vec<KeySpec>,
    pub max_size: u64,
    /// Action ids (indices into `Program::actions`) this table may use.
    pub actions: Vec<usize>,
    /// Next node after each action, indexed like `actions`.
    pub next_by_action: Vec<Option<Node>>,
    /// `__HIT__`/`__MISS__` next nodes, when the program branches on hit.
    pub hit_next: Option<Option<Node>>,
    pub miss_next: Option<Option<Node>>,
    /// The node after a hit or miss that runs no action (a table with an action
    /// profile and no default entry, or an empty group): `base_default_next`.
    pub base_next: Option<Node>,
    pub default: ActionCall,
    /// False for a table with an action profile and no `default_entry`: a miss
    /// then runs no action, as BMv2's indirect tables do.
    pub has_default: bool,
    /// The action profile (index into `Program::action_profiles`) whose members
    /// and groups the entries point to; `None` for a direct table.
    pub profile: Option<usize>,
    /// The default action may not change (`const default_action`).
    pub default_const: bool,
    /// Neither the default action nor its data may change.
    pub default_entry_const: bool,
    /// Direct counter attached (`with_counters`): counts hits per entry.
    pub with_counters: bool,
    /// Entries may age out (`support_timeout`): each hit records its time.
    pub support_timeout: bool,
    /// Direct meter attached: executed on every hit, color written to
    /// `result` (a field index).
    pub direct_meter: Option<DirectMeter>,
    /// Entries from the JSON `entries` (P4 `const entries`); such a table is
    /// immutable at run time.
    pub const_entries: Option<Vec<Entry>>,
}

/// A v1model action_profile or action_selector: members (actions with their
/// data) and, with a selector, groups of members that a hash of the
/// selector's input chooses from.
#[derive(Debug)]
pub struct ActionProfile {
    pub name: String,
    pub max_size: u64,
    /// The calculation (index into `Program::calculations`) over the selector
    /// keys; `None` for a profile without a selector.
    pub selector: Option<usize>,
}

#[derive(Debug)]
pub struct Conditional {
    pub name: String,
    pub expr: Expr,
    pub true_next: Option<Node>,
    pub false_next: Option<Node>,
}

#[derive(Debug)]
pub struct Control {
    pub name: String,
    pub init: Option<Node>,
}

#[derive(Debug)]
pub enum ParserOp {
    Extract(usize),
    /// `extract(hdr, bits)`: a header with a varbit field of `bits` bits.
    ExtractVarbit(usize, Expr),
    /// Extract into the next element of a stack.
    ExtractNext(usize),
    /// `extract(hs.next, bits)`: the next element of a stack whose header has a
    /// varbit field of `bits` bits.
    ExtractNextVarbit(usize, Expr),
    /// Extract into member `member` of the next element of a union stack;
    /// with `size`, a member whose varbit field is `size` bits (`extract_VL`).
    ExtractUnionNext {
        stack: usize,
        member: usize,
        size: Option<Expr>,
    },
    Set(usize, Expr),
    /// `field = packet.lookahead<bit<width>>()`: (field, offset, width).
    SetLookahead(usize, u32, u32),
    Verify {
        cond: Expr,
        error: Expr,
    },
    /// Skip this many bits (whole bytes only, as headers are byte-aligned).
    Advance(Expr),
    Primitive(Primitive),
}

#[derive(Debug)]
pub enum KeyPart {
    Expr(Expr),
    /// Bits of the packet after the current position: (offset, width).
    Lookahead(u32, u32),
}

/// What a transition's key must be for the transition to be taken.
#[derive(Debug)]
pub enum TransitionMatch {
    Default,
    /// Per key part: (value, mask).
    Values(Vec<(u128, u128)>),
    /// The key parts concatenated at their widths are a member of this
    /// value set (index into `Program::value_sets`).
    ValueSet(usize),
}

#[derive(Debug)]
pub struct Transition {
    pub matches: TransitionMatch,
    /// `None` is accept.
    pub next: Option<usize>,
}

#[derive(Debug)]
pub struct ParseState {
    pub name: String,
    pub ops: Vec<ParserOp>,
    pub key: Vec<KeyPart>,
    /// Width of each key part: a value set's member is the parts
    /// concatenated at these widths.
    pub key_widths: Vec<u32>,
    pub transitions: Vec<Transition>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    Csum16,
    Crc16,
    Crc32,
    Identity,
    Xor16,
}

#[derive(Debug)]
pub enum CalcInput {
    /// A field and its header: BMv2 leaves out the fields of an invalid header.
    Field {
        field: usize,
        header: usize,
    },
    /// A varbit field: its bytes (varbit slot), as long as they are; left out
    /// when its header is invalid.
    Varbit {
        slot: usize,
        header: usize,
    },
    Const {
        value: u128,
        width: u32,
    },
    Header(usize),
    Payload,
}

#[derive(Debug)]
pub struct Calculation {
    pub name: String,
    pub algo: Algorithm,
    pub inputs: Vec<CalcInput>,
}

#[derive(Debug)]
pub struct Checksum {
    pub name: String,
    pub target: usize,
    pub calculation: usize,
    pub verify: bool,
    pub update: bool,
    pub cond: Option<Expr>,
}

#[derive(Debug)]
pub struct RegisterArray {
    pub name: String,
    pub size: usize,
    pub width: u32,
}

#[derive(Debug)]
pub struct CounterArray {
    pub name: String,
    pub size: usize,
    /// Direct counters live with their table's entries, not here.
    pub direct: bool,
}

/// What a meter measures, from the JSON `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeterUnit {
    Packets,
    Bytes,
}

#[derive(Debug)]
pub struct MeterArray {
    pub name: String,
    pub size: usize,
    pub unit: MeterUnit,
    /// Direct meters live with their table's entries, not here.
    pub direct: bool,
}

#[derive(Debug, Clone, Copy)]
pub struct DirectMeter {
    pub meter: usize,
    pub result: usize,
}

/// A digest's fields, sent to the controller by `generate_digest`.
#[derive(Debug)]
pub struct LearnList {
    pub name: String,
    pub fields: Vec<usize>,
}

/// Indices of the `standard_metadata` fields the switch reads or writes;
/// each is optional because a program's JSON may omit some.
#[derive(Debug, Default)]
pub struct StdMeta {
    pub ingress_port: Option<usize>,
    pub egress_spec: Option<usize>,
    pub egress_port: Option<usize>,
    pub instance_type: Option<usize>,
    pub packet_length: Option<usize>,
    pub enq_timestamp: Option<usize>,
    pub enq_qdepth: Option<usize>,
    pub deq_timedelta: Option<usize>,
    pub deq_qdepth: Option<usize>,
    pub ingress_global_timestamp: Option<usize>,
    pub egress_global_timestamp: Option<usize>,
    pub mcast_grp: Option<usize>,
    pub egress_rid: Option<usize>,
    pub qid: Option<usize>,
    pub priority: Option<usize>,
    pub checksum_error: Option<usize>,
    pub parser_error: Option<usize>,
}

#[derive(Debug)]
pub struct Program {
    pub fields: Vec<FieldInfo>,
    pub headers: Vec<HeaderInfo>,
    pub stacks: Vec<StackInfo>,
    pub unions: Vec<UnionInfo>,
    pub union_stacks: Vec<UnionStackInfo>,
    /// Number of varbit slots in the PHV (one per header with a varbit field).
    pub num_varbits: usize,
    pub errors: Vec<(String, u32)>,
    pub error_packet_too_short: u32,
    pub error_stack_out_of_bounds: u32,
    pub error_no_match: u32,
    pub parse_states: Vec<ParseState>,
    pub parser_init: Option<usize>,
    pub value_sets: Vec<ValueSet>,
    pub deparse_order: Vec<usize>,
    /// Extern calls in the deparser, run after the checksum update and
    /// before the headers are emitted (BMv2's `Deparser::deparse`).
    pub deparser_primitives: Vec<Primitive>,
    pub actions: Vec<Action>,
    pub tables: Vec<Table>,
    pub action_profiles: Vec<ActionProfile>,
    pub conditionals: Vec<Conditional>,
    pub ingress: Control,
    pub egress: Control,
    pub calculations: Vec<Calculation>,
    pub checksums: Vec<Checksum>,
    pub registers: Vec<RegisterArray>,
    pub counters: Vec<CounterArray>,
    pub meters: Vec<MeterArray>,
    pub learn_lists: Vec<LearnList>,
    /// Fields of each field list (by index; see `Primitive::Clone`).
    pub field_lists: Vec<Vec<usize>>,
    /// Some action clones ingress packets to egress: the switch then keeps
    /// a copy of each packet's parsed headers for the clone.
    pub clones_in_ingress: bool,
    pub std: StdMeta,
    pub table_by_name: HashMap<String, usize>,
    pub action_by_name: HashMap<String, usize>,
}

impl Program {
    pub fn table_index(&self, name: &str) -> Option<usize> {
        self.table_by_name.get(name).copied()
    }

    pub fn action_profile_index(&self, name: &str) -> Option<usize> {
        self.action_profiles.iter().position(|p| p.name == name)
    }

    pub fn register_index(&self, name: &str) -> Option<usize> {
        self.registers.iter().position(|r| r.name == name)
    }

    pub fn counter_index(&self, name: &str) -> Option<usize> {
        self.counters.iter().position(|c| c.name == name)
    }

    pub fn meter_index(&self, name: &str) -> Option<usize> {
        self.meters.iter().position(|m| m.name == name)
    }

    pub fn value_set_index(&self, name: &str) -> Option<usize> {
        self.value_sets.iter().position(|v| v.name == name)
    }

    pub fn action_index(&self, name: &str) -> Option<usize> {
        self.action_by_name.get(name).copied()
    }

    pub fn error_name(&self, value: u128) -> &str {
        self.errors
            .iter()
            .find(|(_, v)| u128::from(*v) == value)
            .map_or("?", |(n, _)| n.as_str())
    }
}

/// All-ones mask of `width` bits.
pub fn width_mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// Mask selecting the top `len` bits of a `width`-bit value (an LPM prefix).
pub fn prefix_mask(width: u32, len: u32) -> u128 {
    let len = len.min(width);
    width_mask(width) & !width_mask(width - len)
}

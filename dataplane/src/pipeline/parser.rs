//! The programmable parser: runs parse states over the packet bytes and fills
//! the PHV. Errors follow BMv2: parsing stops, `standard_metadata.parser_error`
//! is set and the packet still goes to ingress.

use super::expr::eval;
use super::{Exec, Flow};
use crate::packet::{read_bits, read_header, Phv};
use crate::program::{
    width_mask, Expr, KeyPart, ParseState, ParserOp, Program, Transition, TransitionMatch,
};

/// Bound on visited states: without header stacks a parser cannot make
/// progress forever, but a malformed program could loop without extracting.
const MAX_STATES: usize = 1024;

/// Parses `data`; returns the offset of the first unparsed byte (the
/// payload). `exec.key` is used as scratch for select keys.
pub fn parse(exec: &mut Exec, phv: &mut Phv, data: &[u8]) -> usize {
    let prog = exec.prog;
    let mut pos = 0usize;
    let mut state = prog.parser_init;
    let mut visited = 0;
    while let Some(s) = state {
        visited += 1;
        if visited > MAX_STATES {
            set_error(prog, phv, error_value(prog, "ParserTimeout", 5), exec.trace);
            return pos;
        }
        let st = &prog.parse_states[s];
        if exec.trace {
            eprintln!("[dp]   parser state {}", st.name);
        }
        for op in &st.ops {
            if !run_op(exec, phv, data, &mut pos, op) {
                return pos;
            }
        }
        if !select_key(exec, phv, data, pos, st) {
            return pos;
        }
        match choose(prog, st, exec.key, exec.trace) {
            Some(t) => state = t.next,
            None => {
                set_error(prog, phv, u128::from(prog.error_no_match), exec.trace);
                return pos;
            }
        }
    }
    pos
}

/// Runs one op of a parse state at `pos`; false when parsing stops there
/// (parser_error set, or `exit`).
fn run_op(exec: &mut Exec, phv: &mut Phv, data: &[u8], pos: &mut usize, op: &ParserOp) -> bool {
    let (prog, trace) = (exec.prog, exec.trace);
    match op {
        ParserOp::Extract(h) => extract(prog, phv, data, pos, *h, 0, trace),
        ParserOp::ExtractVarbit(h, size) => {
            let bits = eval(prog, phv, &[], size);
            let Some(var_bytes) = varbit_bytes(prog, phv, *h, bits, trace) else {
                return false;
            };
            extract(prog, phv, data, pos, *h, var_bytes, trace)
        }
        ParserOp::ExtractNext(st) => extract_next(prog, phv, data, pos, *st, None, trace),
        ParserOp::ExtractNextVarbit(st, size) => {
            extract_next(prog, phv, data, pos, *st, Some(size), trace)
        }
        ParserOp::ExtractUnionNext {
            stack,
            member,
            size,
        } => {
            let element = (*stack, *member);
            extract_union_next(prog, phv, data, pos, element, size.as_ref(), trace)
        }
        ParserOp::Set(f, e) => {
            let v = eval(prog, phv, &[], e) as u128;
            phv.set(prog, *f, v);
            true
        }
        ParserOp::SetLookahead(f, off, w) => {
            let Some(v) = peek(data, *pos, *off, *w) else {
                set_error(prog, phv, u128::from(prog.error_packet_too_short), trace);
                return false;
            };
            phv.set(prog, *f, v);
            true
        }
        ParserOp::Verify { cond, error } => {
            let holds = eval(prog, phv, &[], cond) != 0;
            if !holds {
                let err = eval(prog, phv, &[], error) as u128;
                set_error(prog, phv, err, trace);
            }
            holds
        }
        ParserOp::Advance(bits) => {
            let bits = eval(prog, phv, &[], bits);
            let bytes = usize::try_from(bits / 8).unwrap_or(usize::MAX);
            if bits < 0 || bits % 8 != 0 || data.len().saturating_sub(*pos) < bytes {
                set_error(prog, phv, u128::from(prog.error_packet_too_short), trace);
                return false;
            }
            *pos += bytes;
            true
        }
        ParserOp::Primitive(p) => !matches!(exec.primitive(phv, &[], p), Flow::Exit),
    }
}

/// Fills `exec.key` with the state's select key; false, with parser_error
/// set, when a lookahead reads past the packet.
fn select_key(exec: &mut Exec, phv: &mut Phv, data: &[u8], pos: usize, st: &ParseState) -> bool {
    let prog = exec.prog;
    exec.key.clear();
    for part in &st.key {
        let v = match part {
            KeyPart::Expr(e) => eval(prog, phv, &[], e) as u128,
            KeyPart::Lookahead(off, w) => match peek(data, pos, *off, *w) {
                Some(v) => v,
                None => {
                    let err = u128::from(prog.error_packet_too_short);
                    set_error(prog, phv, err, exec.trace);
                    return false;
                }
            },
        };
        exec.key.push(v);
    }
    true
}

/// The state's first transition whose match takes the select key.
fn choose<'p>(
    prog: &'p Program,
    st: &'p ParseState,
    key: &[u128],
    trace: bool,
) -> Option<&'p Transition> {
    st.transitions.iter().find(|t| match &t.matches {
        TransitionMatch::Default => true,
        TransitionMatch::Values(vals) => {
            vals.iter().zip(key.iter()).all(|(&(v, m), &k)| k & m == v)
        }
        TransitionMatch::ValueSet(vs) => {
            let set = &prog.value_sets[*vs];
            let key = concat_key(key, &st.key_widths);
            let hit = set.contains(key);
            if trace {
                let verdict = if hit { "matched" } else { "not matched" };
                eprintln!("[dp]     value set {} {verdict} by key {key:#x}", set.name);
            }
            hit
        }
    })
}

/// The select key as a value set's member: the parts concatenated at their
/// widths, the first part in the high bits (the loader checked that they fit
/// in 128 bits).
fn concat_key(parts: &[u128], widths: &[u32]) -> u128 {
    parts.iter().zip(widths).fold(0, |acc, (&k, &w)| {
        acc.checked_shl(w).unwrap_or(0) | (k & width_mask(w))
    })
}

/// `width` bits at `offset` bits past byte `pos`, if the packet has them.
fn peek(data: &[u8], pos: usize, offset: u32, width: u32) -> Option<u128> {
    let start = pos * 8 + offset as usize;
    (data.len() * 8 >= start + width as usize).then(|| read_bits(data, start, width))
}

/// Extracts into the next element of stack `st` (with a varbit field of `size` bits
/// when given); false, with parser_error set, when the stack is full, the length
/// is bad or the packet too short.
fn extract_next(
    prog: &Program,
    phv: &mut Phv,
    data: &[u8],
    pos: &mut usize,
    st: usize,
    size: Option<&Expr>,
    trace: bool,
) -> bool {
    let h = prog.stacks[st].headers.get(phv.next[st]).copied();
    if !extract_element(prog, phv, data, pos, h, size, trace) {
        return false;
    }
    phv.next[st] += 1;
    true
}

/// Extract into member `member` of a union stack's next element (with a
/// varbit length for a member that has a varbit field); false when parsing
/// stops.
fn extract_union_next(
    prog: &Program,
    phv: &mut Phv,
    data: &[u8],
    pos: &mut usize,
    (stack, member): (usize, usize),
    size: Option<&Expr>,
    trace: bool,
) -> bool {
    let unions = &prog.union_stacks[stack].unions;
    let h = unions
        .get(phv.union_next[stack])
        .map(|&u| prog.unions[u].headers[member]);
    if !extract_element(prog, phv, data, pos, h, size, trace) {
        return false;
    }
    phv.union_next[stack] += 1;
    true
}

/// Extract into a stack's next element `h` (None: the stack is full,
/// StackOutOfBounds), with `size` varbit bits when given; false when parsing
/// stops.
fn extract_element(
    prog: &Program,
    phv: &mut Phv,
    data: &[u8],
    pos: &mut usize,
    h: Option<usize>,
    size: Option<&Expr>,
    trace: bool,
) -> bool {
    let Some(h) = h else {
        let err = u128::from(prog.error_stack_out_of_bounds);
        set_error(prog, phv, err, trace);
        return false;
    };
    let Some(var_bytes) = sized(prog, phv, h, size, trace) else {
        return false;
    };
    extract(prog, phv, data, pos, h, var_bytes, trace)
}

/// The varbit bytes of an extract into `h`: 0 without a length, else the
/// length `size` evaluates to (None with parser_error set, see `varbit_bytes`).
fn sized(
    prog: &Program,
    phv: &mut Phv,
    h: usize,
    size: Option<&Expr>,
    trace: bool,
) -> Option<usize> {
    match size {
        Some(size) => {
            let bits = eval(prog, phv, &[], size);
            varbit_bytes(prog, phv, h, bits, trace)
        }
        None => Some(0),
    }
}

/// The varbit length of `extract(hdr, bits)` in bytes, or None with
/// parser_error set: whole bytes only (as BMv2 requires), and at most the
/// field's maximum (HeaderTooShort, as the P4_16 spec says).
fn varbit_bytes(prog: &Program, phv: &mut Phv, h: usize, bits: i128, trace: bool) -> Option<usize> {
    let max_bits = prog.headers[h].varbit.map_or(0, |v| v.max_bits);
    if bits < 0 || bits % 8 != 0 {
        let err = error_value(prog, "ParserInvalidArgument", 6);
        set_error(prog, phv, err, trace);
        return None;
    }
    if bits > i128::from(max_bits) {
        set_error(prog, phv, error_value(prog, "HeaderTooShort", 4), trace);
        return None;
    }
    usize::try_from(bits / 8).ok()
}

/// Extracts header `h` at `*pos`, its varbit field (if any) taking
/// `var_bytes`; false (with parser_error set) if the packet is too short.
fn extract(
    prog: &Program,
    phv: &mut Phv,
    data: &[u8],
    pos: &mut usize,
    h: usize,
    var_bytes: usize,
    trace: bool,
) -> bool {
    let hi = &prog.headers[h];
    let len = hi.bits as usize / 8 + var_bytes;
    if data.len().saturating_sub(*pos) < len {
        set_error(prog, phv, u128::from(prog.error_packet_too_short), trace);
        return false;
    }
    read_header(prog, phv, h, data, *pos, var_bytes);
    phv.make_valid(prog, h);
    *pos += len;
    if trace {
        eprintln!("[dp]     extract {} ({len} bytes)", hi.name);
    }
    true
}

fn error_value(prog: &Program, name: &str, default: u32) -> u128 {
    u128::from(
        prog.errors
            .iter()
            .find(|(n, _)| n == name)
            .map_or(default, |(_, v)| *v),
    )
}

fn set_error(prog: &Program, phv: &mut Phv, err: u128, trace: bool) {
    if trace {
        eprintln!("[dp]     parser error {}", prog.error_name(err));
    }
    phv.set_opt(prog, prog.std.parser_error, err);
}

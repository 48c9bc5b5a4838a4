//! Evaluation of BMv2 expression trees.

use crate::packet::Phv;
use crate::program::{width_mask, BinOp, Expr, HeaderAt, Program, UnOp, UnionAt};

/// Reads a field as an expression value, sign-extending signed fields.
pub fn field_value(prog: &Program, phv: &Phv, field: usize) -> i128 {
    let f = &prog.fields[field];
    let v = phv.get(field);
    if f.signed {
        sign_extend(v, f.width)
    } else {
        v as i128
    }
}

/// Headers compared as BMv2 does: both invalid, or both valid with every field (and a
/// varbit field's bytes) equal.
fn headers_equal(prog: &Program, phv: &Phv, a: usize, b: usize) -> bool {
    let (ha, hb) = (&prog.headers[a], &prog.headers[b]);
    match (phv.valid[a], phv.valid[b]) {
        (false, false) => true,
        (true, true) => {
            ha.num_fields == hb.num_fields
                && (0..ha.num_fields)
                    .all(|i| phv.get(ha.first_field + i) == phv.get(hb.first_field + i))
                && match (ha.varbit, hb.varbit) {
                    (Some(x), Some(y)) => phv.var[x.slot] == phv.var[y.slot],
                    (None, None) => true,
                    _ => false,
                }
        }
        _ => false,
    }
}

/// The header instance `h` names, or `None` for a run-time index outside its stack.
/// The spec ("Reading uninitialized values and writing fields of invalid headers")
/// leaves such a read unspecified and says such a write changes nothing; BMv2
/// throws `std::out_of_range` there, which ends simple_switch.
pub fn header_at(prog: &Program, phv: &Phv, params: &[u128], h: &HeaderAt) -> Option<usize> {
    match h {
        HeaderAt::Instance(h) => Some(*h),
        HeaderAt::StackElement { stack, index } => {
            element(&prog.stacks[*stack].headers, eval(prog, phv, params, index))
        }
        HeaderAt::UnionMember { union, member } => {
            let u = union_at(prog, phv, params, union)?;
            prog.unions[u].headers.get(*member).copied()
        }
    }
}

/// The header union `u` names, or `None` for a run-time index outside its stack.
pub fn union_at(prog: &Program, phv: &Phv, params: &[u128], u: &UnionAt) -> Option<usize> {
    match u {
        UnionAt::Instance(u) => Some(*u),
        UnionAt::StackElement { stack, index } => element(
            &prog.union_stacks[*stack].unions,
            eval(prog, phv, params, index),
        ),
    }
}

fn element(elements: &[usize], index: i128) -> Option<usize> {
    usize::try_from(index)
        .ok()
        .and_then(|i| elements.get(i).copied())
}

fn unions_equal(prog: &Program, phv: &Phv, a: usize, b: usize) -> bool {
    let (ua, ub) = (&prog.unions[a].headers, &prog.unions[b].headers);
    let valid_a = ua.iter().position(|&h| phv.valid[h]);
    let valid_b = ub.iter().position(|&h| phv.valid[h]);
    match (valid_a, valid_b) {
        (None, None) => true,
        (Some(i), Some(j)) if i == j => headers_equal(prog, phv, ua[i], ub[j]),
        _ => false,
    }
}

fn sign_extend(v: u128, width: u32) -> i128 {
    if width >= 128 {
        return v as i128;
    }
    let shift = 128 - width;
    ((v << shift) as i128) >> shift
}

/// Evaluates `e`; booleans are 0 or 1. Arithmetic wraps at 128 bits, and
/// p4c masks every result to its P4 width, so wrap-around at the field width
/// comes from the program's own `&` masks as in BMv2.
pub fn eval(prog: &Program, phv: &Phv, params: &[u128], e: &Expr) -> i128 {
    match e {
        Expr::Field(f) => field_value(prog, phv, *f),
        Expr::Const(c) => *c,
        // An element outside its stack reads as invalid, and its fields as 0.
        Expr::Valid(h) => i128::from(header_at(prog, phv, params, h).is_some_and(|h| phv.valid[h])),
        Expr::FieldAt { header, offset } => header_at(prog, phv, params, header).map_or(0, |h| {
            field_value(prog, phv, prog.headers[h].first_field + offset)
        }),
        // The spec defines lastIndex as nextIndex - 1 in bit<32>: an empty
        // stack gives -1, which p4c's mask turns into all ones, as the
        // unsigned wrap-around would.
        Expr::LastStackIndex(st) => phv.next[*st] as i128 - 1,
        Expr::LastUnionStackIndex(st) => phv.union_next[*st] as i128 - 1,
        Expr::ValidUnion(u) => {
            i128::from(union_at(prog, phv, params, u).is_some_and(|u| phv.union_valid(prog, u)))
        }
        Expr::HeaderEq(pair) => i128::from(header_refs_equal(prog, phv, params, pair)),
        Expr::VarbitEq(a, b) => i128::from(phv.var[*a] == phv.var[*b]),
        Expr::UnionEq(pair) => i128::from(union_refs_equal(prog, phv, params, pair)),
        Expr::StackField(st, off) => last_element_field(prog, phv, *st, *off),
        Expr::UnionStackField {
            stack,
            member,
            offset,
        } => last_union_member_field(prog, phv, *stack, *member, *offset),
        Expr::Param(i) => params.get(*i).copied().unwrap_or(0) as i128,
        Expr::Unary(op, x) => unary(*op, eval(prog, phv, params, x)),
        Expr::Binary(BinOp::And, l, r) => {
            i128::from(eval(prog, phv, params, l) != 0 && eval(prog, phv, params, r) != 0)
        }
        Expr::Binary(BinOp::Or, l, r) => {
            i128::from(eval(prog, phv, params, l) != 0 || eval(prog, phv, params, r) != 0)
        }
        Expr::Binary(op, l, r) => {
            binary(*op, eval(prog, phv, params, l), eval(prog, phv, params, r))
        }
        Expr::Ternary(c, a, b) => {
            if eval(prog, phv, params, c) != 0 {
                eval(prog, phv, params, a)
            } else {
                eval(prog, phv, params, b)
            }
        }
        Expr::TwoCompMod(x, w) => {
            sign_extend(eval(prog, phv, params, x) as u128 & width_mask(*w), *w)
        }
        Expr::SatCast {
            value,
            width,
            signed,
        } => saturate(eval(prog, phv, params, value), *width, *signed),
    }
}

/// `==` of two headers. Unspecified with an element outside its stack: such
/// a header compares unequal.
fn header_refs_equal(
    prog: &Program,
    phv: &Phv,
    params: &[u128],
    pair: &(HeaderAt, HeaderAt),
) -> bool {
    let (a, b) = (
        header_at(prog, phv, params, &pair.0),
        header_at(prog, phv, params, &pair.1),
    );
    a.zip(b)
        .is_some_and(|(a, b)| headers_equal(prog, phv, a, b))
}

/// `==` of two header unions; as for headers, one outside its stack is unequal.
fn union_refs_equal(prog: &Program, phv: &Phv, params: &[u128], pair: &(UnionAt, UnionAt)) -> bool {
    let (a, b) = (
        union_at(prog, phv, params, &pair.0),
        union_at(prog, phv, params, &pair.1),
    );
    a.zip(b).is_some_and(|(a, b)| unions_equal(prog, phv, a, b))
}

/// A field of a stack's `.last`.
fn last_element_field(prog: &Program, phv: &Phv, stack: usize, offset: usize) -> i128 {
    match phv.next[stack].checked_sub(1) {
        Some(last) => {
            let h = &prog.headers[prog.stacks[stack].headers[last]];
            field_value(prog, phv, h.first_field + offset)
        }
        // BMv2 raises an error for `.last` of an empty stack; we read 0.
        None => 0,
    }
}

/// A field of one member of a union stack's `.last`.
fn last_union_member_field(
    prog: &Program,
    phv: &Phv,
    stack: usize,
    member: usize,
    offset: usize,
) -> i128 {
    match phv.union_next[stack].checked_sub(1) {
        Some(last) => {
            let u = prog.union_stacks[stack].unions[last];
            let h = &prog.headers[prog.unions[u].headers[member]];
            field_value(prog, phv, h.first_field + offset)
        }
        // As for a stack_field: 0 where BMv2 raises an error.
        None => 0,
    }
}

fn unary(op: UnOp, v: i128) -> i128 {
    match op {
        UnOp::Not => i128::from(v == 0),
        UnOp::BitNeg => !v,
        UnOp::D2b => i128::from(v != 0),
        UnOp::B2d => v,
    }
}

/// `v` clamped to the range of a `width`-bit integer, signed or not.
fn saturate(v: i128, width: u32, signed: bool) -> i128 {
    let (lo, hi) = match (signed, width >= 128) {
        (true, true) => (i128::MIN, i128::MAX),
        (true, false) => (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1),
        (false, _) => (0, width_mask(width).min(i128::MAX as u128) as i128),
    };
    v.clamp(lo, hi)
}

fn binary(op: BinOp, l: i128, r: i128) -> i128 {
    match op {
        BinOp::Add => l.wrapping_add(r),
        BinOp::Sub => l.wrapping_sub(r),
        BinOp::Mul => l.wrapping_mul(r),
        BinOp::Div => l.checked_div(r).unwrap_or(0),
        BinOp::Mod => l.checked_rem(r).unwrap_or(0),
        BinOp::Shl => {
            if (0..128).contains(&r) {
                l.wrapping_shl(r as u32)
            } else {
                0
            }
        }
        BinOp::Shr => {
            if (0..128).contains(&r) {
                l >> r
            } else if l < 0 {
                -1
            } else {
                0
            }
        }
        BinOp::Eq => i128::from(l == r),
        BinOp::Ne => i128::from(l != r),
        BinOp::Gt => i128::from(l > r),
        BinOp::Ge => i128::from(l >= r),
        BinOp::Lt => i128::from(l < r),
        BinOp::Le => i128::from(l <= r),
        BinOp::BitAnd => l & r,
        BinOp::BitOr => l | r,
        BinOp::BitXor => l ^ r,
        BinOp::And => i128::from(l != 0 && r != 0),
        BinOp::Or => i128::from(l != 0 || r != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_decrement_wraps_through_mask() {
        // p4c emits ttl - 1 as (ttl + 0xff) & 0xff.
        assert_eq!(
            binary(BinOp::BitAnd, binary(BinOp::Add, 0, 0xff), 0xff),
            0xff
        );
        assert_eq!(
            binary(BinOp::BitAnd, binary(BinOp::Add, 64, 0xff), 0xff),
            63
        );
    }

    #[test]
    fn shifts_and_division_never_panic() {
        assert_eq!(binary(BinOp::Shl, 1, 200), 0);
        assert_eq!(binary(BinOp::Shr, -4, 300), -1);
        assert_eq!(binary(BinOp::Div, 5, 0), 0);
        assert_eq!(binary(BinOp::Mod, i128::MIN, -1), 0);
    }

    #[test]
    fn sign_extension() {
        assert_eq!(sign_extend(0xff, 8), -1);
        assert_eq!(sign_extend(0x7f, 8), 127);
    }

    #[test]
    fn casts_ternary_and_logic() {
        let prog =
            crate::program::load(br#"{"pipelines": [{"name": "ingress"}, {"name": "egress"}]}"#)
                .unwrap();
        let phv = Phv::new(&prog);
        let c = |v: i128| Box::new(Expr::Const(v));
        let ev = |e: &Expr| eval(&prog, &phv, &[], e);
        assert_eq!(ev(&Expr::TwoCompMod(c(0xff), 8)), -1);
        assert_eq!(ev(&Expr::TwoCompMod(c(0x17f), 8)), 127);
        let sat = |v, width, signed| Expr::SatCast {
            value: c(v),
            width,
            signed,
        };
        assert_eq!(ev(&sat(300, 8, false)), 255);
        assert_eq!(ev(&sat(-5, 8, false)), 0);
        assert_eq!(ev(&sat(200, 8, true)), 127);
        assert_eq!(ev(&sat(-200, 8, true)), -128);
        assert_eq!(ev(&sat(i128::MIN, 128, true)), i128::MIN);
        assert_eq!(ev(&Expr::Ternary(c(0), c(1), c(2))), 2);
        assert_eq!(ev(&Expr::Binary(BinOp::Or, c(0), c(7))), 1);
        assert_eq!(ev(&Expr::Unary(UnOp::Not, c(0))), 1);
        assert_eq!(
            ev(&Expr::Binary(
                BinOp::BitAnd,
                Box::new(Expr::Unary(UnOp::BitNeg, c(0))),
                c(0xff)
            )),
            0xff
        );
    }

    #[test]
    fn last_stack_index_follows_next_index() {
        let prog = crate::program::load(
            br#"{"header_types": [{"name": "e_t", "fields": [["v", 8]]}],
                 "headers": [{"name": "s[0]", "header_type": "e_t"},
                             {"name": "s[1]", "header_type": "e_t"}],
                 "header_stacks": [{"name": "s", "header_ids": [0, 1]}],
                 "pipelines": [{"name": "ingress"}, {"name": "egress"}]}"#,
        )
        .unwrap();
        let mut phv = Phv::new(&prog);
        let last = Expr::LastStackIndex(0);
        // Empty: nextIndex - 1 wraps; p4c masks it to the all-ones bit<32>.
        assert_eq!(eval(&prog, &phv, &[], &last) & 0xffff_ffff, 0xffff_ffff);
        phv.next[0] = 2;
        assert_eq!(eval(&prog, &phv, &[], &last), 1);
    }
}

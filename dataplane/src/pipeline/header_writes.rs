//! The primitives that write whole headers, unions and stacks, and fields of
//! headers chosen at run time (`access_field` of a stack element).

use super::expr::{eval, header_at, union_at};
use crate::packet::Phv;
use crate::program::{Primitive, Program};

/// Runs `p`, one of the header-writing primitives. A write through an index
/// outside its stack changes nothing (see `header_at`).
pub(super) fn run(prog: &Program, phv: &mut Phv, params: &[u128], p: &Primitive) {
    match p {
        Primitive::AssignAt {
            header,
            offset,
            value,
        } => {
            // The destination is resolved first, as BMv2 evaluates it.
            if let Some(h) = header_at(prog, phv, params, header) {
                let v = eval(prog, phv, params, value) as u128;
                phv.set(prog, prog.headers[h].first_field + offset, v);
            }
        }
        Primitive::AssignHeader { dst, src } => {
            let dst = header_at(prog, phv, params, dst);
            if let Some((d, s)) = dst.zip(header_at(prog, phv, params, src)) {
                phv.copy_header(prog, d, s);
            }
        }
        Primitive::AssignUnion { dst, src } => {
            let dst = union_at(prog, phv, params, dst);
            if let Some((d, s)) = dst.zip(union_at(prog, phv, params, src)) {
                phv.copy_union(prog, d, s);
            }
        }
        Primitive::AssignHeaderStack { dst, src } => phv.copy_stack(prog, *dst, *src),
        Primitive::AssignUnionStack { dst, src } => phv.copy_union_stack(prog, *dst, *src),
        Primitive::StackShift { stack, count, push } => {
            phv.shift_stack(prog, *stack, *count, *push);
        }
        Primitive::UnionStackShift { stack, count, push } => {
            phv.shift_union_stack(prog, *stack, *count, *push);
        }
        Primitive::SetValid(h, on) => {
            if let Some(h) = header_at(prog, phv, params, h) {
                phv.set_validity(prog, h, *on);
            }
        }
        _ => unreachable!("not a header-writing primitive: {p:?}"),
    }
}

//! Headers and unions that an expression names, fixed or chosen at run time
//! (JSON_format.md, "The type value object"): `dereference_header_stack` picks a
//! stack element by a computed index, `dereference_union_stack` a union stack
//! element, `access_union_header` a member of a union, and `access_field` a field
//! of any such header. p4c emits them for `hs[i].f` with a run-time `i`.

use serde_json::Value;

use super::{type_of, Loader, Result, Scope};
use crate::program::{Expr, HeaderAt, UnionAt, MAX_FIELD_WIDTH};

impl Loader {
    /// A header operand: `header`, or an `expression` whose operator yields a header.
    pub(super) fn header_at(&self, v: &Value, sc: Scope) -> Result<HeaderAt> {
        let what = sc.what;
        match type_of(v) {
            "header" => Ok(HeaderAt::Instance(self.typed_header(v, what)?)),
            "expression" => {
                let e = &v["value"];
                match e["op"].as_str().unwrap_or("") {
                    "dereference_header_stack" | "dereference_stack" => {
                        if type_of(&e["left"]) != "header_stack" {
                            return Err(format!(
                                "{what}: dereference_header_stack needs a header_stack on its left"
                            ));
                        }
                        let stack = self.stack(&e["left"]["value"], what)?;
                        if self.stacks[stack].headers.is_empty() {
                            return Err(format!("{what}: empty header stack"));
                        }
                        Ok(HeaderAt::StackElement {
                            stack,
                            index: Box::new(self.index(&e["right"], sc)?),
                        })
                    }
                    "access_union_header" => {
                        let union = self.union_at(&e["left"], sc)?;
                        let member = offset(&e["right"], what)?;
                        let members = self.union_layout(&union).len();
                        if member >= members {
                            return Err(format!(
                                "{what}: access_union_header offset {member} is out of range \
                                 (the union has {members} members)"
                            ));
                        }
                        Ok(HeaderAt::UnionMember {
                            union: Box::new(union),
                            member,
                        })
                    }
                    other => Err(format!(
                        "{what}: operator '{other}' does not yield a header (expected \
                         dereference_header_stack or access_union_header)"
                    )),
                }
            }
            other => Err(format!("{what}: expected a header, got type '{other}'")),
        }
    }

    /// A header union operand: `header_union`, or `dereference_union_stack`.
    pub(super) fn union_at(&self, v: &Value, sc: Scope) -> Result<UnionAt> {
        let what = sc.what;
        match type_of(v) {
            "header_union" => Ok(UnionAt::Instance(self.typed_union(v, what)?)),
            "expression" if v["value"]["op"] == "dereference_union_stack" => {
                let e = &v["value"];
                let stack = self.typed_union_stack(&e["left"], what)?;
                if self.union_stacks[stack].unions.is_empty() {
                    return Err(format!("{what}: empty header union stack"));
                }
                Ok(UnionAt::StackElement {
                    stack,
                    index: Box::new(self.index(&e["right"], sc)?),
                })
            }
            other => Err(format!(
                "{what}: expected a header_union or dereference_union_stack, got type '{other}'"
            )),
        }
    }

    /// A header or union parameter of a primitive. Like a data parameter, an
    /// operation is wrapped twice: `{"type": "expression", "value": {"type":
    /// "expression", "value": {op, left, right}}}`.
    pub(super) fn header_param(&self, v: &Value, sc: Scope) -> Result<HeaderAt> {
        self.header_at(unwrap_param(v, sc.what)?, sc)
    }

    pub(super) fn union_param(&self, v: &Value, sc: Scope) -> Result<UnionAt> {
        self.union_at(unwrap_param(v, sc.what)?, sc)
    }

    /// An `assign` destination of type `expression`: an `access_field`.
    pub(super) fn field_param(&self, v: &Value, sc: Scope) -> Result<(HeaderAt, usize)> {
        let inner = unwrap_param(v, sc.what)?;
        if type_of(inner) != "expression" || inner["value"]["op"] != "access_field" {
            return Err(format!(
                "{}: an expression written to must be an access_field",
                sc.what
            ));
        }
        self.field_at(&inner["value"], sc)
    }

    /// `access_field` (`{op, left, right}`): field `right` of header `left`.
    pub(super) fn access_field(&self, e: &Value, sc: Scope) -> Result<Expr> {
        let (header, offset) = self.field_at(e, sc)?;
        Ok(Expr::FieldAt { header, offset })
    }

    /// The header and field offset of an `access_field`, checked against the
    /// header's type.
    pub(super) fn field_at(&self, e: &Value, sc: Scope) -> Result<(HeaderAt, usize)> {
        let what = sc.what;
        let header = self.header_at(&e["left"], sc)?;
        let field = offset(&e["right"], what)?;
        let h = &self.headers[self.header_layout(&header)];
        if self.wide_fields.keys().any(|(name, _)| *name == h.name) {
            // Its JSON offsets do not count the parts a wide field is kept in.
            return Err(format!(
                "{what}: access_field into header '{}', which has a field over {MAX_FIELD_WIDTH} bits, is not supported",
                h.name
            ));
        }
        if field >= h.num_fields {
            return Err(format!(
                "{what}: access_field offset {field} is out of range (header '{}' has {} fields)",
                h.name, h.num_fields
            ));
        }
        if self.fields[h.first_field + field].width == 0 {
            // A varbit's bytes are no field value (see program::VarbitInfo).
            return Err(format!(
                "{what}: access_field of varbit field '{}' is not supported",
                self.fields[h.first_field + field].name
            ));
        }
        Ok((header, field))
    }

    /// A header with the layout every header `h` may stand for has.
    pub(super) fn header_layout(&self, h: &HeaderAt) -> usize {
        match h {
            HeaderAt::Instance(h) => *h,
            HeaderAt::StackElement { stack, .. } => self.stacks[*stack].headers[0],
            HeaderAt::UnionMember { union, member } => self.union_layout(union)[*member],
        }
    }

    /// The member headers of a union with the layout every union `u` may stand for has.
    pub(super) fn union_layout(&self, u: &UnionAt) -> &[usize] {
        match u {
            UnionAt::Instance(u) => &self.unions[*u].headers,
            UnionAt::StackElement { stack, .. } => {
                &self.unions[self.union_stacks[*stack].unions[0]].headers
            }
        }
    }

    /// A run-time stack index: any data expression.
    fn index(&self, v: &Value, sc: Scope) -> Result<Expr> {
        if v.is_null() {
            return Err(format!(
                "{}: a stack dereference needs an index on its right",
                sc.what
            ));
        }
        self.expr(v, sc)
    }
}

/// The operand inside a primitive's `expression` parameter; other types stand as
/// they are.
fn unwrap_param<'a>(v: &'a Value, what: &str) -> Result<&'a Value> {
    if type_of(v) != "expression" {
        return Ok(v);
    }
    let inner = &v["value"];
    if inner.get("type").is_none() {
        return Err(format!(
            "{what}: Invalid 'type' in expression: '' (a parameter of type 'expression' \
             wraps a typed value)"
        ));
    }
    Ok(inner)
}

/// What an operand stands for, as BMv2 types expressions (`ExprType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Operand {
    Header,
    Union,
    Other,
}

pub(super) fn operand_kind(v: &Value) -> Operand {
    match type_of(v) {
        "header" => Operand::Header,
        "header_union" => Operand::Union,
        "expression" => match v["value"]["op"].as_str().unwrap_or("") {
            "dereference_header_stack" | "dereference_stack" | "access_union_header" => {
                Operand::Header
            }
            "dereference_union_stack" => Operand::Union,
            _ => Operand::Other,
        },
        _ => Operand::Other,
    }
}

fn offset(v: &Value, what: &str) -> Result<usize> {
    v.as_u64()
        .map(|n| n as usize)
        .ok_or_else(|| format!("{what}: expected an integer offset on the right, got {v}"))
}

//! Expressions (type value objects) and the data parameters of primitives
//! and parser operations.

use serde_json::Value;

use super::header_refs::{operand_kind, Operand};
use super::hex::parse_hex;
use super::{type_of, Loader, Result, Scope};
use crate::program::{BinOp, Expr, HeaderAt, KeySource, UnOp};

impl Loader {
    pub(super) fn expr(&self, v: &Value, sc: Scope) -> Result<Expr> {
        let what = sc.what;
        let val = &v["value"];
        if v.get("type").is_none() {
            // What BMv2 says of an untyped object where an expression is due, such
            // as an {op, left, right} that is not wrapped in a type value object.
            return Err(format!(
                "{what}: Invalid 'type' in expression: '' (an expression is a type value \
                 object, {{\"type\": ..., \"value\": ...}})"
            ));
        }
        Ok(match type_of(v) {
            "field" => match self.field_or_valid(val, what)? {
                KeySource::Field(f) => Expr::Field(f),
                KeySource::Valid(h) => {
                    Expr::Unary(UnOp::B2d, Box::new(Expr::Valid(HeaderAt::Instance(h))))
                }
            },
            "stack_field" => {
                let pair = val.as_array().filter(|a| a.len() == 2);
                let (s, f) = match pair {
                    Some(a) => (a[0].clone(), a[1].as_str().unwrap_or("")),
                    None => return Err(format!("{what}: bad stack_field {val}")),
                };
                let st = self.stack(&s, what)?;
                let first = *self.stacks[st]
                    .headers
                    .first()
                    .ok_or_else(|| format!("{what}: empty header stack"))?;
                let hi = &self.headers[first];
                let prefix = format!("{}.", hi.name);
                let off = self.fields[hi.first_field..hi.first_field + hi.num_fields]
                    .iter()
                    .position(|x| x.name.strip_prefix(&prefix) == Some(f))
                    .ok_or_else(|| format!("{what}: stack '{s}' has no field '{f}'"))?;
                Expr::StackField(st, off)
            }
            "hexstr" => {
                let s = val
                    .as_str()
                    .ok_or_else(|| format!("{what}: hexstr value must be a string"))?;
                Expr::Const(parse_hex(s, what)?)
            }
            "bool" => Expr::Const(i128::from(
                val.as_bool().ok_or_else(|| format!("{what}: bad bool"))?,
            )),
            // Inside an expression an action parameter is a `local`; `runtime_data`
            // is only a primitive's parameter (BMv2 refuses it here).
            "local" => self.param_index(val, sc)?,
            "runtime_data" => {
                return Err(format!(
                    "{what}: Invalid 'type' in expression: 'runtime_data' \
                     (inside an expression an action parameter is {{\"type\": \"local\"}})"
                ))
            }
            "expression" => self.op(val, sc)?,
            "union_stack_field" => {
                return Err(format!(
                    "{what}: a union_stack_field can only be a parse state's transition_key \
                     entry (JSON_format.md)"
                ))
            }
            other => {
                return Err(format!(
                    "{what}: expression type '{other}' is not supported"
                ))
            }
        })
    }

    /// Index `val` into the action's parameters.
    fn param_index(&self, val: &Value, sc: Scope) -> Result<Expr> {
        let what = sc.what;
        let i = val
            .as_u64()
            .ok_or_else(|| format!("{what}: bad parameter index {val}"))? as usize;
        if i >= sc.params {
            return Err(format!(
                "{what}: parameter index {i} out of range ({} parameters)",
                sc.params
            ));
        }
        Ok(Expr::Param(i))
    }

    /// A data parameter of a primitive, or of a parser `set` or `advance`
    /// (JSON_format.md, "actions"): a field, hexstr, runtime_data or
    /// stack_field stands as it is; a parameter of type `expression` holds a
    /// whole type value object, `{"type": "expression", "value": {"type":
    /// "expression", "value": {op, left, right}}}` for an operation. BMv2
    /// reads the inner object as the expression, so an `{op, left, right}`
    /// right under the parameter has no type: `Invalid 'type' in expression: ''`.
    pub(super) fn param(&self, v: &Value, sc: Scope) -> Result<Expr> {
        let what = sc.what;
        let val = &v["value"];
        match type_of(v) {
            "field" | "hexstr" | "stack_field" => self.expr(v, sc),
            "runtime_data" => self.param_index(val, sc),
            "expression" => {
                let inner = val.get("type").and_then(Value::as_str).unwrap_or("");
                if inner.is_empty() {
                    return Err(format!(
                        "{what}: Invalid 'type' in expression: '' (a parameter of type \
                         'expression' wraps a typed value: {{\"type\": \"expression\", \
                         \"value\": {{\"type\": \"expression\", \"value\": {{op, left, right}}}}}})"
                    ));
                }
                self.expr(val, sc)
            }
            other => Err(format!(
                "{what}: Parameter type '{other}' not supported here (a data parameter is \
                 a field, hexstr, runtime_data, stack_field or expression)"
            )),
        }
    }

    pub(super) fn op(&self, v: &Value, sc: Scope) -> Result<Expr> {
        let what = sc.what;
        // The value of an expression node is {op, left, right} (JSON_format.md,
        // "The type value object"); a wrapped typed value is a primitive
        // parameter's form only, which BMv2 reads here as an operation without
        // an 'op'.
        if let Some(t) = v.get("type") {
            return Err(format!(
                "{what}: an expression's value must be {{op, left, right}}, not a typed \
                 value (type {t}); only a primitive parameter wraps one"
            ));
        }
        let op = v["op"]
            .as_str()
            .ok_or_else(|| format!("{what}: expression without 'op'"))?;
        let operand = |key: &str| self.operand(v, op, key, sc);
        if op == "-" && v["left"].is_null() {
            // Unary minus: BMv2 accepts "-" without a left operand.
            return Ok(Expr::Binary(
                BinOp::Sub,
                Box::new(Expr::Const(0)),
                operand("right")?,
            ));
        }
        if matches!(op, "==" | "!=") {
            if let Some(equal) = self.whole_equal(v, sc)? {
                return Ok(if op == "==" {
                    equal
                } else {
                    Expr::Unary(UnOp::Not, Box::new(equal))
                });
            }
        }
        match op {
            "access_field" => return self.access_field(v, sc),
            "dereference_header_stack"
            | "dereference_stack"
            | "access_union_header"
            | "dereference_union_stack" => {
                // BMv2 types these HEADER or UNION: not a value on their own.
                return Err(format!(
                    "{what}: operator '{op}' yields a header or union, not a value \
                     (read a field with access_field, or test it with valid)"
                ));
            }
            _ => {}
        }
        match binary_op(op) {
            Some(b) => Ok(Expr::Binary(b, operand("left")?, operand("right")?)),
            None => self.other_op(v, op, sc),
        }
    }

    /// The operand `key` of operator `op`, which must be there.
    fn operand(&self, v: &Value, op: &str, key: &str, sc: Scope) -> Result<Box<Expr>> {
        let x = &v[key];
        if x.is_null() {
            return Err(format!(
                "{}: operator '{op}' is missing its '{key}' operand",
                sc.what
            ));
        }
        Ok(Box::new(self.expr(x, sc)?))
    }

    /// The operand `key` of a cast, a constant width in bits.
    fn width_operand(&self, v: &Value, op: &str, key: &str, sc: Scope) -> Result<u32> {
        match self.expr(&v[key], sc)? {
            Expr::Const(w) if (1..=128).contains(&w) => Ok(w as u32),
            _ => Err(format!(
                "{}: operator '{op}' needs a constant width 1..128",
                sc.what
            )),
        }
    }

    /// An operator that is not binary: the unary ones, `?` and the casts.
    fn other_op(&self, v: &Value, op: &str, sc: Scope) -> Result<Expr> {
        let what = sc.what;
        let operand = |key: &str| self.operand(v, op, key, sc);
        let width_of = |key: &str| self.width_operand(v, op, key, sc);
        let unary = matches!(
            op,
            "not" | "~" | "d2b" | "b2d" | "valid" | "last_stack_index" | "valid_union"
        );
        if unary && !v["left"].is_null() {
            // BMv2 would evaluate the stray left operand too.
            return Err(format!(
                "{what}: unary operator '{op}' takes no 'left' operand (it must be null)"
            ));
        }
        Ok(match op {
            "not" => Expr::Unary(UnOp::Not, operand("right")?),
            "~" => Expr::Unary(UnOp::BitNeg, operand("right")?),
            "d2b" => Expr::Unary(UnOp::D2b, operand("right")?),
            "b2d" => Expr::Unary(UnOp::B2d, operand("right")?),
            "valid" => Expr::Valid(self.header_at(&v["right"], sc)?),
            // p4c gives a union stack's lastIndex the same operator.
            "last_stack_index" => match type_of(&v["right"]) {
                "header_stack" => Expr::LastStackIndex(self.stack(&v["right"]["value"], what)?),
                "header_union_stack" => {
                    Expr::LastUnionStackIndex(self.typed_union_stack(&v["right"], what)?)
                }
                _ => {
                    return Err(format!(
                        "{what}: operator '{op}' needs a header_stack or header_union_stack"
                    ))
                }
            },
            "valid_union" => Expr::ValidUnion(self.union_at(&v["right"], sc)?),
            "?" => Expr::Ternary(operand("cond")?, operand("left")?, operand("right")?),
            "two_comp_mod" => Expr::TwoCompMod(operand("left")?, width_of("right")?),
            "sat_cast" => Expr::SatCast {
                value: operand("left")?,
                width: width_of("right")?,
                signed: true,
            },
            "usat_cast" => Expr::SatCast {
                value: operand("left")?,
                width: width_of("right")?,
                signed: false,
            },
            other => {
                return Err(format!(
                    "{what}: expression operator '{other}' is not supported"
                ))
            }
        })
    }

    /// p4c compares headers and unions whole, with header-typed operands, and
    /// varbit fields by name; `None` when the operands are none of these.
    fn whole_equal(&self, v: &Value, sc: Scope) -> Result<Option<Expr>> {
        let (l, r) = (&v["left"], &v["right"]);
        let different = || {
            format!(
                "{}: '{}' compares operands of different types",
                sc.what,
                v["op"].as_str().unwrap_or("")
            )
        };
        match (self.varbit_operand(l), self.varbit_operand(r)) {
            (Some(a), Some(b)) => return Ok(Some(Expr::VarbitEq(a.slot, b.slot))),
            (None, None) => {}
            _ => return Err(different()),
        }
        Ok(match (operand_kind(l), operand_kind(r)) {
            (Operand::Header, Operand::Header) => Some(Expr::HeaderEq(Box::new((
                self.header_at(l, sc)?,
                self.header_at(r, sc)?,
            )))),
            (Operand::Union, Operand::Union) => Some(Expr::UnionEq(Box::new((
                self.union_at(l, sc)?,
                self.union_at(r, sc)?,
            )))),
            (Operand::Other, Operand::Other) => None,
            _ => return Err(different()),
        })
    }
}

/// The operators with both a left and a right operand, by their BMv2 names.
fn binary_op(op: &str) -> Option<BinOp> {
    Some(match op {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Mod,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        "and" => BinOp::And,
        "or" => BinOp::Or,
        "&" => BinOp::BitAnd,
        "|" => BinOp::BitOr,
        "^" => BinOp::BitXor,
        _ => return None,
    })
}

//! Parser operations (JSON_format.md, "parsers"): extracts, sets, advances,
//! verifies and primitives, run in order when a parse state is entered.

use super::operands::Operands;
use super::parser::lookahead;
use super::{type_of, Loader, Result, Scope};
use crate::program::json;
use crate::program::ParserOp;

impl Loader {
    /// One operation of the parse state that `sc` names.
    pub(super) fn parser_op(&self, op: &json::ParserOp, sc: Scope) -> Result<ParserOp> {
        let what = sc.what;
        // BMv2 checks each op's parameter count (JSON_format.md, parser
        // operations).
        let args = Operands {
            what: format!("{what}: parser op '{}'", op.op),
            list: &op.parameters,
        };
        let opw = args.what.as_str();
        let osc = Scope::outside_actions(opw);
        Ok(match op.op.as_str() {
            "extract" => self.extract_op(&args)?,
            "extract_VL" => self.extract_vl_op(&args)?,
            "set" => self.set_op(&args)?,
            "advance" => {
                args.arity(1)?;
                let bits = args.get(0)?;
                match type_of(bits) {
                    "field" | "hexstr" | "expression" => ParserOp::Advance(self.param(bits, osc)?),
                    other => return Err(format!("{opw}: unsupported parameter type '{other}'")),
                }
            }
            "verify" => {
                // Both are expressions as they stand (a boolean, and the
                // error's value).
                args.arity(2)?;
                ParserOp::Verify {
                    cond: self.expr(args.get(0)?, osc)?,
                    error: self.expr(args.get(1)?, osc)?,
                }
            }
            "primitive" => {
                args.arity(1)?;
                let inner = args.get(0)?;
                let name = inner["op"].as_str().unwrap_or("");
                let params = inner["parameters"].as_array().cloned().unwrap_or_default();
                ParserOp::Primitive(self.primitive(name, &params, sc, 0)?)
            }
            other => return Err(format!("{what}: parser op '{other}' is not supported")),
        })
    }

    /// `extract` of a header, the next element of a stack, or a member of
    /// the next element of a union stack.
    fn extract_op(&self, args: &Operands) -> Result<ParserOp> {
        let opw = args.what.as_str();
        args.arity(1)?;
        let a = args.get(0)?;
        Ok(match type_of(a) {
            "regular" => ParserOp::Extract(self.fixed_header(&a["value"], opw)?),
            "stack" => ParserOp::ExtractNext(self.extract_stack(&a["value"], false, opw)?),
            "union_stack" => {
                let (stack, member) = self.union_stack_target(&a["value"], false, opw)?;
                ParserOp::ExtractUnionNext {
                    stack,
                    member,
                    size: None,
                }
            }
            other => return Err(format!("{opw}: extract of type '{other}' is not supported")),
        })
    }

    /// `extract_VL`: as `extract`, into a header with a varbit field of the
    /// length given.
    fn extract_vl_op(&self, args: &Operands) -> Result<ParserOp> {
        let opw = args.what.as_str();
        // The length "must be of type expression"; its value is the
        // expression itself (a typed value).
        args.arity(2)?;
        let len = args.get(1)?;
        if type_of(len) != "expression" {
            return Err(format!(
                "{opw}: invalid length type '{}', expected 'expression'",
                type_of(len)
            ));
        }
        let size = self.expr(&len["value"], Scope::outside_actions(opw))?;
        let target = args.get(0)?;
        Ok(match type_of(target) {
            "stack" => {
                let st = self.extract_stack(&target["value"], true, opw)?;
                ParserOp::ExtractNextVarbit(st, size)
            }
            "union_stack" => {
                let (stack, member) = self.union_stack_target(&target["value"], true, opw)?;
                ParserOp::ExtractUnionNext {
                    stack,
                    member,
                    size: Some(size),
                }
            }
            _ => ParserOp::ExtractVarbit(self.varbit_header(target, opw)?, size),
        })
    }

    /// `set`: a field set from a field, hexstr, lookahead or expression (the
    /// latter a data parameter, as in actions).
    fn set_op(&self, args: &Operands) -> Result<ParserOp> {
        let opw = args.what.as_str();
        args.arity(2)?;
        let (dst, src) = (args.get(0)?, args.get(1)?);
        if type_of(dst) != "field" {
            return Err(format!(
                "{opw}: invalid destination type '{}', expected 'field'",
                type_of(dst)
            ));
        }
        // p4c writes a varbit copy in a parser as `set`, not assign_VL.
        if self.varbit_operand(dst).is_some() {
            return Ok(ParserOp::Primitive(self.assign_varbit(dst, src, opw)?));
        }
        let dst = self.typed_field(dst, opw)?;
        Ok(match type_of(src) {
            "lookahead" => {
                let (off, w) = lookahead(&src["value"], opw)?;
                ParserOp::SetLookahead(dst, off, w)
            }
            "field" | "hexstr" | "expression" => {
                ParserOp::Set(dst, self.param(src, Scope::outside_actions(opw))?)
            }
            other => return Err(format!("{opw}: unsupported source type '{other}'")),
        })
    }
}

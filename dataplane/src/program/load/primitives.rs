//! Primitives, the statements of an action body (JSON_format.md, "actions"),
//! read one family at a time: field, header and stack writes, the packet's
//! fate, v1model externs, and control flow.

use std::collections::HashMap;

use serde_json::Value;

use super::operands::Operands;
use super::{type_of, Loader, Result, Scope};
use crate::program::{BinOp, Expr, LogArg, Primitive};

/// One primitive being read, with what its data parameters may refer to.
struct Call<'a> {
    loader: &'a Loader,
    op: &'a str,
    operands: Operands<'a>,
    /// The enclosing action's parameter count.
    params: usize,
    /// The enclosing action's primitive count, the furthest a jump may go.
    body_len: usize,
}

/// A family of primitives; `None` when the op is not one of its own.
type Family = fn(&Loader, &Call) -> Result<Option<Primitive>>;

impl Loader {
    pub(super) fn primitive(
        &self,
        op: &str,
        ps: &[Value],
        sc: Scope,
        body_len: usize,
    ) -> Result<Primitive> {
        let call = Call {
            loader: self,
            op,
            operands: Operands {
                what: format!("{}: primitive '{op}'", sc.what),
                list: ps,
            },
            params: sc.params,
            body_len,
        };
        let families: [Family; 6] = [
            Self::field_write_primitive,
            Self::header_write_primitive,
            Self::stack_write_primitive,
            Self::fate_primitive,
            Self::extern_primitive,
            Self::flow_primitive,
        ];
        for family in families {
            if let Some(p) = family(self, &call)? {
                return Ok(p);
            }
        }
        Err(format!("{}: primitive '{op}' is not supported", sc.what))
    }

    /// Writes to fields, varbit fields included.
    fn field_write_primitive(&self, c: &Call) -> Result<Option<Primitive>> {
        let what = c.what();
        Ok(Some(match c.op {
            "assign" | "modify_field" => {
                c.arity(2)?;
                // BMv2's assign copies data into a field (one named, or one that
                // access_field picks at run time); headers have assign_header.
                if type_of(c.arg(0)?) == "expression" {
                    let (header, offset) = self.field_param(c.arg(0)?, c.scope())?;
                    Primitive::AssignAt {
                        header,
                        offset,
                        value: c.data(1)?,
                    }
                } else {
                    Primitive::Assign(self.typed_field(c.arg(0)?, what)?, c.data(1)?)
                }
            }
            "add_to_field" | "subtract_from_field" => {
                c.arity(2)?;
                let dst = self.typed_field(c.arg(0)?, what)?;
                let b = if c.op == "add_to_field" {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                Primitive::Assign(
                    dst,
                    Expr::Binary(b, Box::new(Expr::Field(dst)), Box::new(c.data(1)?)),
                )
            }
            "assign_VL" => {
                c.arity(2)?;
                self.assign_varbit(c.arg(0)?, c.arg(1)?, what)?
            }
            _ => return Ok(None),
        }))
    }

    /// Writes to whole headers and unions, and their validity.
    fn header_write_primitive(&self, c: &Call) -> Result<Option<Primitive>> {
        let what = c.what();
        Ok(Some(match c.op {
            "assign_header" => {
                c.arity(2)?;
                Primitive::AssignHeader {
                    dst: self.header_param(c.arg(0)?, c.scope())?,
                    src: self.header_param(c.arg(1)?, c.scope())?,
                }
            }
            "assign_union" => {
                c.arity(2)?;
                let (dst, src) = (
                    self.union_param(c.arg(0)?, c.scope())?,
                    self.union_param(c.arg(1)?, c.scope())?,
                );
                if self.union_layout(&dst).len() != self.union_layout(&src).len() {
                    return Err(format!("{what}: unions of different types"));
                }
                Primitive::AssignUnion { dst, src }
            }
            "add_header" | "remove_header" => {
                c.arity(1)?;
                Primitive::SetValid(
                    self.header_param(c.arg(0)?, c.scope())?,
                    c.op == "add_header",
                )
            }
            _ => return Ok(None),
        }))
    }

    /// Writes to header stacks and header union stacks: copies and shifts.
    fn stack_write_primitive(&self, c: &Call) -> Result<Option<Primitive>> {
        let what = c.what();
        Ok(Some(match c.op {
            "assign_header_stack" => {
                c.arity(2)?;
                let mut stacks = [0, 0];
                for (k, slot) in stacks.iter_mut().enumerate() {
                    let arg = c.arg(k)?;
                    if type_of(arg) != "header_stack" {
                        return Err(format!("{what}: parameter {k} must be a header_stack"));
                    }
                    *slot = self.stack(&arg["value"], what)?;
                }
                let [dst, src] = stacks;
                let (d, s) = (&self.stacks[dst].headers, &self.stacks[src].headers);
                let layout = |h: usize| (self.headers[h].num_fields, self.headers[h].bits);
                if d.len() != s.len() || d.iter().zip(s).any(|(&a, &b)| layout(a) != layout(b)) {
                    return Err(format!("{what}: header stacks of different types"));
                }
                Primitive::AssignHeaderStack { dst, src }
            }
            "assign_union_stack" => {
                c.arity(2)?;
                let (dst, src) = (
                    self.typed_union_stack(c.arg(0)?, what)?,
                    self.typed_union_stack(c.arg(1)?, what)?,
                );
                let (d, s) = (&self.union_stacks[dst], &self.union_stacks[src]);
                if d.unions.len() != s.unions.len() || d.members != s.members {
                    return Err(format!("{what}: union stacks of different types"));
                }
                Primitive::AssignUnionStack { dst, src }
            }
            "push" | "pop" => {
                c.arity(2)?;
                let count = match c.data(1)? {
                    Expr::Const(c) if c >= 0 => c as usize,
                    _ => return Err(format!("{what}: count must be a constant")),
                };
                let push = c.op == "push";
                // Either kind of stack (JSON_format.md, core primitives).
                match type_of(c.arg(0)?) {
                    "header_stack" => Primitive::StackShift {
                        stack: self.stack(&c.arg(0)?["value"], what)?,
                        count,
                        push,
                    },
                    "header_union_stack" => Primitive::UnionStackShift {
                        stack: self.typed_union_stack(c.arg(0)?, what)?,
                        count,
                        push,
                    },
                    _ => {
                        return Err(format!(
                            "{what}: expected a header_stack or header_union_stack"
                        ))
                    }
                }
            }
            _ => return Ok(None),
        }))
    }

    /// What becomes of the packet: drop, clone, resubmit, recirculate,
    /// truncate, digest.
    fn fate_primitive(&self, c: &Call) -> Result<Option<Primitive>> {
        let what = c.what();
        Ok(Some(match c.op {
            // simple_switch's mark_to_drop(standard_metadata); drop() is its
            // P4_14 form without a parameter.
            "mark_to_drop" => {
                c.arity(1)?;
                self.typed_header(c.arg(0)?, what)?;
                Primitive::MarkToDrop
            }
            "drop" => {
                c.arity(0)?;
                Primitive::MarkToDrop
            }
            "clone_ingress_pkt_to_egress" | "clone_egress_pkt_to_egress" => {
                let egress = c.op == "clone_egress_pkt_to_egress";
                c.arity(2)?;
                if !egress {
                    self.clones_in_ingress.set(true);
                }
                Primitive::Clone {
                    session: c.data(0)?,
                    egress,
                    field_list: self.field_list_arg(c.data(1)?, what)?,
                }
            }
            // p4c's names (BMv2's), and the ones our compiler wrote before.
            "resubmit" | "resubmit_preserving_field_list" => {
                c.arity(1)?;
                Primitive::Resubmit(self.field_list_arg(c.data(0)?, what)?)
            }
            "recirculate" | "recirculate_preserving_field_list" => {
                c.arity(1)?;
                Primitive::Recirculate(self.field_list_arg(c.data(0)?, what)?)
            }
            "truncate" => {
                c.arity(1)?;
                Primitive::Truncate(c.data(0)?)
            }
            "generate_digest" => {
                c.arity(2)?;
                let id = match c.data(1)? {
                    Expr::Const(c) => c,
                    _ => return Err(format!("{what}: learn list id must be a constant")),
                };
                Primitive::Digest(
                    u32::try_from(id)
                        .ok()
                        .and_then(|id| self.learn_list_by_id.get(&id).copied())
                        .ok_or_else(|| format!("{what}: unknown learn list id {id}"))?,
                )
            }
            _ => return Ok(None),
        }))
    }

    /// v1model externs: counters, meters, registers, random numbers, hashes.
    fn extern_primitive(&self, c: &Call) -> Result<Option<Primitive>> {
        let what = c.what();
        Ok(Some(match c.op {
            "count" => {
                c.arity(2)?;
                Primitive::Count {
                    counter: c.named(c.arg(0)?, "counter_array", &self.counters)?,
                    index: c.data(1)?,
                }
            }
            "execute_meter" => {
                c.arity(3)?;
                Primitive::ExecuteMeter {
                    meter: c.named(c.arg(0)?, "meter_array", &self.meters)?,
                    index: c.data(1)?,
                    dst: self.typed_field(c.arg(2)?, what)?,
                }
            }
            "register_read" => {
                c.arity(3)?;
                Primitive::RegisterRead {
                    dst: self.typed_field(c.arg(0)?, what)?,
                    register: c.named(c.arg(1)?, "register_array", &self.registers)?,
                    index: c.data(2)?,
                }
            }
            "register_write" => {
                c.arity(3)?;
                Primitive::RegisterWrite {
                    register: c.named(c.arg(0)?, "register_array", &self.registers)?,
                    index: c.data(1)?,
                    value: c.data(2)?,
                }
            }
            "modify_field_rng_uniform" => {
                c.arity(3)?;
                Primitive::Random {
                    dst: self.typed_field(c.arg(0)?, what)?,
                    lo: c.data(1)?,
                    hi: c.data(2)?,
                }
            }
            "modify_field_with_hash_based_offset" => {
                c.arity(4)?;
                let calc = c.arg(2)?;
                if type_of(calc) != "calculation" {
                    return Err(format!(
                        "{what}: expected a calculation, got type '{}'",
                        type_of(calc)
                    ));
                }
                let name = calc["value"].as_str().unwrap_or("");
                Primitive::Hash {
                    dst: self.typed_field(c.arg(0)?, what)?,
                    base: c.data(1)?,
                    calculation: self
                        .calculations
                        .get(name)
                        .copied()
                        .ok_or_else(|| format!("{what}: unknown calculation '{name}'"))?,
                    max: c.data(3)?,
                }
            }
            _ => return Ok(None),
        }))
    }

    /// Control flow within the action, and debugging aids.
    fn flow_primitive(&self, c: &Call) -> Result<Option<Primitive>> {
        let what = c.what();
        Ok(Some(match c.op {
            "exit" => {
                c.arity(0)?;
                Primitive::Exit
            }
            "no_op" => {
                c.arity(0)?;
                Primitive::NoOp
            }
            "_jump" => {
                c.arity(1)?;
                Primitive::Jump(c.jump_target(0)?)
            }
            "_jump_if_zero" => {
                c.arity(2)?;
                Primitive::JumpIfZero(c.data(0)?, c.jump_target(1)?)
            }
            "log_msg" => {
                // log_msg(string, parameters_vector) (JSON_format.md, actions);
                // the vector's items are parameters themselves.
                c.arity(2)?;
                let (f, v) = (c.arg(0)?, c.arg(1)?);
                if type_of(f) != "string" || type_of(v) != "parameters_vector" {
                    return Err(format!(
                        "{what}: expected a string and a parameters_vector, got types '{}' and '{}'",
                        type_of(f),
                        type_of(v)
                    ));
                }
                let fmt = f["value"].as_str().unwrap_or("").to_owned();
                let items = v["value"]
                    .as_array()
                    .ok_or_else(|| format!("{what}: parameters_vector value must be an array"))?;
                let args = items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        let w = format!("{what}: parameters_vector item {i}");
                        if type_of(x) == "header" {
                            return Ok(LogArg::Header(self.header(&x["value"], &w)?));
                        }
                        let scope = Scope {
                            what: &w,
                            params: c.params,
                        };
                        Ok(LogArg::Value(self.param(x, scope)?))
                    })
                    .collect::<Result<Vec<_>>>()?;
                Primitive::Log { fmt, args }
            }
            "assert" | "assume" => {
                c.arity(1)?;
                Primitive::Assert(c.data(0)?)
            }
            _ => return Ok(None),
        }))
    }
}

impl Call<'_> {
    fn what(&self) -> &str {
        &self.operands.what
    }

    /// What the primitive's header and field operands may refer to.
    fn scope(&self) -> Scope<'_> {
        Scope {
            what: self.what(),
            params: self.params,
        }
    }

    fn arg(&self, i: usize) -> Result<&Value> {
        self.operands.get(i)
    }

    fn arity(&self, n: usize) -> Result<()> {
        self.operands.arity(n)
    }

    /// A data parameter, read as BMv2 reads a primitive's parameter; errors
    /// name the action, the primitive and the parameter.
    fn data(&self, i: usize) -> Result<Expr> {
        let w = format!("{}: parameter {i}", self.what());
        self.loader.param(
            self.arg(i)?,
            Scope {
                what: &w,
                params: self.params,
            },
        )
    }

    fn jump_target(&self, i: usize) -> Result<usize> {
        match self.data(i)? {
            Expr::Const(t) if t >= 0 && (t as usize) <= self.body_len => Ok(t as usize),
            _ => Err(format!(
                "{}: jump target must be an offset within the action",
                self.what()
            )),
        }
    }

    /// A `{"type": kind, "value": name}` parameter naming an object of `map`.
    fn named(&self, v: &Value, kind: &str, map: &HashMap<String, usize>) -> Result<usize> {
        let what = self.what();
        if type_of(v) != kind {
            return Err(format!(
                "{what}: expected a {kind}, got type '{}'",
                type_of(v)
            ));
        }
        let n = v["value"].as_str().unwrap_or("");
        map.get(n)
            .copied()
            .ok_or_else(|| format!("{what}: unknown {kind} '{n}'"))
    }
}

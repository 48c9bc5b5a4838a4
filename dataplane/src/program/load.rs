//! JSON -> `Program`: name resolution and validation. Every error names the
//! object at fault, e.g. `table 'MyIngress.ipv4_lpm': unknown action id 7`.

mod unions;
mod value_sets;
mod varbit;

use std::collections::HashMap;

use serde_json::Value;

use super::json::{self, Json, KNOWN_KEYS};
use super::*;

type Result<T> = std::result::Result<T, String>;

/// Largest register or counter array we allocate; a bigger one is more
/// likely a bad JSON than a real program, and would exhaust memory.
const MAX_ARRAY_SIZE: u64 = 1 << 24;

/// Resolves a next-node name within one pipeline (`None` is the end).
type NodeLookup<'a> = dyn Fn(Option<&str>, &str) -> Result<Option<Node>> + 'a;

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
    check_version(obj.get("__meta__"))?;
    check_ids(obj)?;
    let json: Json =
        serde_json::from_value(raw).map_err(|e| format!("malformed BMv2 JSON: {e}"))?;
    Loader::default().run(json)
}

/// The format version this loader reads (JSON_format.md, "Current bmv2 JSON
/// format version"): BMv2 refuses another major version, and a minor
/// version newer than its own.
const JSON_VERSION: (i64, i64) = (2, 23);

/// `__meta__.version`, when present, is `[major, minor]` (JSON_format.md,
/// `__meta__`); a file without one is accepted, as BMv2 accepts it.
fn check_version(meta: Option<&Value>) -> Result<()> {
    let Some(version) = meta.and_then(|m| m.get("version")) else {
        return Ok(());
    };
    let pair = version
        .as_array()
        .filter(|a| a.len() == 2)
        .and_then(|a| Some((a[0].as_i64()?, a[1].as_i64()?)))
        .ok_or_else(|| {
            format!("__meta__: 'version' must be [major, minor], two integers, got {version}")
        })?;
    let (major, minor) = JSON_VERSION;
    if pair.0 != major {
        return Err(format!(
            "__meta__: BMv2 JSON major version {major} is required, this file has {}",
            pair.0
        ));
    }
    if pair.1 > minor {
        return Err(format!(
            "__meta__: the most recent BMv2 JSON version supported is {major}.{minor}, \
             this file has {}.{}",
            pair.0, pair.1
        ));
    }
    Ok(())
}

/// BMv2 refuses two objects of one kind with the same id ("Several objects of
/// type 'X' have the same id N"); ids are otherwise unused here. Tables,
/// conditionals and action profiles are checked per pipeline, parse states
/// per parser, as BMv2 checks them (JSON_format.md asks more: table,
/// conditional, action profile and parse state ids unique in the file).
fn check_ids(obj: &serde_json::Map<String, Value>) -> Result<()> {
    fn unique(items: Option<&Value>, kind: &str) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for id in items
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|o| o.get("id").and_then(Value::as_i64))
        {
            if !seen.insert(id) {
                return Err(format!(
                    "several objects of type '{kind}' have the same id {id}"
                ));
            }
        }
        Ok(())
    }
    for (key, kind) in [
        ("header_types", "header type"),
        ("headers", "header"),
        ("header_stacks", "header stack"),
        ("parsers", "parser"),
        ("parse_vsets", "parser vset"),
        ("deparsers", "deparser"),
        ("calculations", "calculation"),
        ("counter_arrays", "counter"),
        ("meter_arrays", "meter"),
        ("register_arrays", "register"),
        ("actions", "action"),
        ("pipelines", "pipeline"),
        ("checksums", "checksum"),
        ("learn_lists", "learn list"),
        ("field_lists", "field list"),
        ("extern_instances", "extern"),
    ] {
        unique(obj.get(key), kind)?;
    }
    for p in obj
        .get("pipelines")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        unique(p.get("tables"), "table")?;
        unique(p.get("conditionals"), "condition")?;
        unique(p.get("action_profiles"), "action profile")?;
    }
    for p in obj
        .get("parsers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        unique(p.get("parse_states"), "parse state")?;
    }
    Ok(())
}

/// Parses a BMv2 hex string (`0x0800`, `-0x1`) into bytes, big-endian,
/// without sign. As BMv2 does (`Data::set`, `ByteContainer`), the digits are
/// hexadecimal whether or not `0x` precedes them: `"10"` is sixteen.
fn hex_bytes(s: &str) -> Result<(bool, Vec<u8>)> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let digits = body.strip_prefix("0x").unwrap_or(body).to_owned();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("bad hex string '{s}'"));
    }
    let padded = if digits.len() % 2 == 1 {
        format!("0{digits}")
    } else {
        digits
    };
    let bytes = (0..padded.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&padded[i..i + 2], 16).map_err(|_| format!("bad hex string '{s}'"))
        })
        .collect::<Result<Vec<u8>>>()?;
    Ok((neg, bytes))
}

fn bytes_to_u128(bytes: &[u8], what: &str) -> Result<u128> {
    let significant: &[u8] = {
        let first = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
        &bytes[first..]
    };
    if significant.len() > 16 {
        return Err(format!("{what}: value wider than 128 bits"));
    }
    Ok(significant
        .iter()
        .fold(0u128, |acc, &b| (acc << 8) | u128::from(b)))
}

fn parse_hex(s: &str, what: &str) -> Result<i128> {
    let (neg, bytes) = hex_bytes(s).map_err(|e| format!("{what}: {e}"))?;
    let v = bytes_to_u128(&bytes, what)? as i128;
    Ok(if neg { v.wrapping_neg() } else { v })
}

fn type_of(v: &Value) -> &str {
    v.get("type").and_then(Value::as_str).unwrap_or("?")
}

#[derive(Default)]
struct Loader {
    fields: Vec<FieldInfo>,
    headers: Vec<HeaderInfo>,
    field_index: HashMap<(String, String), usize>,
    header_index: HashMap<String, usize>,
    stacks: Vec<StackInfo>,
    stack_index: HashMap<String, usize>,
    unions: Vec<UnionInfo>,
    num_varbits: usize,
    union_index: HashMap<String, usize>,
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

impl Loader {
    fn run(mut self, j: Json) -> Result<Program> {
        reject_nonempty("extern_instances", &j.extern_instances)?;
        reject_nonempty("header_union_stacks", &j.header_union_stacks)?;

        self.headers(&j)?;
        let errors = j.errors.clone();
        let err_val = |name: &str, dflt: u32| {
            errors
                .iter()
                .find(|(n, _)| n == name)
                .map_or(dflt, |(_, v)| *v)
        };
        let error_packet_too_short = err_val("PacketTooShort", 1);
        let error_no_match = err_val("NoMatch", 2);
        let error_stack_out_of_bounds = err_val("StackOutOfBounds", 3);
        self.stacks(&j)?;
        self.unions(&j)?;

        for (i, r) in j.register_arrays.iter().enumerate() {
            if r.bitwidth == 0 || r.bitwidth > MAX_FIELD_WIDTH {
                return Err(format!(
                    "register_array '{}': bitwidth {} not supported",
                    r.name, r.bitwidth
                ));
            }
            if r.size > MAX_ARRAY_SIZE {
                return Err(format!(
                    "register_array '{}': size {} exceeds {MAX_ARRAY_SIZE}",
                    r.name, r.size
                ));
            }
            self.registers.insert(r.name.clone(), i);
        }
        let registers = j
            .register_arrays
            .iter()
            .map(|r| RegisterArray {
                name: r.name.clone(),
                size: r.size as usize,
                width: r.bitwidth,
            })
            .collect();
        for (i, c) in j.counter_arrays.iter().enumerate() {
            if c.size > MAX_ARRAY_SIZE {
                return Err(format!(
                    "counter_array '{}': size {} exceeds {MAX_ARRAY_SIZE}",
                    c.name, c.size
                ));
            }
            if c.is_direct {
                // `count` cannot name a direct counter; its table counts.
                continue;
            }
            self.counters.insert(c.name.clone(), i);
        }
        let counters = j
            .counter_arrays
            .iter()
            .map(|c| CounterArray {
                name: c.name.clone(),
                size: if c.is_direct { 0 } else { c.size as usize },
                direct: c.is_direct,
            })
            .collect();
        let meters = self.meters(&j)?;
        let learn_lists = self.learn_lists(&j)?;
        let field_lists = self.field_lists(&j)?;

        for (i, c) in j.calculations.iter().enumerate() {
            self.calculations.insert(c.name.clone(), i);
        }
        for (i, a) in j.actions.iter().enumerate() {
            if self.action_by_id.insert(a.id, i).is_some() {
                return Err(format!("action '{}': duplicate action id {}", a.name, a.id));
            }
        }
        let actions = j
            .actions
            .iter()
            .map(|a| self.action(a))
            .collect::<Result<Vec<_>>>()?;
        let mut action_by_name = HashMap::new();
        for (i, a) in actions.iter().enumerate() {
            action_by_name.entry(a.name.clone()).or_insert(i);
        }

        let value_sets = self.value_sets(&j)?;
        let (parse_states, parser_init) = self.parser(&j, &value_sets)?;
        let deparse_order = self.deparser(&j)?;

        let mut tables = Vec::new();
        let mut conditionals = Vec::new();
        let mut ingress = None;
        let mut egress = None;
        for p in &j.pipelines {
            let control = self.pipeline(p, &actions, &mut tables, &mut conditionals)?;
            match p.name.as_str() {
                "ingress" => ingress = Some(control),
                "egress" => egress = Some(control),
                other => {
                    return Err(format!(
                        "pipeline '{other}': v1model has only 'ingress' and 'egress'"
                    ))
                }
            }
        }
        let ingress = ingress.ok_or("no 'ingress' pipeline")?;
        let egress = egress.ok_or("no 'egress' pipeline")?;
        let mut table_by_name = HashMap::new();
        for (i, t) in tables.iter().enumerate() {
            if table_by_name.insert(t.name.clone(), i).is_some() {
                return Err(format!("table '{}': defined twice", t.name));
            }
        }

        let calculations = j
            .calculations
            .iter()
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
            num_varbits: self.num_varbits,
            errors,
            error_packet_too_short,
            error_stack_out_of_bounds,
            error_no_match,
            parse_states,
            parser_init,
            value_sets,
            deparse_order,
            actions,
            tables,
            conditionals,
            ingress,
            egress,
            calculations,
            checksums,
            registers,
            counters,
            meters,
            learn_lists,
            field_lists,
            clones_in_ingress: self.clones_in_ingress.get(),
            std,
            table_by_name,
            action_by_name,
        })
    }

    fn headers(&mut self, j: &Json) -> Result<()> {
        let types: HashMap<&str, &json::HeaderType> = j
            .header_types
            .iter()
            .map(|t| (t.name.as_str(), t))
            .collect();
        for h in &j.headers {
            let t = types.get(h.header_type.as_str()).ok_or_else(|| {
                format!(
                    "header '{}': unknown header_type '{}'",
                    h.name, h.header_type
                )
            })?;
            let first_field = self.fields.len();
            let mut bits = 0u32;
            let mut varbit_field = None;
            for f in &t.fields {
                let name = f.first().and_then(Value::as_str).ok_or_else(|| {
                    format!("header_type '{}': field entry without a name", t.name)
                })?;
                let width = match f.get(1) {
                    Some(Value::Number(n)) => n.as_u64().unwrap_or(0) as u32,
                    // Width 0 marks the varbit field; its bytes are kept apart.
                    Some(Value::String(s)) if s == "*" => {
                        if varbit_field.replace(self.fields.len()).is_some() {
                            return Err(format!(
                                "header_type '{}': more than one varbit field",
                                t.name
                            ));
                        }
                        0
                    }
                    _ => {
                        return Err(format!(
                            "header_type '{}': field '{name}' has no bitwidth",
                            t.name
                        ))
                    }
                };
                let is_varbit = varbit_field == Some(self.fields.len());
                if !is_varbit && (width == 0 || width > MAX_FIELD_WIDTH) {
                    return Err(format!(
                        "field '{}.{name}' is {width} bits wide; the dataplane handles 1 to {MAX_FIELD_WIDTH}",
                        h.name
                    ));
                }
                let signed = f.get(2).and_then(Value::as_bool).unwrap_or(false);
                self.field_index
                    .insert((h.name.clone(), name.to_owned()), self.fields.len());
                self.fields.push(FieldInfo {
                    name: format!("{}.{name}", h.name),
                    width,
                    signed,
                });
                bits += width;
            }
            let varbit = match varbit_field {
                Some(field) => Some(self.varbit(t, h, field, bits)?),
                None => None,
            };
            if !h.metadata && !bits.is_multiple_of(8) {
                return Err(format!(
                    "header '{}': {bits} bits is not a whole number of bytes",
                    h.name
                ));
            }
            if self
                .header_index
                .insert(h.name.clone(), self.headers.len())
                .is_some()
            {
                return Err(format!("header '{}': defined twice", h.name));
            }
            self.headers.push(HeaderInfo {
                name: h.name.clone(),
                first_field,
                num_fields: self.fields.len() - first_field,
                bits,
                metadata: h.metadata,
                varbit,
                union: None,
            });
        }
        Ok(())
    }

    fn stacks(&mut self, j: &Json) -> Result<()> {
        for s in &j.header_stacks {
            let what = format!("header_stack '{}'", s.name);
            let mut headers: Vec<usize> = Vec::new();
            for &id in &s.header_ids {
                let name = j
                    .headers
                    .get(id as usize)
                    .map(|h| h.name.as_str())
                    .ok_or_else(|| format!("{what}: unknown header id {id}"))?;
                let h = self.header(&Value::from(name), &what)?;
                // Stack extracts have no length argument.
                if self.headers[h].varbit.is_some() {
                    return Err(format!(
                        "{what}: elements with a varbit field are not supported"
                    ));
                }
                if let Some(&first) = headers.first() {
                    if self.headers[h].num_fields != self.headers[first].num_fields {
                        return Err(format!("{what}: elements of different header types"));
                    }
                }
                headers.push(h);
            }
            self.stack_index.insert(s.name.clone(), self.stacks.len());
            self.stacks.push(StackInfo {
                name: s.name.clone(),
                headers,
            });
        }
        Ok(())
    }

    fn stack(&self, v: &Value, what: &str) -> Result<usize> {
        let name = v.as_str().unwrap_or("");
        self.stack_index
            .get(name)
            .copied()
            .ok_or_else(|| format!("{what}: unknown header stack '{name}'"))
    }

    fn header(&self, name: &Value, what: &str) -> Result<usize> {
        let name = name
            .as_str()
            .ok_or_else(|| format!("{what}: header name must be a string"))?;
        self.header_index
            .get(name)
            .copied()
            .ok_or_else(|| format!("{what}: unknown header '{name}'"))
    }

    /// A `[header, field]` pair. `$valid$` is returned as `Err(Ok(header))`
    /// through `field_or_valid`; here it is an error.
    fn field(&self, v: &Value, what: &str) -> Result<usize> {
        match self.field_or_valid(v, what)? {
            KeySource::Field(f) => Ok(f),
            KeySource::Valid(_) => Err(format!("{what}: '$valid$' cannot be written")),
        }
    }

    fn field_or_valid(&self, v: &Value, what: &str) -> Result<KeySource> {
        let pair = v.as_array().filter(|a| a.len() == 2);
        let (h, f) = match pair {
            Some(a) => (a[0].as_str(), a[1].as_str()),
            None => (None, None),
        };
        let (Some(h), Some(f)) = (h, f) else {
            return Err(format!(
                "{what}: field reference must be [header, field], got {v}"
            ));
        };
        if f == "$valid$" {
            return self.header(&Value::from(h), what).map(KeySource::Valid);
        }
        let field = self
            .field_index
            .get(&(h.to_owned(), f.to_owned()))
            .copied()
            .ok_or_else(|| format!("{what}: unknown field '{h}.{f}'"))?;
        // A varbit field's bytes are not a field value: they only move with
        // their header (extract, emit, copies).
        if self.fields[field].width == 0 {
            return Err(format!(
                "{what}: varbit field '{h}.{f}' can only be extracted and emitted"
            ));
        }
        Ok(KeySource::Field(field))
    }

    fn typed_field(&self, v: &Value, what: &str) -> Result<usize> {
        if type_of(v) != "field" {
            return Err(format!(
                "{what}: expected a field, got type '{}'",
                type_of(v)
            ));
        }
        self.field(&v["value"], what)
    }

    fn typed_header(&self, v: &Value, what: &str) -> Result<usize> {
        if type_of(v) != "header" {
            return Err(format!(
                "{what}: expected a header, got type '{}'",
                type_of(v)
            ));
        }
        self.header(&v["value"], what)
    }

    fn expr(&self, v: &Value, sc: Scope) -> Result<Expr> {
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
                KeySource::Valid(h) => Expr::Unary(UnOp::B2d, Box::new(Expr::Valid(h))),
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
    fn param(&self, v: &Value, sc: Scope) -> Result<Expr> {
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

    fn op(&self, v: &Value, sc: Scope) -> Result<Expr> {
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
        let operand = |key: &str| -> Result<Box<Expr>> {
            let x = &v[key];
            if x.is_null() {
                return Err(format!(
                    "{what}: operator '{op}' is missing its '{key}' operand"
                ));
            }
            Ok(Box::new(self.expr(x, sc)?))
        };
        let width_of = |key: &str| -> Result<u32> {
            match self.expr(&v[key], sc)? {
                Expr::Const(w) if (1..=128).contains(&w) => Ok(w as u32),
                _ => Err(format!(
                    "{what}: operator '{op}' needs a constant width 1..128"
                )),
            }
        };
        let bin = match op {
            "+" => Some(BinOp::Add),
            "-" => Some(BinOp::Sub),
            "*" => Some(BinOp::Mul),
            "/" => Some(BinOp::Div),
            "%" => Some(BinOp::Mod),
            "<<" => Some(BinOp::Shl),
            ">>" => Some(BinOp::Shr),
            "==" => Some(BinOp::Eq),
            "!=" => Some(BinOp::Ne),
            ">" => Some(BinOp::Gt),
            ">=" => Some(BinOp::Ge),
            "<" => Some(BinOp::Lt),
            "<=" => Some(BinOp::Le),
            "and" => Some(BinOp::And),
            "or" => Some(BinOp::Or),
            "&" => Some(BinOp::BitAnd),
            "|" => Some(BinOp::BitOr),
            "^" => Some(BinOp::BitXor),
            _ => None,
        };
        if op == "-" && v["left"].is_null() {
            // Unary minus: BMv2 accepts "-" without a left operand.
            return Ok(Expr::Binary(
                BinOp::Sub,
                Box::new(Expr::Const(0)),
                operand("right")?,
            ));
        }
        if matches!(op, "==" | "!=") {
            // p4c compares headers and unions whole, with header-typed operands.
            let equal = match (type_of(&v["left"]), type_of(&v["right"])) {
                ("header", "header") => Some(Expr::HeaderEq(
                    self.typed_header(&v["left"], what)?,
                    self.typed_header(&v["right"], what)?,
                )),
                ("header_union", "header_union") => Some(Expr::UnionEq(
                    self.typed_union(&v["left"], what)?,
                    self.typed_union(&v["right"], what)?,
                )),
                _ => None,
            };
            if let Some(equal) = equal {
                return Ok(if op == "==" {
                    equal
                } else {
                    Expr::Unary(UnOp::Not, Box::new(equal))
                });
            }
        }
        if let Some(b) = bin {
            return Ok(Expr::Binary(b, operand("left")?, operand("right")?));
        }
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
            "valid" => Expr::Valid(self.typed_header(&v["right"], what)?),
            "last_stack_index" => {
                if type_of(&v["right"]) != "header_stack" {
                    return Err(format!("{what}: operator '{op}' needs a header_stack"));
                }
                Expr::LastStackIndex(self.stack(&v["right"]["value"], what)?)
            }
            "valid_union" => Expr::ValidUnion(self.typed_union(&v["right"], what)?),
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

    fn action(&self, a: &json::Action) -> Result<Action> {
        let what = format!("action '{}'", a.name);
        let sc = Scope {
            what: &what,
            params: a.runtime_data.len(),
        };
        let params = a
            .runtime_data
            .iter()
            .map(|p| {
                if p.bitwidth == 0 || p.bitwidth > MAX_FIELD_WIDTH {
                    Err(format!(
                        "{what}: parameter '{}' has width {}",
                        p.name, p.bitwidth
                    ))
                } else {
                    Ok(ActionParam {
                        name: p.name.clone(),
                        width: p.bitwidth,
                    })
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let body = a
            .primitives
            .iter()
            .map(|p| self.primitive(&p.op, &p.parameters, sc, a.primitives.len()))
            .collect::<Result<Vec<_>>>()?;
        let mut registers: Vec<usize> = body.iter().filter_map(Primitive::register).collect();
        registers.sort_unstable();
        registers.dedup();
        if registers.len() > MAX_ACTION_REGISTERS {
            return Err(format!(
                "{what}: references {} register arrays; an action may lock at most {MAX_ACTION_REGISTERS}",
                registers.len()
            ));
        }
        Ok(Action {
            name: a.name.clone(),
            params,
            body,
            registers,
        })
    }

    fn primitive(&self, op: &str, ps: &[Value], sc: Scope, body_len: usize) -> Result<Primitive> {
        let base = sc.what;
        let what = format!("{base}: primitive '{op}'");
        let sc = Scope {
            what: &what,
            params: sc.params,
        };
        let arg = |i: usize| -> Result<&Value> {
            ps.get(i)
                .ok_or_else(|| format!("{what}: missing parameter {i}"))
        };
        let arity = |n: usize| -> Result<()> {
            if ps.len() == n {
                Ok(())
            } else {
                Err(format!("{what}: expected {n} parameters, got {}", ps.len()))
            }
        };
        // A data parameter, read as BMv2 reads a primitive's parameter; errors
        // name the action, the primitive and the parameter.
        let data = |i: usize| -> Result<Expr> {
            let w = format!("{what}: parameter {i}");
            self.param(
                arg(i)?,
                Scope {
                    what: &w,
                    params: sc.params,
                },
            )
        };
        let jump_target = |i: usize| -> Result<usize> {
            let t = match data(i)? {
                Expr::Const(t) if t >= 0 && (t as usize) <= body_len => t as usize,
                _ => {
                    return Err(format!(
                        "{what}: jump target must be an offset within the action"
                    ))
                }
            };
            Ok(t)
        };
        let named = |v: &Value, kind: &str, map: &HashMap<String, usize>| -> Result<usize> {
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
        };
        Ok(match op {
            "assign" | "modify_field" => {
                arity(2)?;
                // BMv2's assign copies data into a field; headers have assign_header.
                Primitive::Assign(self.typed_field(arg(0)?, &what)?, data(1)?)
            }
            "add_to_field" | "subtract_from_field" => {
                arity(2)?;
                let dst = self.typed_field(arg(0)?, &what)?;
                let b = if op == "add_to_field" {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                Primitive::Assign(
                    dst,
                    Expr::Binary(b, Box::new(Expr::Field(dst)), Box::new(data(1)?)),
                )
            }
            "assign_header" => {
                arity(2)?;
                Primitive::AssignHeader {
                    dst: self.typed_header(arg(0)?, &what)?,
                    src: self.typed_header(arg(1)?, &what)?,
                }
            }
            "assign_union" => {
                arity(2)?;
                let (dst, src) = (
                    self.typed_union(arg(0)?, &what)?,
                    self.typed_union(arg(1)?, &what)?,
                );
                if self.unions[dst].headers.len() != self.unions[src].headers.len() {
                    return Err(format!("{what}: unions of different types"));
                }
                Primitive::AssignUnion { dst, src }
            }
            "add_header" | "remove_header" => {
                arity(1)?;
                Primitive::SetValid(self.typed_header(arg(0)?, &what)?, op == "add_header")
            }
            "push" | "pop" => {
                arity(2)?;
                if type_of(arg(0)?) != "header_stack" {
                    return Err(format!("{what}: expected a header_stack"));
                }
                let stack = self.stack(&arg(0)?["value"], &what)?;
                let count = match data(1)? {
                    Expr::Const(c) if c >= 0 => c as usize,
                    _ => return Err(format!("{what}: count must be a constant")),
                };
                Primitive::StackShift {
                    stack,
                    count,
                    push: op == "push",
                }
            }
            // simple_switch's mark_to_drop(standard_metadata); drop() is its
            // P4_14 form without a parameter.
            "mark_to_drop" => {
                arity(1)?;
                self.typed_header(arg(0)?, &what)?;
                Primitive::MarkToDrop
            }
            "drop" => {
                arity(0)?;
                Primitive::MarkToDrop
            }
            "exit" => {
                arity(0)?;
                Primitive::Exit
            }
            "no_op" => {
                arity(0)?;
                Primitive::NoOp
            }
            "count" => {
                arity(2)?;
                Primitive::Count {
                    counter: named(arg(0)?, "counter_array", &self.counters)?,
                    index: data(1)?,
                }
            }
            "clone_ingress_pkt_to_egress" | "clone_egress_pkt_to_egress" => {
                let egress = op == "clone_egress_pkt_to_egress";
                arity(2)?;
                if !egress {
                    self.clones_in_ingress.set(true);
                }
                Primitive::Clone {
                    session: data(0)?,
                    egress,
                    field_list: self.field_list_arg(data(1)?, &what)?,
                }
            }
            "resubmit" | "resubmit_preserving_field_list" => {
                arity(1)?;
                Primitive::Resubmit(self.field_list_arg(data(0)?, &what)?)
            }
            "recirculate" | "recirculate_preserving_field_list" => {
                arity(1)?;
                Primitive::Recirculate(self.field_list_arg(data(0)?, &what)?)
            }
            "truncate" => {
                arity(1)?;
                Primitive::Truncate(data(0)?)
            }
            "generate_digest" => {
                arity(2)?;
                let id = match data(1)? {
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
            "execute_meter" => {
                arity(3)?;
                Primitive::ExecuteMeter {
                    meter: named(arg(0)?, "meter_array", &self.meters)?,
                    index: data(1)?,
                    dst: self.typed_field(arg(2)?, &what)?,
                }
            }
            "register_read" => {
                arity(3)?;
                Primitive::RegisterRead {
                    dst: self.typed_field(arg(0)?, &what)?,
                    register: named(arg(1)?, "register_array", &self.registers)?,
                    index: data(2)?,
                }
            }
            "register_write" => {
                arity(3)?;
                Primitive::RegisterWrite {
                    register: named(arg(0)?, "register_array", &self.registers)?,
                    index: data(1)?,
                    value: data(2)?,
                }
            }
            "modify_field_rng_uniform" => {
                arity(3)?;
                Primitive::Random {
                    dst: self.typed_field(arg(0)?, &what)?,
                    lo: data(1)?,
                    hi: data(2)?,
                }
            }
            "modify_field_with_hash_based_offset" => {
                arity(4)?;
                let c = arg(2)?;
                if type_of(c) != "calculation" {
                    return Err(format!(
                        "{what}: expected a calculation, got type '{}'",
                        type_of(c)
                    ));
                }
                let name = c["value"].as_str().unwrap_or("");
                Primitive::Hash {
                    dst: self.typed_field(arg(0)?, &what)?,
                    base: data(1)?,
                    calculation: self
                        .calculations
                        .get(name)
                        .copied()
                        .ok_or_else(|| format!("{what}: unknown calculation '{name}'"))?,
                    max: data(3)?,
                }
            }
            "_jump" => {
                arity(1)?;
                Primitive::Jump(jump_target(0)?)
            }
            "_jump_if_zero" => {
                arity(2)?;
                Primitive::JumpIfZero(data(0)?, jump_target(1)?)
            }
            "log_msg" => {
                // log_msg(string, parameters_vector) (JSON_format.md, actions);
                // the vector's items are parameters themselves.
                arity(2)?;
                let (f, v) = (arg(0)?, arg(1)?);
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
                        self.param(
                            x,
                            Scope {
                                what: &w,
                                params: sc.params,
                            },
                        )
                    })
                    .collect::<Result<Vec<_>>>()?;
                Primitive::Log { fmt, args }
            }
            "assert" | "assume" => {
                arity(1)?;
                Primitive::Assert(data(0)?)
            }
            other => return Err(format!("{base}: primitive '{other}' is not supported")),
        })
    }

    fn parser(
        &self,
        j: &Json,
        value_sets: &[ValueSet],
    ) -> Result<(Vec<ParseState>, Option<usize>)> {
        let p = match j.parsers.as_slice() {
            [] => return Ok((Vec::new(), None)),
            [p] => p,
            _ => return Err("more than one parser; v1model has one".to_owned()),
        };
        let index: HashMap<&str, usize> = p
            .parse_states
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.as_str(), i))
            .collect();
        let state_ref = |name: &Option<String>, what: &str| -> Result<Option<usize>> {
            match name {
                None => Ok(None),
                Some(n) => index
                    .get(n.as_str())
                    .copied()
                    .map(Some)
                    .ok_or_else(|| format!("{what}: unknown parse state '{n}'")),
            }
        };
        let init = state_ref(&Some(p.init_state.clone()), &format!("parser '{}'", p.name))?;
        let mut states = Vec::new();
        for s in &p.parse_states {
            let what = format!("parse state '{}'", s.name);
            let sc = Scope {
                what: &what,
                params: 0,
            };
            let mut ops = Vec::new();
            for op in &s.parser_ops {
                let opw = format!("{what}: parser op '{}'", op.op);
                let arg = |i: usize| {
                    op.parameters
                        .get(i)
                        .ok_or_else(|| format!("{opw}: missing parameter {i}"))
                };
                // BMv2 checks each op's parameter count (JSON_format.md, parser
                // operations).
                let arity = |n: usize| -> Result<()> {
                    if op.parameters.len() == n {
                        Ok(())
                    } else {
                        Err(format!(
                            "{opw}: expected {n} parameters, got {}",
                            op.parameters.len()
                        ))
                    }
                };
                let osc = Scope {
                    what: &opw,
                    params: 0,
                };
                ops.push(match op.op.as_str() {
                    "extract" => {
                        arity(1)?;
                        let a = arg(0)?;
                        match type_of(a) {
                            "regular" => ParserOp::Extract(self.fixed_header(&a["value"], &opw)?),
                            "stack" => ParserOp::ExtractNext(self.stack(&a["value"], &opw)?),
                            other => {
                                return Err(format!(
                                    "{opw}: extract of type '{other}' is not supported"
                                ))
                            }
                        }
                    }
                    "extract_VL" => {
                        // The length "must be of type expression"; its value is
                        // the expression itself (a typed value).
                        arity(2)?;
                        let len = arg(1)?;
                        if type_of(len) != "expression" {
                            return Err(format!(
                                "{opw}: invalid length type '{}', expected 'expression'",
                                type_of(len)
                            ));
                        }
                        let size = self.expr(&len["value"], osc)?;
                        ParserOp::ExtractVarbit(self.varbit_header(arg(0)?, &opw)?, size)
                    }
                    "set" => {
                        // A field set from a field, hexstr, lookahead or
                        // expression (the latter a data parameter, as in actions).
                        arity(2)?;
                        let (dst, src) = (arg(0)?, arg(1)?);
                        if type_of(dst) != "field" {
                            return Err(format!(
                                "{opw}: invalid destination type '{}', expected 'field'",
                                type_of(dst)
                            ));
                        }
                        let dst = self.typed_field(dst, &opw)?;
                        match type_of(src) {
                            "lookahead" => {
                                let (off, w) = lookahead(&src["value"], &opw)?;
                                ParserOp::SetLookahead(dst, off, w)
                            }
                            "field" | "hexstr" | "expression" => {
                                ParserOp::Set(dst, self.param(src, osc)?)
                            }
                            other => {
                                return Err(format!("{opw}: unsupported source type '{other}'"))
                            }
                        }
                    }
                    "advance" => {
                        arity(1)?;
                        let bits = arg(0)?;
                        match type_of(bits) {
                            "field" | "hexstr" | "expression" => {
                                ParserOp::Advance(self.param(bits, osc)?)
                            }
                            other => {
                                return Err(format!("{opw}: unsupported parameter type '{other}'"))
                            }
                        }
                    }
                    "verify" => {
                        // Both are expressions as they stand (a boolean, and the
                        // error's value).
                        arity(2)?;
                        ParserOp::Verify {
                            cond: self.expr(arg(0)?, osc)?,
                            error: self.expr(arg(1)?, osc)?,
                        }
                    }
                    "primitive" => {
                        arity(1)?;
                        let inner = arg(0)?;
                        let name = inner["op"].as_str().unwrap_or("");
                        let params = inner["parameters"].as_array().cloned().unwrap_or_default();
                        ParserOp::Primitive(self.primitive(name, &params, sc, 0)?)
                    }
                    other => return Err(format!("{what}: parser op '{other}' is not supported")),
                });
            }
            let mut key = Vec::new();
            let mut key_widths = Vec::new();
            for k in &s.transition_key {
                match type_of(k) {
                    "lookahead" => {
                        let (off, w) = lookahead(&k["value"], &what)?;
                        key.push(KeyPart::Lookahead(off, w));
                        key_widths.push(w);
                    }
                    // A key part is a field, a stack_field or a lookahead
                    // (JSON_format.md, parsers); BMv2 refuses anything else.
                    "field" | "stack_field" => {
                        let e = self.expr(k, sc)?;
                        let w = match &e {
                            Expr::Field(f) => self.fields[*f].width,
                            Expr::StackField(st, off) => {
                                let first = self.stacks[*st].headers[0];
                                self.fields[self.headers[first].first_field + off].width
                            }
                            // `$valid$`, read as a 1-bit field.
                            _ => 1,
                        };
                        key.push(KeyPart::Expr(e));
                        key_widths.push(w);
                    }
                    other => {
                        return Err(format!(
                            "{what}: invalid entry in parse state key: type '{other}' \
                             (a key part is a field, stack_field or lookahead)"
                        ))
                    }
                }
            }
            let mut transitions = Vec::new();
            for t in &s.transitions {
                let next = state_ref(&t.next_state, &what)?;
                let matches = match t.kind.as_str() {
                    "default" => TransitionMatch::Default,
                    "hexstr" => {
                        let v = t
                            .value
                            .as_deref()
                            .ok_or_else(|| format!("{what}: hexstr transition without value"))?;
                        let vals = split_key(v, &key_widths, &what)?;
                        let masks = match t.mask.as_deref() {
                            Some(m) => split_key(m, &key_widths, &what)?,
                            None => key_widths.iter().map(|&w| width_mask(w)).collect(),
                        };
                        TransitionMatch::Values(
                            vals.into_iter()
                                .zip(masks)
                                .map(|(v, m)| (v & m, m))
                                .collect(),
                        )
                    }
                    "parse_vset" => self.value_set_transition(t, &key_widths, value_sets, &what)?,
                    other => {
                        return Err(format!(
                            "{what}: transition type '{other}' is not supported"
                        ))
                    }
                };
                transitions.push(Transition { matches, next });
            }
            states.push(ParseState {
                name: s.name.clone(),
                ops,
                key,
                key_widths,
                transitions,
            });
        }
        Ok((states, init))
    }

    fn deparser(&self, j: &Json) -> Result<Vec<usize>> {
        let d = match j.deparsers.as_slice() {
            [] => return Ok(Vec::new()),
            [d] => d,
            _ => return Err("more than one deparser; v1model has one".to_owned()),
        };
        if !d.primitives.is_empty() {
            return Err(format!(
                "deparser '{}': deparser primitives are not supported",
                d.name
            ));
        }
        d.order
            .iter()
            .map(|h| self.header(&Value::from(h.as_str()), &format!("deparser '{}'", d.name)))
            .collect()
    }

    fn pipeline(
        &self,
        p: &json::Pipeline,
        actions: &[Action],
        tables: &mut Vec<Table>,
        conditionals: &mut Vec<Conditional>,
    ) -> Result<Control> {
        reject_nonempty(
            &format!("pipeline '{}': action_profiles", p.name),
            &p.action_profiles,
        )?;
        reject_nonempty(
            &format!("pipeline '{}': action_calls", p.name),
            &p.action_calls,
        )?;
        let t0 = tables.len();
        let c0 = conditionals.len();
        let mut nodes: HashMap<&str, Node> = HashMap::new();
        for (i, t) in p.tables.iter().enumerate() {
            nodes.insert(&t.name, Node::Table(t0 + i));
        }
        for (i, c) in p.conditionals.iter().enumerate() {
            if nodes.insert(&c.name, Node::Conditional(c0 + i)).is_some() {
                return Err(format!(
                    "pipeline '{}': name '{}' used twice",
                    p.name, c.name
                ));
            }
        }
        let node = |v: Option<&str>, what: &str| -> Result<Option<Node>> {
            match v {
                None => Ok(None),
                Some(n) => nodes
                    .get(n)
                    .copied()
                    .map(Some)
                    .ok_or_else(|| format!("{what}: unknown next node '{n}'")),
            }
        };
        for t in &p.tables {
            tables.push(self.table(t, actions, &node)?);
        }
        for c in &p.conditionals {
            let what = format!("conditional '{}'", c.name);
            conditionals.push(Conditional {
                name: c.name.clone(),
                expr: self.expr(
                    &c.expression,
                    Scope {
                        what: &what,
                        params: 0,
                    },
                )?,
                true_next: node(c.true_next.as_deref(), &what)?,
                false_next: node(c.false_next.as_deref(), &what)?,
            });
        }
        Ok(Control {
            name: p.name.clone(),
            init: node(p.init_table.as_deref(), &format!("pipeline '{}'", p.name))?,
        })
    }

    fn table(&self, t: &json::Table, actions: &[Action], node: &NodeLookup) -> Result<Table> {
        let what = format!("table '{}'", t.name);
        if t.kind != "simple" {
            return Err(format!(
                "{what}: table type '{}' (action profiles/selectors) is not supported",
                t.kind
            ));
        }
        let direct_meter = match &t.direct_meters {
            None | Some(Value::Null) => None,
            Some(Value::String(m)) => Some(
                self.direct_meters
                    .get(m)
                    .copied()
                    .ok_or_else(|| format!("{what}: unknown direct meter '{m}'"))?,
            ),
            Some(other) => return Err(format!("{what}: bad direct_meters {other}")),
        };
        // The table-wide match_type is implied by the keys; still reject unknown ones.
        parse_match_kind(&t.match_type, &what)?;
        let mut keys = Vec::new();
        for k in &t.key {
            let name = k.name.clone().unwrap_or_else(|| k.target.to_string());
            let kw = format!("{what}: key '{name}'");
            // Key match types: valid, exact, lpm, ternary, range (JSON_format.md,
            // pipelines); a `valid` key's target is a header's name.
            let (kind, source) = match k.match_type.as_str() {
                "valid" => (
                    MatchKind::Exact,
                    KeySource::Valid(self.header(&k.target, &kw)?),
                ),
                m => (
                    parse_match_kind(m, &kw)?,
                    self.field_or_valid(&k.target, &kw)?,
                ),
            };
            let width = match source {
                KeySource::Field(f) => self.fields[f].width,
                KeySource::Valid(_) => 1,
            };
            let mask = match &k.mask {
                Some(m) => Some(hex_of_width(m, width, &kw)?),
                None => None,
            };
            keys.push(KeySpec {
                name,
                source,
                kind,
                width,
                mask,
            });
        }
        if keys.iter().filter(|k| k.kind == MatchKind::Lpm).count() > 1 {
            return Err(format!("{what}: more than one lpm key"));
        }
        if t.action_ids.len() != t.actions.len() {
            return Err(format!("{what}: action_ids and actions differ in length"));
        }
        let mut table_actions = Vec::new();
        let mut next_by_action = Vec::new();
        let mut hit_next = None;
        let mut miss_next = None;
        for (id, name) in t.action_ids.iter().zip(&t.actions) {
            let a = *self
                .action_by_id
                .get(id)
                .ok_or_else(|| format!("{what}: unknown action id {id}"))?;
            if actions[a].name != *name {
                return Err(format!(
                    "{what}: action id {id} is '{}', not '{name}'",
                    actions[a].name
                ));
            }
            table_actions.push(a);
        }
        for (key, v) in &t.next_tables {
            let target = node(v.as_str(), &what)?;
            match key.as_str() {
                "__HIT__" => hit_next = Some(target),
                "__MISS__" => miss_next = Some(target),
                _ => {}
            }
        }
        if hit_next.is_some() != miss_next.is_some() {
            return Err(format!(
                "{what}: next_tables has only one of __HIT__ and __MISS__"
            ));
        }
        let base_default_next = node(t.base_default_next.as_deref(), &what)?;
        for name in &t.actions {
            let next = match t.next_tables.get(name) {
                Some(v) => node(v.as_str(), &what)?,
                None => base_default_next,
            };
            next_by_action.push(next);
        }
        let call = |action_id: u32, data: &[String], w: &str| -> Result<ActionCall> {
            let a = *self
                .action_by_id
                .get(&action_id)
                .ok_or_else(|| format!("{w}: unknown action id {action_id}"))?;
            let params = &actions[a].params;
            if data.len() != params.len() {
                return Err(format!(
                    "{w}: action '{}' takes {} parameters, got {}",
                    actions[a].name,
                    params.len(),
                    data.len()
                ));
            }
            let data = data
                .iter()
                .zip(params)
                .map(|(d, p)| Ok(parse_hex(d, w)? as u128 & width_mask(p.width)))
                .collect::<Result<Vec<_>>>()?;
            Ok(ActionCall { action: a, data })
        };
        let (default, default_const, default_entry_const) = match &t.default_entry {
            Some(d) => (
                call(
                    d.action_id,
                    &d.action_data,
                    &format!("{what}: default_entry"),
                )?,
                d.action_const,
                d.action_entry_const,
            ),
            None => {
                let a = actions
                    .iter()
                    .position(|a| a.name == "NoAction" && a.params.is_empty())
                    .or_else(|| {
                        table_actions
                            .iter()
                            .copied()
                            .find(|&a| actions[a].params.is_empty())
                    })
                    .ok_or_else(|| {
                        format!("{what}: no default_entry and no parameterless action")
                    })?;
                (
                    ActionCall {
                        action: a,
                        data: Vec::new(),
                    },
                    false,
                    false,
                )
            }
        };
        let const_entries = match &t.entries {
            None => None,
            Some(es) => Some(
                es.iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let ew = format!("{what}: entry {i}");
                        if e.match_key.len() != keys.len() {
                            return Err(format!(
                                "{ew}: {} match keys for {} key fields",
                                e.match_key.len(),
                                keys.len()
                            ));
                        }
                        let kv = e
                            .match_key
                            .iter()
                            .zip(&keys)
                            .zip(&t.key)
                            .enumerate()
                            .map(|(i, ((mk, spec), k))| {
                                if mk.match_type != k.match_type {
                                    return Err(format!(
                                        "{ew}: invalid match type for field #{i} in match key, \
                                         expected {} but got {}",
                                        k.match_type, mk.match_type
                                    ));
                                }
                                const_key(mk, spec, &ew)
                            })
                            .collect::<Result<Vec<_>>>()?;
                        // BMv2 priorities: lower wins; ours: higher wins.
                        Ok(Entry {
                            keys: kv,
                            call: call(e.action_entry.action_id, &e.action_entry.action_data, &ew)?,
                            priority: -e.priority,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        Ok(Table {
            name: t.name.clone(),
            keys,
            max_size: t.max_size,
            actions: table_actions,
            next_by_action,
            hit_next,
            miss_next,
            default,
            default_const,
            default_entry_const,
            with_counters: t.with_counters,
            direct_meter,
            const_entries,
        })
    }

    fn field_lists(&mut self, j: &Json) -> Result<Vec<Vec<usize>>> {
        let mut out = Vec::new();
        for (i, l) in j.field_lists.iter().enumerate() {
            let what = format!("field_list '{}'", l.name);
            let fields = l
                .elements
                .iter()
                .map(|e| self.typed_field(e, &what))
                .collect::<Result<Vec<_>>>()?;
            if self.field_list_by_id.insert(l.id, i).is_some() {
                return Err(format!("{what}: duplicate id {}", l.id));
            }
            out.push(fields);
        }
        Ok(out)
    }

    /// A field list id parameter; an id with no field list (p4c's 0) keeps
    /// no metadata.
    fn field_list_arg(&self, id: Expr, what: &str) -> Result<Option<usize>> {
        match id {
            Expr::Const(id) => Ok(u32::try_from(id)
                .ok()
                .and_then(|id| self.field_list_by_id.get(&id).copied())),
            _ => Err(format!("{what}: field list id must be a constant")),
        }
    }

    fn learn_lists(&mut self, j: &Json) -> Result<Vec<LearnList>> {
        let mut out = Vec::new();
        for (i, l) in j.learn_lists.iter().enumerate() {
            let what = format!("learn_list '{}'", l.name);
            let fields = l
                .elements
                .iter()
                .map(|e| self.typed_field(e, &what))
                .collect::<Result<Vec<_>>>()?;
            if self.learn_list_by_id.insert(l.id, i).is_some() {
                return Err(format!("{what}: duplicate id {}", l.id));
            }
            out.push(LearnList {
                name: l.name.clone(),
                fields,
            });
        }
        Ok(out)
    }

    /// Meter arrays; direct ones are also indexed by name with their
    /// result field, for the tables that name them.
    fn meters(&mut self, j: &Json) -> Result<Vec<MeterArray>> {
        let mut out = Vec::new();
        for (i, m) in j.meter_arrays.iter().enumerate() {
            let what = format!("meter_array '{}'", m.name);
            if m.size > MAX_ARRAY_SIZE {
                return Err(format!("{what}: size {} exceeds {MAX_ARRAY_SIZE}", m.size));
            }
            if m.rate_count != 2 {
                return Err(format!(
                    "{what}: rate_count {} (only two-rate three-color meters exist in v1model)",
                    m.rate_count
                ));
            }
            let unit = match m.kind.as_str() {
                "packets" => MeterUnit::Packets,
                "bytes" => MeterUnit::Bytes,
                other => return Err(format!("{what}: type '{other}' is not supported")),
            };
            if m.is_direct {
                let (h, f) = m
                    .result_target
                    .as_ref()
                    .ok_or_else(|| format!("{what}: direct meter without result_target"))?;
                let result = self
                    .field_index
                    .get(&(h.clone(), f.clone()))
                    .copied()
                    .ok_or_else(|| format!("{what}: unknown result_target field '{h}.{f}'"))?;
                self.direct_meters
                    .insert(m.name.clone(), DirectMeter { meter: i, result });
            } else {
                self.meters.insert(m.name.clone(), i);
            }
            out.push(MeterArray {
                name: m.name.clone(),
                size: if m.is_direct { 0 } else { m.size as usize },
                unit,
                direct: m.is_direct,
            });
        }
        Ok(out)
    }

    fn calculation(&self, c: &json::Calculation) -> Result<Calculation> {
        let what = format!("calculation '{}'", c.name);
        let algo = match c.algo.as_str() {
            "csum16" => Algorithm::Csum16,
            "crc16" => Algorithm::Crc16,
            "crc32" => Algorithm::Crc32,
            "identity" => Algorithm::Identity,
            other => return Err(format!("{what}: algorithm '{other}' is not supported")),
        };
        let inputs = c
            .input
            .iter()
            .map(|i| {
                Ok(match type_of(i) {
                    "field" => CalcInput::Field(self.field(&i["value"], &what)?),
                    "header" => CalcInput::Header(self.header(&i["value"], &what)?),
                    "payload" => CalcInput::Payload,
                    "hexstr" => {
                        let width = i["bitwidth"].as_u64().unwrap_or(0) as u32;
                        if width == 0 || width > MAX_FIELD_WIDTH {
                            return Err(format!("{what}: hexstr input needs a bitwidth 1..128"));
                        }
                        let v = parse_hex(i["value"].as_str().unwrap_or(""), &what)? as u128;
                        CalcInput::Const {
                            value: v & width_mask(width),
                            width,
                        }
                    }
                    other => return Err(format!("{what}: input type '{other}' is not supported")),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Calculation {
            name: c.name.clone(),
            algo,
            inputs,
        })
    }

    fn checksum(&self, c: &json::Checksum, calcs: &[json::Calculation]) -> Result<Checksum> {
        let what = format!("checksum '{}'", c.name);
        if let Some(k) = &c.kind {
            if k != "generic" && k != "ipv4" {
                return Err(format!("{what}: checksum type '{k}' is not supported"));
            }
        }
        let target = self.field(&c.target, &what)?;
        let calculation = calcs
            .iter()
            .position(|x| x.name == c.calculation)
            .ok_or_else(|| format!("{what}: unknown calculation '{}'", c.calculation))?;
        let cond = match &c.if_cond {
            None | Some(Value::Null) => None,
            Some(e) => Some(self.expr(
                e,
                Scope {
                    what: &what,
                    params: 0,
                },
            )?),
        };
        Ok(Checksum {
            name: c.name.clone(),
            target,
            calculation,
            verify: c.verify.unwrap_or(true),
            update: c.update.unwrap_or(true),
            cond,
        })
    }

    fn std_meta(&self) -> StdMeta {
        let f = |n: &str| {
            self.field_index
                .get(&("standard_metadata".to_owned(), n.to_owned()))
                .copied()
        };
        StdMeta {
            ingress_port: f("ingress_port"),
            egress_spec: f("egress_spec"),
            egress_port: f("egress_port"),
            instance_type: f("instance_type"),
            packet_length: f("packet_length"),
            enq_timestamp: f("enq_timestamp"),
            enq_qdepth: f("enq_qdepth"),
            deq_timedelta: f("deq_timedelta"),
            deq_qdepth: f("deq_qdepth"),
            ingress_global_timestamp: f("ingress_global_timestamp"),
            egress_global_timestamp: f("egress_global_timestamp"),
            mcast_grp: f("mcast_grp"),
            egress_rid: f("egress_rid"),
            qid: f("qid"),
            priority: f("priority"),
            checksum_error: f("checksum_error"),
            parser_error: f("parser_error"),
        }
    }
}

/// A lookahead `[offset, width]` in bits.
fn lookahead(v: &Value, what: &str) -> Result<(u32, u32)> {
    let a = v
        .as_array()
        .filter(|a| a.len() == 2)
        .ok_or_else(|| format!("{what}: bad lookahead {v}"))?;
    let off = a[0].as_u64().unwrap_or(0) as u32;
    let w = a[1].as_u64().unwrap_or(0) as u32;
    if w == 0 || w > MAX_FIELD_WIDTH {
        return Err(format!("{what}: lookahead width {w} not supported"));
    }
    Ok((off, w))
}

fn reject_nonempty(what: &str, v: &[Value]) -> Result<()> {
    if v.is_empty() {
        Ok(())
    } else {
        Err(format!("{what} are not supported"))
    }
}

fn parse_match_kind(s: &str, what: &str) -> Result<MatchKind> {
    Ok(match s {
        "exact" => MatchKind::Exact,
        "lpm" => MatchKind::Lpm,
        "ternary" => MatchKind::Ternary,
        "range" => MatchKind::Range,
        // BMv2's message; an `optional` P4 key is a ternary one in the JSON.
        other => return Err(format!("{what}: Invalid match type: '{other}'")),
    })
}

/// A hex string that must be exactly as wide as a `width`-bit value padded to
/// whole bytes: table key masks and the keys of table entries
/// (JSON_format.md, pipelines: "the hexstrings need to have the correct
/// byte-width").
fn hex_of_width(s: &str, width: u32, what: &str) -> Result<u128> {
    let (neg, bytes) = hex_bytes(s).map_err(|e| format!("{what}: {e}"))?;
    let want = width.div_ceil(8) as usize;
    if neg || bytes.len() != want {
        return Err(format!(
            "{what}: '{s}' must be {want} bytes wide, as the {width}-bit value it matches"
        ));
    }
    Ok(bytes_to_u128(&bytes, what)? & width_mask(width))
}

/// Splits a select value into one value per key part: BMv2 concatenates the
/// parts, each padded to whole bytes.
fn split_key(s: &str, widths: &[u32], what: &str) -> Result<Vec<u128>> {
    let (_, bytes) = hex_bytes(s).map_err(|e| format!("{what}: {e}"))?;
    let total: usize = widths.iter().map(|w| w.div_ceil(8) as usize).sum();
    if bytes.len() != total {
        // BMv2: "Parser transition value has incorrect width".
        return Err(format!(
            "{what}: select value or mask '{s}' is {} bytes; the key needs exactly {total} \
             (each key part padded to whole bytes)",
            bytes.len()
        ));
    }
    let mut out = Vec::new();
    let mut at = 0;
    for &w in widths {
        let n = w.div_ceil(8) as usize;
        out.push(bytes_to_u128(&bytes[at..at + n], what)? & width_mask(w));
        at += n;
    }
    Ok(out)
}

fn const_key(mk: &json::ConstKey, spec: &KeySpec, what: &str) -> Result<KeyValue> {
    let full = width_mask(spec.width);
    let num = |s: &Option<Value>, name: &str| -> Result<u128> {
        let s = s
            .as_ref()
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{what}: key '{}' needs a hex string '{name}'", spec.name))?;
        hex_of_width(s, spec.width, &format!("{what}: key '{}'", spec.name))
    };
    Ok(match mk.match_type.as_str() {
        "exact" => KeyValue::Masked {
            value: num(&mk.key, "key")?,
            mask: full,
            prefix: None,
        },
        // A `valid` key is a boolean (JSON_format.md, match-action entry format).
        "valid" => KeyValue::Masked {
            value: u128::from(
                mk.key
                    .as_ref()
                    .and_then(Value::as_bool)
                    .ok_or_else(|| format!("{what}: valid key '{}' needs a boolean", spec.name))?,
            ),
            mask: full,
            prefix: None,
        },
        "lpm" => {
            let len = mk
                .prefix_length
                .ok_or_else(|| format!("{what}: lpm key '{}' has no prefix_length", spec.name))?;
            if len > spec.width {
                return Err(format!(
                    "{what}: prefix_length {len} is longer than key '{}' ({} bits)",
                    spec.name, spec.width
                ));
            }
            let mask = prefix_mask(spec.width, len);
            KeyValue::Masked {
                value: num(&mk.key, "key")? & mask,
                mask,
                prefix: Some(len),
            }
        }
        "ternary" => {
            let mask = num(&mk.mask, "mask")?;
            KeyValue::Masked {
                value: num(&mk.key, "key")? & mask,
                mask,
                prefix: None,
            }
        }
        "range" => KeyValue::Range {
            low: num(&mk.start, "start")?,
            high: num(&mk.end, "end")?,
        },
        other => return Err(format!("{what}: Invalid match type: '{other}'")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_strings_are_hexadecimal_with_or_without_0x() {
        // BMv2's Data and ByteContainer read "10" as sixteen, as "0x10".
        assert_eq!(parse_hex("0x10", "t"), Ok(16));
        assert_eq!(parse_hex("10", "t"), Ok(16));
        assert_eq!(parse_hex("-0x1", "t"), Ok(-1));
        assert_eq!(hex_bytes("0x800"), Ok((false, vec![0x08, 0x00])));
        assert!(parse_hex("0x", "t").is_err());
        assert!(parse_hex("12z", "t").is_err());
    }

    #[test]
    fn version_must_be_2_and_at_most_23() {
        assert!(check_version(None).is_ok());
        assert!(check_version(Some(&serde_json::json!({"compiler": "x"}))).is_ok());
        assert!(check_version(Some(&serde_json::json!({"version": [2, 23]}))).is_ok());
        assert!(check_version(Some(&serde_json::json!({"version": [2, 7]}))).is_ok());
        let newer = check_version(Some(&serde_json::json!({"version": [2, 24]})));
        assert!(newer
            .unwrap_err()
            .contains("most recent BMv2 JSON version supported is 2.23"));
        let major = check_version(Some(&serde_json::json!({"version": [3, 0]})));
        assert!(major.unwrap_err().contains("major version 2 is required"));
        let shape = check_version(Some(&serde_json::json!({"version": "2.23"})));
        assert!(shape.unwrap_err().contains("[major, minor]"));
    }

    #[test]
    fn ids_are_unique_per_kind_as_bmv2_checks_them() {
        let ok = serde_json::json!({
            "actions": [{"id": 0}, {"id": 1}],
            "pipelines": [{"id": 0, "tables": [{"id": 0}], "conditionals": [{"id": 0}]},
                          {"id": 1, "tables": [{"id": 1}], "conditionals": [{"id": 0}]}]
        });
        assert!(check_ids(ok.as_object().unwrap()).is_ok());
        let actions = serde_json::json!({"actions": [{"id": 3}, {"id": 3}]});
        assert_eq!(
            check_ids(actions.as_object().unwrap()),
            Err("several objects of type 'action' have the same id 3".to_owned())
        );
        let tables =
            serde_json::json!({"pipelines": [{"id": 0, "tables": [{"id": 2}, {"id": 2}]}]});
        assert!(check_ids(tables.as_object().unwrap())
            .unwrap_err()
            .contains("'table' have the same id 2"));
        let states =
            serde_json::json!({"parsers": [{"id": 0, "parse_states": [{"id": 1}, {"id": 1}]}]});
        assert!(check_ids(states.as_object().unwrap())
            .unwrap_err()
            .contains("'parse state' have the same id 1"));
    }

    #[test]
    fn select_values_are_exactly_as_wide_as_the_padded_key() {
        // A 12-bit and a 2-bit key part: 3 bytes (JSON_format.md's example).
        assert_eq!(split_key("0x0aba03", &[12, 2], "t"), Ok(vec![0xaba, 0x3]));
        // An odd digit count is padded, as BMv2's ByteContainer pads it.
        assert_eq!(split_key("0xaba03", &[12, 2], "t"), Ok(vec![0xaba, 0x3]));
        assert!(split_key("0xaba0", &[12, 2], "t").is_err());
        assert!(split_key("0x000aba03", &[12, 2], "t").is_err());
    }
}

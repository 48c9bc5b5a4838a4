//! The parser: its parse states, each with its operations, its key and its
//! transitions to the next state.

use std::collections::HashMap;

use serde_json::Value;

use super::hex::{bytes_to_u128, hex_bytes};
use super::{type_of, Loader, Result, Scope};
use crate::program::json::{self, Json};
use crate::program::{
    width_mask, Expr, KeyPart, ParseState, Transition, TransitionMatch, ValueSet, MAX_FIELD_WIDTH,
};

/// Parse state indices by name.
type StateIndex<'a> = HashMap<&'a str, usize>;

impl Loader {
    /// The parse states and the initial one; a program without a parser has
    /// none.
    pub(super) fn parser(
        &self,
        j: &Json,
        value_sets: &[ValueSet],
    ) -> Result<(Vec<ParseState>, Option<usize>)> {
        let p = match j.parsers.as_slice() {
            [] => return Ok((Vec::new(), None)),
            [p] => p,
            _ => return Err("more than one parser; v1model has one".to_owned()),
        };
        let index: StateIndex = p
            .parse_states
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.as_str(), i))
            .collect();
        let init = state_ref(&index, Some(&p.init_state), &format!("parser '{}'", p.name))?;
        let states = p
            .parse_states
            .iter()
            .map(|s| self.parse_state(s, &index, value_sets))
            .collect::<Result<Vec<_>>>()?;
        Ok((states, init))
    }

    fn parse_state(
        &self,
        s: &json::ParseState,
        index: &StateIndex,
        value_sets: &[ValueSet],
    ) -> Result<ParseState> {
        let what = format!("parse state '{}'", s.name);
        let sc = Scope::outside_actions(&what);
        let ops = s
            .parser_ops
            .iter()
            .map(|op| self.parser_op(op, sc))
            .collect::<Result<Vec<_>>>()?;
        let (key, key_widths) = self.transition_key(&s.transition_key, sc)?;
        let transitions = s
            .transitions
            .iter()
            .map(|t| {
                Ok(Transition {
                    next: state_ref(index, t.next_state.as_deref(), &what)?,
                    matches: self.transition_match(t, &key_widths, value_sets, &what)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ParseState {
            name: s.name.clone(),
            ops,
            key,
            key_widths,
            transitions,
        })
    }

    /// The key a state's transitions match, with the width of each part.
    fn transition_key(&self, parts: &[Value], sc: Scope) -> Result<(Vec<KeyPart>, Vec<u32>)> {
        let what = sc.what;
        let mut key = Vec::new();
        let mut key_widths = Vec::new();
        for k in parts {
            match type_of(k) {
                "lookahead" => {
                    let (off, w) = lookahead(&k["value"], what)?;
                    key.push(KeyPart::Lookahead(off, w));
                    key_widths.push(w);
                }
                // A key part is a field, a stack_field, a union_stack_field
                // or a lookahead (JSON_format.md, parsers); BMv2 refuses
                // anything else.
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
                "union_stack_field" => {
                    let (e, w) = self.union_stack_field(&k["value"], what)?;
                    key.push(KeyPart::Expr(e));
                    key_widths.push(w);
                }
                other => {
                    return Err(format!(
                        "{what}: invalid entry in parse state key: type '{other}' \
                         (a key part is a field, stack_field, union_stack_field or lookahead)"
                    ))
                }
            }
        }
        Ok((key, key_widths))
    }

    fn transition_match(
        &self,
        t: &json::Transition,
        key_widths: &[u32],
        value_sets: &[ValueSet],
        what: &str,
    ) -> Result<TransitionMatch> {
        Ok(match t.kind.as_str() {
            "default" => TransitionMatch::Default,
            // Older p4c JSON (2.18) writes the default case without a type and
            // with the value "default"; BMv2 reads it as the default case.
            "hexstr" if t.value.as_deref() == Some("default") => TransitionMatch::Default,
            "hexstr" => {
                let v = t
                    .value
                    .as_deref()
                    .ok_or_else(|| format!("{what}: hexstr transition without value"))?;
                let vals = split_key(v, key_widths, what)?;
                let masks = match t.mask.as_deref() {
                    Some(m) => split_key(m, key_widths, what)?,
                    None => key_widths.iter().map(|&w| width_mask(w)).collect(),
                };
                TransitionMatch::Values(
                    vals.into_iter()
                        .zip(masks)
                        .map(|(v, m)| (v & m, m))
                        .collect(),
                )
            }
            "parse_vset" => self.value_set_transition(t, key_widths, value_sets, what)?,
            other => {
                return Err(format!(
                    "{what}: transition type '{other}' is not supported"
                ))
            }
        })
    }
}

/// The state `name` refers to; `None` ends the parser.
fn state_ref(index: &StateIndex, name: Option<&str>, what: &str) -> Result<Option<usize>> {
    match name {
        None => Ok(None),
        Some(n) => index
            .get(n)
            .copied()
            .map(Some)
            .ok_or_else(|| format!("{what}: unknown parse state '{n}'")),
    }
}

/// A lookahead `[offset, width]` in bits.
pub(super) fn lookahead(v: &Value, what: &str) -> Result<(u32, u32)> {
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

#[cfg(test)]
mod tests {
    use super::*;

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

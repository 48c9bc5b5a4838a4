//! Calculations (hash and checksum algorithms over fields) and the
//! checksums that verify or update a field with one.

use serde_json::Value;

use super::hex::parse_hex;
use super::{type_of, Loader, Result, Scope};
use crate::program::json;
use crate::program::{width_mask, Algorithm, CalcInput, Calculation, Checksum, MAX_FIELD_WIDTH};

impl Loader {
    pub(super) fn calculation(&self, c: &json::Calculation) -> Result<Calculation> {
        let what = format!("calculation '{}'", c.name);
        let algo = match c.algo.as_str() {
            "csum16" => Algorithm::Csum16,
            // BMv2 configures crc16_custom and crc32_custom as crc16 and crc32 until
            // its CLI's set_crc16_parameters/set_crc32_parameters, which this switch
            // does not have; so they are those.
            "crc16" | "crc16_custom" => Algorithm::Crc16,
            "crc32" | "crc32_custom" => Algorithm::Crc32,
            "identity" => Algorithm::Identity,
            "xor16" => Algorithm::Xor16,
            "random" => {
                return Err(format!(
                    "{what}: algorithm 'random': BMv2 has no hash of that name (v1model's \
                     HashAlgorithm.random)"
                ))
            }
            other => return Err(format!("{what}: algorithm '{other}' is not supported")),
        };
        let inputs = c
            .input
            .iter()
            .map(|i| {
                Ok(match type_of(i) {
                    "field" => {
                        let header = self.header(&i["value"][0], &what)?;
                        match self.varbit_operand(i) {
                            Some(v) => CalcInput::Varbit {
                                slot: v.slot,
                                header,
                            },
                            None => CalcInput::Field {
                                field: self.field(&i["value"], &what)?,
                                header,
                            },
                        }
                    }
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

    pub(super) fn checksum(
        &self,
        c: &json::Checksum,
        calcs: &[json::Calculation],
    ) -> Result<Checksum> {
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
            Some(e) => Some(self.expr(e, Scope::outside_actions(&what))?),
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
}

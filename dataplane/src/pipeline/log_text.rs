//! How `log_msg` shows a whole header: BMv2's form,
//! `{'$valid$': 1, 'f': 5, ...}`, its validity first and padding left out.

use crate::packet::Phv;
use crate::program::Program;

pub fn header_text(prog: &Program, phv: &Phv, h: usize) -> String {
    let hi = &prog.headers[h];
    let mut parts = vec![format!("'$valid$': {}", u8::from(phv.valid[h]))];
    for f in hi.first_field..hi.first_field + hi.num_fields {
        let full = &prog.fields[f].name;
        let name = full.rsplit_once('.').map_or(full.as_str(), |(_, n)| n);
        if name.starts_with("_padding") {
            continue;
        }
        let value = match hi.varbit {
            Some(v) if v.field == f => {
                let hex: String = phv.var[v.slot].iter().map(|b| format!("{b:02x}")).collect();
                format!("0x{hex}")
            }
            _ => phv.get(f).to_string(),
        };
        parts.push(format!("'{name}': {value}"));
    }
    format!("{{{}}}", parts.join(", "))
}

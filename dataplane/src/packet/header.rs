//! One header's fields to and from packet bytes, the varbit field included:
//! its bytes sit between the fixed fields in declaration order.

use super::{read_bits, write_bits, Phv};
use crate::program::Program;

/// Reads header `h` from `data` at `byte_off`, its varbit field (if any)
/// taking `var_bytes`. The caller checks that `data` holds
/// `hi.bits / 8 + var_bytes` bytes there.
pub fn read_header(
    prog: &Program,
    phv: &mut Phv,
    h: usize,
    data: &[u8],
    byte_off: usize,
    var_bytes: usize,
) {
    let hi = &prog.headers[h];
    let mut bit = byte_off * 8;
    for f in hi.first_field..hi.first_field + hi.num_fields {
        match hi.varbit {
            Some(v) if v.field == f => {
                let bytes = &mut phv.var[v.slot];
                bytes.clear();
                bytes.extend((0..var_bytes).map(|i| read_bits(data, bit + 8 * i, 8) as u8));
                bit += 8 * var_bytes;
            }
            _ => {
                let w = prog.fields[f].width;
                phv.values[f] = read_bits(data, bit, w);
                bit += w as usize;
            }
        }
    }
}

/// Appends header `h`'s bytes to `out`.
pub fn write_header(prog: &Program, phv: &Phv, h: usize, out: &mut Vec<u8>) {
    let hi = &prog.headers[h];
    let start = out.len();
    out.resize(start + phv.header_bytes(prog, h), 0);
    let mut bit = start * 8;
    for f in hi.first_field..hi.first_field + hi.num_fields {
        match hi.varbit {
            Some(v) if v.field == f => {
                for &b in &phv.var[v.slot] {
                    write_bits(out, bit, 8, u128::from(b));
                    bit += 8;
                }
            }
            _ => {
                let w = prog.fields[f].width;
                write_bits(out, bit, w, phv.get(f));
                bit += w as usize;
            }
        }
    }
}

//! Hash and checksum calculations (`calculations` in the JSON) and the
//! v1model verify/update checksum steps built on them.

use super::expr::eval;
use crate::packet::{write_bits, Phv};
use crate::program::{width_mask, Algorithm, CalcInput, Program};

/// Packs the calculation's inputs MSB first into `buf` and hashes them.
pub fn compute(prog: &Program, calc: usize, phv: &Phv, payload: &[u8], buf: &mut Vec<u8>) -> u128 {
    let c = &prog.calculations[calc];
    buf.clear();
    let mut bits = 0usize;
    let mut push = |buf: &mut Vec<u8>, width: u32, v: u128| {
        let end = bits + width as usize;
        buf.resize(end.div_ceil(8), 0);
        write_bits(buf, bits, width, v);
        bits = end;
    };
    for input in &c.inputs {
        match input {
            // BMv2's BufBuilder leaves out the fields of invalid headers.
            CalcInput::Field { header, .. } | CalcInput::Varbit { header, .. }
                if !phv.valid[*header] => {}
            CalcInput::Field { field, .. } => push(buf, prog.fields[*field].width, phv.get(*field)),
            CalcInput::Const { value, width } => push(buf, *width, *value),
            CalcInput::Varbit { slot, .. } => {
                for &b in &phv.var[*slot] {
                    push(buf, 8, u128::from(b));
                }
            }
            CalcInput::Header(h) => {
                if phv.valid[*h] {
                    let hi = &prog.headers[*h];
                    for f in hi.first_field..hi.first_field + hi.num_fields {
                        match hi.varbit {
                            Some(v) if v.field == f => {
                                for &b in &phv.var[v.slot] {
                                    push(buf, 8, u128::from(b));
                                }
                            }
                            _ => push(buf, prog.fields[f].width, phv.get(f)),
                        }
                    }
                }
            }
            CalcInput::Payload => {
                for &b in payload {
                    push(buf, 8, u128::from(b));
                }
            }
        }
    }
    match c.algo {
        Algorithm::Csum16 => u128::from(csum16(buf)),
        Algorithm::Crc16 => u128::from(crc16(buf)),
        Algorithm::Crc32 => u128::from(crc32(buf)),
        // BMv2: the first (at most) 8 bytes, big-endian.
        Algorithm::Identity => buf
            .iter()
            .take(8)
            .fold(0u128, |acc, &b| (acc << 8) | u128::from(b)),
        Algorithm::Xor16 => u128::from(xor16(buf)),
    }
}

/// BMv2's xor16: the XOR of the 16-bit big-endian words; an odd trailing byte
/// is the high byte of a last word.
pub fn xor16(data: &[u8]) -> u16 {
    data.chunks(2).fold(0, |acc, w| {
        acc ^ (u16::from(w[0]) << 8 | w.get(1).map_or(0, |&b| u16::from(b)))
    })
}

/// Internet checksum (RFC 1071); an odd trailing byte is padded with zero.
pub fn csum16(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for chunk in data.chunks(2) {
        let word = u16::from_be_bytes([chunk[0], *chunk.get(1).unwrap_or(&0)]);
        sum += u32::from(word);
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// CRC-16/ARC (poly 0x8005 reflected, init 0), BMv2's `crc16`.
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in data {
        crc ^= u16::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xa001
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// CRC-32 (IEEE 802.3), BMv2's `crc32`.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc: u32 = 0xffff_ffff;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// v1model verify_checksum: a mismatch sets standard_metadata.checksum_error.
pub fn verify(prog: &Program, phv: &mut Phv, payload: &[u8], buf: &mut Vec<u8>, trace: bool) {
    for c in prog.checksums.iter().filter(|c| c.verify) {
        if c.cond
            .as_ref()
            .is_some_and(|e| eval(prog, phv, &[], e) == 0)
        {
            continue;
        }
        let want = compute(prog, c.calculation, phv, payload, buf)
            & width_mask(prog.fields[c.target].width);
        if want != phv.get(c.target) {
            if trace {
                eprintln!("[dp]   checksum {} mismatch: computed {want:#x}", c.name);
            }
            phv.set_opt(prog, prog.std.checksum_error, 1);
        }
    }
}

/// v1model update_checksum: writes each enabled checksum into its field.
pub fn update(prog: &Program, phv: &mut Phv, payload: &[u8], buf: &mut Vec<u8>) {
    for c in prog.checksums.iter().filter(|c| c.update) {
        if c.cond
            .as_ref()
            .is_some_and(|e| eval(prog, phv, &[], e) == 0)
        {
            continue;
        }
        let v = compute(prog, c.calculation, phv, payload, buf);
        phv.set(prog, c.target, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vectors() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc16(b"123456789"), 0xbb3d);
        // RFC 1071 example header.
        let hdr = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0, 0, 0xc0, 0xa8, 0x00,
            0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(csum16(&hdr), 0xb861);
        // 0x1234 ^ 0x5678 ^ 0x9a00 (the odd byte padded at the low end, as BMv2)
        assert_eq!(
            xor16(&[0x12, 0x34, 0x56, 0x78, 0x9a]),
            0x1234 ^ 0x5678 ^ 0x9a00
        );
        assert_eq!(xor16(&[]), 0);
    }
}

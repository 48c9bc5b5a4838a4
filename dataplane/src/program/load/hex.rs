//! BMv2 hex strings (`0x0800`, `-0x1`) read into numbers, with the byte
//! widths BMv2 requires of table keys.

use super::Result;
use crate::program::width_mask;

/// Parses a BMv2 hex string (`0x0800`, `-0x1`) into bytes, big-endian,
/// without sign. As BMv2 does (`Data::set`, `ByteContainer`), the digits are
/// hexadecimal whether or not `0x` precedes them: `"10"` is sixteen.
pub(super) fn hex_bytes(s: &str) -> Result<(bool, Vec<u8>)> {
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

pub(super) fn bytes_to_u128(bytes: &[u8], what: &str) -> Result<u128> {
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

pub(super) fn parse_hex(s: &str, what: &str) -> Result<i128> {
    let (neg, bytes) = hex_bytes(s).map_err(|e| format!("{what}: {e}"))?;
    let v = bytes_to_u128(&bytes, what)? as i128;
    Ok(if neg { v.wrapping_neg() } else { v })
}

/// A hex string that must be exactly as wide as a `width`-bit value padded to
/// whole bytes: table key masks and the keys of table entries
/// (JSON_format.md, pipelines: "the hexstrings need to have the correct
/// byte-width").
pub(super) fn hex_of_width(s: &str, width: u32, what: &str) -> Result<u128> {
    let (neg, bytes) = hex_bytes(s).map_err(|e| format!("{what}: {e}"))?;
    let want = width.div_ceil(8) as usize;
    if neg || bytes.len() != want {
        return Err(format!(
            "{what}: '{s}' must be {want} bytes wide, as the {width}-bit value it matches"
        ));
    }
    Ok(bytes_to_u128(&bytes, what)? & width_mask(width))
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
}

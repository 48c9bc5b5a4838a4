//! Big-endian bit-field access on byte buffers: P4 headers are packed MSB
//! first with no alignment.

/// Reads `width` (<= 128) bits starting `bit_off` bits into `buf`.
/// The caller checks that the bits lie inside `buf`.
pub fn read_bits(buf: &[u8], bit_off: usize, width: u32) -> u128 {
    // Most header fields are whole bytes on byte boundaries.
    if bit_off.is_multiple_of(8) && width.is_multiple_of(8) && width <= 128 {
        let (start, n) = (bit_off / 8, width as usize / 8);
        let mut bytes = [0u8; 16];
        bytes[16 - n..].copy_from_slice(&buf[start..start + n]);
        return u128::from_be_bytes(bytes);
    }
    let end = bit_off + width as usize;
    let mut acc = 0u128;
    let mut pos = bit_off;
    while pos < end {
        let byte = pos / 8;
        let in_byte = pos % 8;
        let n = (8 - in_byte).min(end - pos);
        let shift = 8 - in_byte - n;
        let bits = (buf[byte] >> shift) & (((1u16 << n) - 1) as u8);
        acc = (acc << n) | u128::from(bits);
        pos += n;
    }
    acc
}

/// Writes the low `width` (<= 128) bits of `value` at `bit_off` in `buf`.
pub fn write_bits(buf: &mut [u8], bit_off: usize, width: u32, value: u128) {
    if bit_off.is_multiple_of(8) && width.is_multiple_of(8) && width <= 128 {
        let (start, n) = (bit_off / 8, width as usize / 8);
        buf[start..start + n].copy_from_slice(&value.to_be_bytes()[16 - n..]);
        return;
    }
    let end = bit_off + width as usize;
    let mut pos = bit_off;
    while pos < end {
        let byte = pos / 8;
        let in_byte = pos % 8;
        let n = (8 - in_byte).min(end - pos);
        let shift = 8 - in_byte - n;
        let remaining_after = end - pos - n;
        let bits = ((value >> remaining_after) as u16 & ((1u16 << n) - 1)) as u8;
        let mask = (((1u16 << n) - 1) as u8) << shift;
        buf[byte] = (buf[byte] & !mask) | (bits << shift);
        pos += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_unaligned() {
        let mut buf = [0u8; 20];
        write_bits(&mut buf, 3, 13, 0x1abc);
        assert_eq!(read_bits(&buf, 3, 13), 0x1abc);
        write_bits(&mut buf, 17, 128, u128::MAX - 5);
        assert_eq!(read_bits(&buf, 17, 128), u128::MAX - 5);
        assert_eq!(read_bits(&buf, 3, 13), 0x1abc);
    }

    #[test]
    fn whole_bytes_keep_the_low_bits() {
        let mut buf = [0u8; 6];
        write_bits(&mut buf, 8, 32, 0x11_2233_4455);
        assert_eq!(buf, [0, 0x22, 0x33, 0x44, 0x55, 0]);
        assert_eq!(read_bits(&buf, 8, 32), 0x2233_4455);
        assert_eq!(read_bits(&buf, 12, 8), 0x23);
    }

    #[test]
    fn msb_first() {
        let buf = [0x45u8, 0x00];
        assert_eq!(read_bits(&buf, 0, 4), 4);
        assert_eq!(read_bits(&buf, 4, 4), 5);
        assert_eq!(read_bits(&buf, 0, 16), 0x4500);
    }
}

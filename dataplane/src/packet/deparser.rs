//! The deparser: emits the valid headers in the program's order, then the
//! bytes the parser did not consume.

use super::{write_header, Phv};
use crate::program::Program;

/// Writes the packet into `out` (cleared first, so its allocation is reused).
pub fn deparse(prog: &Program, phv: &Phv, payload: &[u8], out: &mut Vec<u8>) {
    out.clear();
    for &h in &prog.deparse_order {
        if phv.valid[h] {
            write_header(prog, phv, h, out);
        }
    }
    out.extend_from_slice(payload);
}

/// Length in bytes of the packet `deparse` would emit, without building it
/// (the traffic manager charges queues and rates by it).
pub fn length(prog: &Program, phv: &Phv, payload_len: usize) -> usize {
    prog.deparse_order
        .iter()
        .filter(|&&h| phv.valid[h])
        .map(|&h| phv.header_bytes(prog, h))
        .sum::<usize>()
        + payload_len
}

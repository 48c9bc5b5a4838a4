//! The packet path of p4aqm's software switch: executes BMv2 JSON programs
//! (v1model as p4c-bm2-ss emits them) and exposes them to Python as
//! `p4switch._dataplane.Dataplane`.
//!
//! Layout: `program/` loads and resolves the JSON; `packet/` holds the PHV,
//! parser and deparser; `pipeline/` runs expressions, actions, tables and
//! control flow; `checksum.rs` the calculations; `queue.rs` the queues
//! between ingress and egress; `ports/` the AF_PACKET and in-memory ports;
//! `switch.rs` ties them into the v1model flow; `control_plane.rs` the table
//! API; `python.rs` the PyO3 class.

pub mod checksum;
pub mod control_plane;
pub mod packet;
pub mod pipeline;
pub mod ports;
pub mod program;
mod python;
pub mod queue;
pub mod switch;

use pyo3::prelude::*;

#[pymodule]
fn _dataplane(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<python::Dataplane>()?;
    Ok(())
}

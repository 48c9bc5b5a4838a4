//! The packet path of p4aqm's software switch: executes BMv2 JSON programs
//! (v1model as p4c-bm2-ss emits them) and exposes them to Python as
//! `p4switch._dataplane.Dataplane`.
//!
//! Layout: `program/` loads and resolves the JSON; `packet/` holds the PHV,
//! parser and deparser; `pipeline/` runs expressions, actions, tables and
//! control flow, meters included; `checksum.rs` the calculations; `clock.rs`
//! the switch's time (real or virtual); `tm/` the traffic manager between
//! ingress and egress; `pre.rs` multicast groups and clone sessions;
//! `cpu.rs` packet-ins and digests for the controller; `links.rs` the
//! propagation delay of each port's link; `monitor/` the queue monitor's
//! records, grid and ring; `ports/` the
//! AF_PACKET and in-memory ports; `switch/` ties them into the v1model
//! flow; `control_plane.rs` the table and value set API; `externs.rs` registers, counters
//! and meters; `python.rs` the PyO3 class.

pub mod checksum;
pub mod clock;
pub mod control_plane;
pub mod cpu;
pub mod externs;
pub mod links;
pub mod monitor;
pub mod packet;
pub mod pipeline;
pub mod ports;
pub mod pre;
pub mod program;
mod python;
pub mod switch;
pub mod tm;

use pyo3::prelude::*;

#[pymodule]
fn _dataplane(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<python::Dataplane>()?;
    Ok(())
}

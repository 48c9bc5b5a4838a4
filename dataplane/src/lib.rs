//! The packet path of p4aqm's software switch: executes BMv2 JSON programs
//! (v1model as p4c-bm2-ss emits them) and exposes them to Python as
//! `p4aqm.switch._dataplane.Dataplane`.
//!
//! Layout: `error.rs` the API's errors; `sync.rs` how locks are taken;
//! `clock.rs` the switch's time (real or virtual); `lateness.rs` the
//! histogram of how late packets reach their ports; `program/` loads and
//! resolves the JSON; `packet/` holds the PHV and deparser; `pipeline/` runs
//! the parser, expressions, actions, tables and control flow, meters and
//! checksums included; `tm/` the traffic manager between ingress and
//! egress; `pre.rs` multicast groups and clone sessions; `cpu.rs`
//! packet-ins and digests for the controller; `links.rs` the propagation
//! delay of each port's link; `ports/` the AF_PACKET and in-memory ports;
//! `monitor/` the queue monitor's records, grid and ring; `switch/` ties
//! them into the v1model flow and holds the control plane's API;
//! `python.rs` the PyO3 class.
//!
//! Each module imports only from the layers below it (tests/layers.rs):
//! error, sync, clock, lateness; program; packet; pipeline; tm, links, ports, cpu,
//! pre; monitor; switch; python.

pub mod clock;
pub mod cpu;
pub mod error;
pub mod lateness;
pub mod links;
pub mod monitor;
pub mod packet;
pub mod pipeline;
pub mod ports;
pub mod pre;
pub mod program;
mod python;
pub mod switch;
pub mod sync;
pub mod tm;

use pyo3::prelude::*;

#[pymodule]
fn _dataplane(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<python::Dataplane>()?;
    Ok(())
}

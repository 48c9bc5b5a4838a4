//! The PyO3 class `Dataplane`: the API documented in docs/ARCHITECTURE.md.
//! Blocking work runs with the GIL released.

use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyTuple};

use crate::error::ApiError;
use crate::pipeline::meter::MeterConfig;
use crate::pre::CloneSession;
use crate::switch::{ApiKey, MonitorRequest, Options, QueueSettings, Switch};
use crate::tm::Rate;

impl From<ApiError> for PyErr {
    fn from(e: ApiError) -> PyErr {
        match e {
            ApiError::NotFound(m) => PyKeyError::new_err(m),
            ApiError::Invalid(m) => PyValueError::new_err(m),
        }
    }
}

fn bytes_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.downcast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = obj.downcast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    Err(PyValueError::new_err(format!(
        "{what} must be bytes, got {}",
        obj.get_type().name()?
    )))
}

fn keys_arg(keys: &Bound<'_, PyAny>) -> PyResult<Vec<ApiKey>> {
    keys.try_iter()?
        .enumerate()
        .map(|(i, k)| {
            let k = k?;
            let t = k
                .downcast::<PyTuple>()
                .map_err(|_| PyValueError::new_err(format!("key {i} must be a tuple")))?;
            key_arg(t, i)
        })
        .collect()
}

fn key_arg(t: &Bound<'_, PyTuple>, i: usize) -> PyResult<ApiKey> {
    let what = format!("key {i}");
    let kind: String = t.get_item(0).and_then(|k| k.extract()).map_err(|_| {
        PyValueError::new_err(format!("{what}: first element must be the match kind"))
    })?;
    let need = |n: usize| -> PyResult<()> {
        if t.len() == n {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "{what}: a '{kind}' key has {n} elements, got {}",
                t.len()
            )))
        }
    };
    let b = |j: usize| -> PyResult<Vec<u8>> {
        bytes_arg(&t.get_item(j)?, &format!("{what} element {j}"))
    };
    Ok(match kind.as_str() {
        "exact" => {
            need(2)?;
            ApiKey::Exact(b(1)?)
        }
        "lpm" => {
            need(3)?;
            let len: u32 = t.get_item(2)?.extract().map_err(|_| {
                PyValueError::new_err(format!("{what}: prefix length must be a non-negative int"))
            })?;
            ApiKey::Lpm(b(1)?, len)
        }
        "ternary" => {
            need(3)?;
            ApiKey::Ternary(b(1)?, b(2)?)
        }
        "range" => {
            need(3)?;
            ApiKey::Range(b(1)?, b(2)?)
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "{what}: unknown match kind '{other}'"
            )))
        }
    })
}

fn data_arg(data: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
    data.try_iter()?
        .enumerate()
        .map(|(i, x)| bytes_arg(&x?, &format!("action_data[{i}]")))
        .collect()
}

fn timeout_arg(timeout_s: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(timeout_s.max(0.0))
        .map_err(|_| PyValueError::new_err(format!("timeout_s {timeout_s} is not a duration")))
}

fn meter_tuple(c: Option<MeterConfig>) -> Option<(u64, u64, u64, u64)> {
    c.map(|c| (c.cir, c.cburst, c.pir, c.pburst))
}

fn tuples<'py>(
    py: Python<'py>,
    rows: impl IntoIterator<Item = Vec<Bound<'py, PyAny>>>,
) -> PyResult<Bound<'py, PyList>> {
    let items = rows
        .into_iter()
        .map(|r| PyTuple::new(py, r))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// A software switch running one BMv2 JSON program.
#[pyclass(module = "p4aqm.switch._dataplane")]
pub struct Dataplane {
    sw: Arc<Switch>,
    cpu_port: Option<u32>,
}

#[pymethods]
impl Dataplane {
    /// `cpu_port`, if given, is a port of its own: packets the program
    /// sends there come out of `packet_in`, and `packet_out` (or `inject` on
    /// it) runs ingress with ingress_port = cpu_port. `virtual_time` stops
    /// the clock until `advance_time`; `priority_queues` queues per port.
    /// `atomic_actions=False` turns off BMv2's action-level register
    /// locking (each register primitive then locks only for itself), to
    /// show what it guarantees. `realtime_priority` (1..99) runs the event
    /// loop under SCHED_FIFO at that priority, so that its departures are
    /// not late behind other processes.
    #[new]
    #[pyo3(signature = (cpu_port=None, seed=0, virtual_time=false, priority_queues=1, atomic_actions=true, realtime_priority=None))]
    fn new(
        cpu_port: Option<u32>,
        seed: u64,
        virtual_time: bool,
        priority_queues: usize,
        atomic_actions: bool,
        realtime_priority: Option<i32>,
    ) -> PyResult<Self> {
        if !(1..=32).contains(&priority_queues) {
            return Err(PyValueError::new_err(format!(
                "priority_queues must be 1..32 (qid is 5 bits), got {priority_queues}"
            )));
        }
        if let Some(p) = realtime_priority.filter(|p| !(1..=99).contains(p)) {
            return Err(PyValueError::new_err(format!(
                "realtime_priority must be 1..99 (SCHED_FIFO), got {p}"
            )));
        }
        let sw = Arc::new(Switch::with_options(Options {
            seed,
            virtual_time,
            priority_queues,
            cpu_port,
            atomic_actions,
            realtime_priority,
        }));
        if let Some(p) = cpu_port {
            sw.add_memory_port(p)?;
        }
        Ok(Dataplane { sw, cpu_port })
    }

    /// The CPU port given at construction.
    #[getter]
    fn cpu_port(&self) -> Option<u32> {
        self.cpu_port
    }

    fn add_interface(&self, py: Python<'_>, port: u32, ifname: &str) -> PyResult<()> {
        py.allow_threads(|| self.sw.add_interface(port, ifname))
            .map_err(Into::into)
    }

    fn add_memory_port(&self, port: u32) -> PyResult<()> {
        self.sw.add_memory_port(port).map_err(Into::into)
    }

    fn load_pipeline(&self, py: Python<'_>, bmv2_json: &Bound<'_, PyAny>) -> PyResult<()> {
        let text = bytes_arg(bmv2_json, "bmv2_json")?;
        py.allow_threads(|| self.sw.load_pipeline(&text))
            .map_err(Into::into)
    }

    fn has_pipeline(&self) -> bool {
        self.sw.has_pipeline()
    }

    fn table_add(
        &self,
        py: Python<'_>,
        table: &str,
        keys: &Bound<'_, PyAny>,
        action: &str,
        action_data: &Bound<'_, PyAny>,
        priority: i64,
    ) -> PyResult<u64> {
        let keys = keys_arg(keys)?;
        let data = data_arg(action_data)?;
        py.allow_threads(|| self.sw.table_add(table, &keys, action, &data, priority))
            .map_err(Into::into)
    }

    /// An entry of a table with an action profile: it points to a member, or
    /// to a group when `group` is true (handles from the profile_* methods).
    fn table_add_indirect(
        &self,
        py: Python<'_>,
        table: &str,
        keys: &Bound<'_, PyAny>,
        group: bool,
        target: u64,
        priority: i64,
    ) -> PyResult<u64> {
        let keys = keys_arg(keys)?;
        py.allow_threads(|| {
            self.sw
                .table_add_indirect(table, &keys, group, target, priority)
        })
        .map_err(Into::into)
    }

    fn table_modify_indirect(
        &self,
        py: Python<'_>,
        table: &str,
        handle: u64,
        group: bool,
        target: u64,
    ) -> PyResult<()> {
        py.allow_threads(|| self.sw.table_modify_indirect(table, handle, group, target))
            .map_err(Into::into)
    }

    fn profile_member_add(
        &self,
        py: Python<'_>,
        profile: &str,
        action: &str,
        action_data: &Bound<'_, PyAny>,
    ) -> PyResult<u64> {
        let data = data_arg(action_data)?;
        py.allow_threads(|| self.sw.profile_member_add(profile, action, &data))
            .map_err(Into::into)
    }

    fn profile_member_modify(
        &self,
        py: Python<'_>,
        profile: &str,
        member: u64,
        action: &str,
        action_data: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let data = data_arg(action_data)?;
        py.allow_threads(|| {
            self.sw
                .profile_member_modify(profile, member, action, &data)
        })
        .map_err(Into::into)
    }

    fn profile_member_delete(&self, py: Python<'_>, profile: &str, member: u64) -> PyResult<()> {
        py.allow_threads(|| self.sw.profile_member_delete(profile, member))
            .map_err(Into::into)
    }

    fn profile_group_add(&self, py: Python<'_>, profile: &str) -> PyResult<u64> {
        py.allow_threads(|| self.sw.profile_group_add(profile))
            .map_err(Into::into)
    }

    /// Sets a group's members: (member handle, weight) pairs.
    fn profile_group_set(
        &self,
        py: Python<'_>,
        profile: &str,
        group: u64,
        members: Vec<(u64, u32)>,
    ) -> PyResult<()> {
        py.allow_threads(|| self.sw.profile_group_set(profile, group, &members))
            .map_err(Into::into)
    }

    fn profile_group_delete(&self, py: Python<'_>, profile: &str, group: u64) -> PyResult<()> {
        py.allow_threads(|| self.sw.profile_group_delete(profile, group))
            .map_err(Into::into)
    }

    fn table_modify(
        &self,
        py: Python<'_>,
        table: &str,
        handle: u64,
        action: &str,
        action_data: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let data = data_arg(action_data)?;
        py.allow_threads(|| self.sw.table_modify(table, handle, action, &data))
            .map_err(Into::into)
    }

    fn table_delete(&self, py: Python<'_>, table: &str, handle: u64) -> PyResult<()> {
        py.allow_threads(|| self.sw.table_delete(table, handle))
            .map_err(Into::into)
    }

    fn table_set_default(
        &self,
        py: Python<'_>,
        table: &str,
        action: &str,
        action_data: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let data = data_arg(action_data)?;
        py.allow_threads(|| self.sw.table_set_default(table, action, &data))
            .map_err(Into::into)
    }

    fn table_clear(&self, py: Python<'_>, table: &str) -> PyResult<()> {
        py.allow_threads(|| self.sw.table_clear(table))
            .map_err(Into::into)
    }

    /// Replaces every member of a parser value set; each member is the
    /// select key's parts concatenated at their widths, as big-endian bytes.
    fn value_set_set(
        &self,
        py: Python<'_>,
        name: &str,
        members: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let members = members
            .try_iter()?
            .enumerate()
            .map(|(i, m)| bytes_arg(&m?, &format!("member {i}")))
            .collect::<PyResult<Vec<_>>>()?;
        py.allow_threads(|| self.sw.value_set_set(name, &members))
            .map_err(Into::into)
    }

    fn value_set_get<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
        let members = self.sw.value_set_get(name)?;
        PyList::new(py, members.iter().map(|m| PyBytes::new(py, m)))
    }

    fn start(&self, py: Python<'_>) -> PyResult<()> {
        py.allow_threads(|| self.sw.start()).map_err(Into::into)
    }

    fn stop(&self, py: Python<'_>) {
        py.allow_threads(|| self.sw.stop());
    }

    fn inject(&self, py: Python<'_>, port: u32, packet: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = bytes_arg(packet, "packet")?;
        py.allow_threads(|| self.sw.inject(port, &data))
            .map_err(Into::into)
    }

    fn take_output<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = self.sw.take_output();
        let rows = out
            .iter()
            .map(|(p, d)| {
                Ok(vec![
                    p.into_pyobject(py)?.into_any(),
                    PyBytes::new(py, d).into_any(),
                ])
            })
            .collect::<PyResult<Vec<_>>>()?;
        tuples(py, rows)
    }

    /// Like take_output, with each packet's departure time in ns since start.
    fn take_output_timed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = self.sw.take_output_timed();
        let rows = out
            .iter()
            .map(|(p, d, ns)| {
                Ok(vec![
                    p.into_pyobject(py)?.into_any(),
                    PyBytes::new(py, d).into_any(),
                    ns.into_pyobject(py)?.into_any(),
                ])
            })
            .collect::<PyResult<Vec<_>>>()?;
        tuples(py, rows)
    }

    fn now_us(&self) -> u64 {
        self.sw.now_us()
    }

    /// How late packets reached their ports since start, against their
    /// scheduled departure or landing: {"departures", "p50_ns", "p99_ns",
    /// "max_ns", "buckets"}, the buckets as (bound_ns, packets) for each
    /// bucket holding any (a bucket holds lateness up to its bound, within
    /// 1.6 %), so two snapshots subtract into a window's.
    fn lateness<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.sw.lateness();
        let d = PyDict::new(py);
        d.set_item("departures", s.departures)?;
        d.set_item("p50_ns", s.quantile_ns(0.5))?;
        d.set_item("p99_ns", s.quantile_ns(0.99))?;
        d.set_item("max_ns", s.max_ns)?;
        d.set_item("buckets", s.nonzero_buckets())?;
        Ok(d)
    }

    fn advance_time(&self, py: Python<'_>, us: u64) -> PyResult<()> {
        py.allow_threads(|| self.sw.advance_time(us))
            .map_err(Into::into)
    }

    /// Configures one queue of a port (or all, queue=None). The rate is
    /// rate_pps or rate_bps; neither means unlimited. Depths, the queue's
    /// capacity: depth_pkts and depth_bytes given replace its limits (either
    /// or both); neither given leaves them as they are (64 packets by
    /// default).
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (port, queue=None, *, rate_pps=None, rate_bps=None, depth_pkts=None, depth_bytes=None))]
    fn set_queue(
        &self,
        py: Python<'_>,
        port: u32,
        queue: Option<usize>,
        rate_pps: Option<f64>,
        rate_bps: Option<u64>,
        depth_pkts: Option<usize>,
        depth_bytes: Option<usize>,
    ) -> PyResult<()> {
        let rate = match (rate_pps, rate_bps) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err("give rate_pps or rate_bps, not both"))
            }
            (Some(r), None) if !(r.is_finite() && r > 0.0) => {
                return Err(PyValueError::new_err(format!(
                    "rate_pps must be positive, got {r}"
                )))
            }
            (Some(r), None) => Rate::Pps(r),
            (None, Some(0)) => return Err(PyValueError::new_err("rate_bps must be positive")),
            (None, Some(r)) => Rate::Bps(r),
            (None, None) => Rate::Unlimited,
        };
        let s = QueueSettings {
            rate,
            depth_pkts,
            depth_bytes,
        };
        py.allow_threads(|| self.sw.set_queue(port, queue, s))
            .map_err(Into::into)
    }

    /// Link emulation: propagation delay each way and a line rate the
    /// port's queues share. None leaves a setting; 0 removes it.
    #[pyo3(signature = (port, *, delay_us=None, rate_bps=None))]
    fn set_link(
        &self,
        py: Python<'_>,
        port: u32,
        delay_us: Option<u64>,
        rate_bps: Option<u64>,
    ) -> PyResult<()> {
        py.allow_threads(|| self.sw.set_link(port, delay_us, rate_bps))
            .map_err(Into::into)
    }

    /// rx_packets, tx_packets, tm_drops, rx_drops, tx_drops, and per queue
    /// N of the port q{N}_qdepth_pkts (the packets it holds now) and
    /// q{N}_drops.
    fn port_stats<'py>(&self, py: Python<'py>, port: u32) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.sw.port_stats(port) {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// One queue's depth and register cells (`(name, index)` pairs) read
    /// at one instant: {"qdepth_pkts", "qdepth_bytes", "registers", "now_us"}.
    #[pyo3(signature = (port, queue=0, registers=Vec::new()))]
    fn queue_snapshot<'py>(
        &self,
        py: Python<'py>,
        port: u32,
        queue: usize,
        registers: Vec<(String, u64)>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let s = py.allow_threads(|| self.sw.queue_snapshot(port, queue, &registers))?;
        let d = PyDict::new(py);
        d.set_item("qdepth_pkts", s.qdepth_pkts)?;
        d.set_item("qdepth_bytes", s.qdepth_bytes)?;
        d.set_item("registers", PyList::new(py, s.registers)?)?;
        d.set_item("now_us", s.now_us)?;
        Ok(d)
    }

    /// Starts (or replaces) the queue monitor: every `period_us` (1000 and
    /// up) one record of little-endian u64s for `queues` ((port, queue)
    /// pairs), `registers` and `counters` ((name, index) pairs). Returns the
    /// record's field names, in order.
    #[pyo3(signature = (period_us, queues, registers=Vec::new(), counters=Vec::new(), capacity=65536))]
    fn monitor_start(
        &self,
        py: Python<'_>,
        period_us: i64,
        queues: Vec<(i64, i64)>,
        registers: Vec<(String, i64)>,
        counters: Vec<(String, i64)>,
        capacity: i64,
    ) -> PyResult<Vec<String>> {
        let req = MonitorRequest {
            period_us,
            queues,
            registers,
            counters,
            capacity,
        };
        py.allow_threads(|| self.sw.monitor_start(&req))
            .map_err(Into::into)
    }

    /// Removes and returns the oldest records (all if max_records is 0),
    /// packed back to back.
    #[pyo3(signature = (max_records=0))]
    fn monitor_take<'py>(&self, py: Python<'py>, max_records: usize) -> Bound<'py, PyBytes> {
        let data = py.allow_threads(|| self.sw.monitor_take(max_records));
        PyBytes::new(py, &data)
    }

    /// {"records", "overruns", "missed", "capacity"}.
    fn monitor_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.sw.monitor_stats();
        let d = PyDict::new(py);
        d.set_item("records", s.records)?;
        d.set_item("overruns", s.overruns)?;
        d.set_item("missed", s.missed)?;
        d.set_item("capacity", s.capacity)?;
        Ok(d)
    }

    /// Stops the monitor (idempotent); its records stay until taken.
    fn monitor_stop(&self, py: Python<'_>) {
        py.allow_threads(|| self.sw.monitor_stop());
    }

    fn register_read<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        index: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let v = self.sw.register_read(name, index)?;
        Ok(PyBytes::new(py, &v))
    }

    fn register_write(&self, name: &str, index: u64, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = bytes_arg(value, "value")?;
        self.sw.register_write(name, index, &v).map_err(Into::into)
    }

    fn counter_read(&self, name: &str, index: u64) -> PyResult<(u64, u64)> {
        self.sw.counter_read(name, index).map_err(Into::into)
    }

    fn counter_write(
        &self,
        name: &str,
        index: u64,
        byte_count: u64,
        packet_count: u64,
    ) -> PyResult<()> {
        self.sw
            .counter_write(name, index, byte_count, packet_count)
            .map_err(Into::into)
    }

    fn table_entry_idle_ns(&self, table: &str, handle: u64) -> PyResult<u64> {
        self.sw
            .table_entry_idle_ns(table, handle)
            .map_err(Into::into)
    }

    fn direct_counter_read(&self, table: &str, handle: u64) -> PyResult<(u64, u64)> {
        self.sw
            .direct_counter_read(table, handle)
            .map_err(Into::into)
    }

    fn direct_counter_write(
        &self,
        table: &str,
        handle: u64,
        byte_count: u64,
        packet_count: u64,
    ) -> PyResult<()> {
        self.sw
            .direct_counter_write(table, handle, byte_count, packet_count)
            .map_err(Into::into)
    }

    #[allow(clippy::too_many_arguments)]
    fn meter_set(
        &self,
        name: &str,
        index: u64,
        cir: u64,
        cburst: u64,
        pir: u64,
        pburst: u64,
    ) -> PyResult<()> {
        self.sw
            .meter_set(name, index, cir, cburst, pir, pburst)
            .map_err(Into::into)
    }

    fn meter_reset(&self, name: &str, index: u64) -> PyResult<()> {
        self.sw.meter_reset(name, index).map_err(Into::into)
    }

    fn meter_get(&self, name: &str, index: u64) -> PyResult<Option<(u64, u64, u64, u64)>> {
        Ok(meter_tuple(self.sw.meter_get(name, index)?))
    }

    #[allow(clippy::too_many_arguments)]
    fn direct_meter_set(
        &self,
        table: &str,
        handle: u64,
        cir: u64,
        cburst: u64,
        pir: u64,
        pburst: u64,
    ) -> PyResult<()> {
        self.sw
            .direct_meter_set(table, handle, cir, cburst, pir, pburst)
            .map_err(Into::into)
    }

    fn direct_meter_reset(&self, table: &str, handle: u64) -> PyResult<()> {
        self.sw
            .direct_meter_reset(table, handle)
            .map_err(Into::into)
    }

    fn direct_meter_get(&self, table: &str, handle: u64) -> PyResult<Option<(u64, u64, u64, u64)>> {
        Ok(meter_tuple(self.sw.direct_meter_get(table, handle)?))
    }

    fn mc_group_set(&self, group_id: u32, replicas: Vec<(u32, u32)>) -> PyResult<()> {
        self.sw.mc_group_set(group_id, replicas).map_err(Into::into)
    }

    fn mc_group_delete(&self, group_id: u32) -> PyResult<()> {
        self.sw.mc_group_delete(group_id).map_err(Into::into)
    }

    #[pyo3(signature = (session_id, replicas, class_of_service=0, packet_length_bytes=0))]
    fn clone_session_set(
        &self,
        session_id: u32,
        replicas: Vec<(u32, u32)>,
        class_of_service: u32,
        packet_length_bytes: u32,
    ) -> PyResult<()> {
        self.sw
            .clone_session_set(
                session_id,
                CloneSession {
                    replicas,
                    class_of_service,
                    packet_length_bytes,
                },
            )
            .map_err(Into::into)
    }

    fn clone_session_delete(&self, session_id: u32) -> PyResult<()> {
        self.sw.clone_session_delete(session_id).map_err(Into::into)
    }

    fn packet_out(&self, py: Python<'_>, packet: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = bytes_arg(packet, "packet")?;
        py.allow_threads(|| self.sw.packet_out(&data))
            .map_err(Into::into)
    }

    /// Packets the program sent to the CPU port, waiting up to timeout_s
    /// for the first one (GIL released).
    fn packet_in<'py>(&self, py: Python<'py>, timeout_s: f64) -> PyResult<Bound<'py, PyList>> {
        let t = timeout_arg(timeout_s)?;
        let got = py.allow_threads(|| self.sw.packet_ins.take(t));
        let items: Vec<_> = got.iter().map(|d| PyBytes::new(py, d)).collect();
        PyList::new(py, items)
    }

    /// Makes the packet_in and digests calls waiting now return at once
    /// (with what they have), so that their pollers stop without waiting
    /// out their timeouts.
    fn interrupt_waits(&self) {
        self.sw.packet_ins.interrupt();
        self.sw.digests.interrupt();
    }

    /// Digests as (learn list name, field values), waiting up to timeout_s
    /// for the first one (GIL released).
    fn digests<'py>(&self, py: Python<'py>, timeout_s: f64) -> PyResult<Bound<'py, PyList>> {
        let t = timeout_arg(timeout_s)?;
        let got = py.allow_threads(|| self.sw.digests.take(t));
        let rows = got
            .iter()
            .map(|(name, values)| {
                let vs: Vec<_> = values.iter().map(|v| PyBytes::new(py, v)).collect();
                Ok(vec![
                    name.into_pyobject(py)?.into_any(),
                    PyList::new(py, vs)?.into_any(),
                ])
            })
            .collect::<PyResult<Vec<_>>>()?;
        tuples(py, rows)
    }

    fn set_trace(&self, on: bool) {
        self.sw.set_trace(on);
    }
}

impl Drop for Dataplane {
    fn drop(&mut self) {
        self.sw.stop();
    }
}

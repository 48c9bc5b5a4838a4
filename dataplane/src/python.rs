//! The PyO3 class `Dataplane`: the API documented in docs/ARCHITECTURE.md.
//! Blocking work runs with the GIL released.

use std::sync::Arc;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyTuple};

use crate::control_plane::ApiKey;
use crate::switch::{ApiError, Switch};

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

/// A software switch running one BMv2 JSON program.
#[pyclass(module = "p4switch._dataplane")]
pub struct Dataplane {
    sw: Arc<Switch>,
    cpu_port: Option<u32>,
}

#[pymethods]
impl Dataplane {
    /// `cpu_port`, if given, is a memory port: packets the program sends
    /// there (packet-in) come out of `take_output`, and `inject` on it is
    /// packet-out.
    #[new]
    #[pyo3(signature = (cpu_port=None, seed=0))]
    fn new(cpu_port: Option<u32>, seed: u64) -> PyResult<Self> {
        let sw = Arc::new(Switch::new(seed));
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
        let keys = keys
            .try_iter()?
            .enumerate()
            .map(|(i, k)| {
                let k = k?;
                let t = k
                    .downcast::<PyTuple>()
                    .map_err(|_| PyValueError::new_err(format!("key {i} must be a tuple")))?;
                key_arg(t, i)
            })
            .collect::<PyResult<Vec<_>>>()?;
        let data = data_arg(action_data)?;
        py.allow_threads(|| self.sw.table_add(table, &keys, action, &data, priority))
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
        let items = out
            .iter()
            .map(|(p, d)| {
                PyTuple::new(
                    py,
                    [
                        p.into_pyobject(py)?.into_any(),
                        PyBytes::new(py, d).into_any(),
                    ],
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
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

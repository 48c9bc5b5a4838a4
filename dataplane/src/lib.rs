use pyo3::prelude::*;

#[pymodule]
fn _dataplane(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}

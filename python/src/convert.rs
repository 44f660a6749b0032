//! Python values into the libraries' types, in one place: keyword strings are parsed by the
//! library's own `FromStr` (so Python accepts exactly the spellings the command line does),
//! and results come back as plain Python values. `Wrap<T>` carries a library type through
//! pyo3's extraction, as polars' binding does; a bad value raises `ValueError` with the
//! library's message, and pyo3 adds a note naming the argument.

use crate::{ldpc_err, value_err};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use pyo3::IntoPyObjectExt;

/// A library value extracted from a Python argument.
pub struct Wrap<T>(pub T);

/// `Wrap<T>` from a Python `str`, through `T`'s `FromStr` with `$err` turning its error
/// into a Python exception.
macro_rules! from_str {
    ($err:path: $($t:ty),* $(,)?) => {$(
        impl<'a, 'py> FromPyObject<'a, 'py> for Wrap<$t> {
            type Error = PyErr;
            fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
                let text = obj.cast::<PyString>()?;
                text.to_cow()?.parse::<$t>().map(Wrap).map_err($err)
            }
        }
    )*};
}

from_str!(ldpc_err:
    sigpu_ldpc::Algorithm,
    sigpu_ldpc::Precision,
    sigpu_ldpc::Schedule,
    sigpu_ldpc::channel::Modulation,
    sigpu_ldpc::channel::Demapper,
    sigpu_ldpc::interleave::InterleaverChoice,
    sigpu_ldpc::sim::sweep::SnrAxis,
);

from_str!(value_err:
    sigpu_lns::Format,
    sigpu_lns::Method,
    sigpu_approx::cpu::CpuFunction,
);

/// SNR points in dB: `"START:STOP:STEP"` or a comma list (parsed as the command line parses
/// `--snr`), or a sequence of numbers (checked alike).
pub struct SnrPoints(pub Vec<f64>);

impl<'a, 'py> FromPyObject<'a, 'py> for SnrPoints {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        use sigpu_ldpc::sim::sweep::{check_points, parse_points};
        if let Ok(text) = obj.cast::<PyString>() {
            let text = text.to_cow()?;
            return parse_points(&text).map(SnrPoints).map_err(ldpc_err);
        }
        let points: Vec<f64> = obj.extract()?;
        check_points(&points).map_err(ldpc_err)?;
        Ok(SnrPoints(points))
    }
}

/// A serialisable library value (a result record) as Python values: objects become dicts,
/// arrays lists, numbers `int` or `float`.
pub fn to_python<'py>(
    py: Python<'py>,
    value: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(value).map_err(value_err)?;
    tree(py, &value)
}

fn tree<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    match value {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_bound_py_any(py),
            (None, Some(i)) => i.into_bound_py_any(py),
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py),
        },
        Value::String(s) => s.into_bound_py_any(py),
        Value::Array(items) => {
            let items = items
                .iter()
                .map(|v| tree(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any())
        }
        Value::Object(fields) => {
            let dict = PyDict::new(py);
            for (key, v) in fields {
                dict.set_item(key, tree(py, v)?)?;
            }
            Ok(dict.into_any())
        }
    }
}

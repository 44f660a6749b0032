//! The one conversion layer between Python arguments and the libraries' option types. A
//! [`Wrap<T>`] is extracted from a Python `str` through the library's own `FromStr`, so Python
//! and the CLI accept the same spellings and a bad one is a `ValueError` with the library's
//! message (polars' `Wrap<T>` is the model).

use pyo3::prelude::*;
use pyo3::types::PyString;

/// A library option type as a pyo3 argument: `fn f(format: Wrap<Format>)` takes `"lns32"`.
pub struct Wrap<T>(pub T);

/// `FromPyObject` for `Wrap<T>` of each listed type, through `T: FromStr`.
macro_rules! from_str {
    ($($t:ty),* $(,)?) => {$(
        impl<'a, 'py> FromPyObject<'a, 'py> for Wrap<$t> {
            type Error = PyErr;

            fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
                let text = obj.cast::<PyString>()?;
                let text = PyStringMethods::to_cow(&*text)?;
                text.parse::<$t>().map(Wrap).map_err(crate::value_err)
            }
        }
    )*};
}

from_str!(
    sigpu_lns::Format,
    sigpu_lns::Method,
    sigpu_approx::cpu::CpuFunction,
);

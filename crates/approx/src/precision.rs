//! The element types the catalog's functions work on.

use serde::Serialize;

/// The element type a function works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// IEEE binary32 (`float`).
    F32,
    /// IEEE binary64 (`double`).
    F64,
    /// IEEE binary16, held as raw bits in an `unsigned short`.
    F16,
    /// bfloat16, held as raw bits in an `unsigned short`.
    Bf16,
}

impl Precision {
    /// The CUDA type a value of this precision is held in.
    pub fn cuda_type(self) -> &'static str {
        match self {
            Precision::F32 => "float",
            Precision::F64 => "double",
            Precision::F16 | Precision::Bf16 => "unsigned short",
        }
    }

    /// Bytes per element on the device.
    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
            Precision::F16 | Precision::Bf16 => 2,
        }
    }
}

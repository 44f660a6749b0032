//! Typed device buffers and scalars for kernels whose element type is chosen at run time (a
//! catalog function's precision, an app's inputs), pushed onto the runtime's typed launch.

use crate::catalog::Precision;
use crate::numeric::Values;
use sigpu_runtime::cuda::{DeviceBuffer, Gpu, Launch, Result};

/// A device buffer of one of the element types the catalog and the apps use.
pub enum Buf {
    /// `float` elements.
    F32(DeviceBuffer<f32>),
    /// `double` elements.
    F64(DeviceBuffer<f64>),
    /// f16 or bf16 elements as raw bits (`unsigned short`).
    U16(DeviceBuffer<u16>),
}

impl Buf {
    /// Copies `v` to the device in its own representation.
    pub fn upload(gpu: &Gpu, v: &Values) -> Result<Buf> {
        Ok(match v {
            Values::F32(v) => Buf::F32(gpu.upload(v)?),
            Values::F64(v) => Buf::F64(gpu.upload(v)?),
            Values::Bits16(_, v) => Buf::U16(gpu.upload(v)?),
        })
    }

    /// A buffer of `n` elements of precision `p`, every byte 0xFF (NaN in each precision), so an
    /// element a kernel does not write cannot pass a comparison.
    pub fn poisoned(gpu: &Gpu, p: Precision, n: usize) -> Result<Buf> {
        Ok(match p {
            Precision::F32 => Buf::F32(gpu.alloc_poisoned(n)?),
            Precision::F64 => Buf::F64(gpu.alloc_poisoned(n)?),
            _ => Buf::U16(gpu.alloc_poisoned(n)?),
        })
    }

    /// Copies the buffer back; `p` says which format 16-bit elements are in.
    pub fn download(&self, gpu: &Gpu, p: Precision) -> Result<Values> {
        Ok(match self {
            Buf::F32(b) => Values::F32(gpu.download(b)?),
            Buf::F64(b) => Values::F64(gpu.download(b)?),
            Buf::U16(b) => Values::Bits16(p, gpu.download(b)?),
        })
    }

    /// Refills the buffer with 0xFF bytes (NaN), as before a checked run.
    pub fn poison(&mut self, gpu: &Gpu) -> Result<()> {
        match self {
            Buf::F32(b) => gpu.poison(b),
            Buf::F64(b) => gpu.poison(b),
            Buf::U16(b) => gpu.poison(b),
        }
    }

    /// Appends the buffer as an argument the kernel reads (`const T*`).
    pub fn push<'a>(&'a self, l: &mut Launch<'a>) {
        match self {
            Buf::F32(b) => l.buf(b),
            Buf::F64(b) => l.buf(b),
            Buf::U16(b) => l.buf(b),
        };
    }

    /// Appends the buffer as an argument the kernel writes (`T*`).
    pub fn push_mut<'a>(&'a mut self, l: &mut Launch<'a>) {
        match self {
            Buf::F32(b) => l.buf_mut(b),
            Buf::F64(b) => l.buf_mut(b),
            Buf::U16(b) => l.buf_mut(b),
        };
    }
}

/// A scalar kernel argument.
pub enum Scalar {
    /// A `float` argument.
    F32(f32),
    /// A `double` argument.
    F64(f64),
    /// An f16 or bf16 argument as raw bits (`unsigned short`).
    U16(u16),
    /// An `int` argument (sizes, counts).
    I32(i32),
}

impl Scalar {
    /// `v` in the type of `p`.
    pub fn of(p: Precision, v: f64) -> Scalar {
        match p {
            Precision::F32 => Scalar::F32(v as f32),
            Precision::F64 => Scalar::F64(v),
            Precision::F16 => Scalar::U16(crate::numeric::f64_to_f16(v)),
            Precision::Bf16 => Scalar::U16(crate::numeric::f64_to_bf16(v)),
        }
    }

    /// Appends the value as an argument.
    pub fn push<'a>(&'a self, l: &mut Launch<'a>) {
        match self {
            Scalar::F32(v) => l.arg(v),
            Scalar::F64(v) => l.arg(v),
            Scalar::U16(v) => l.arg(v),
            Scalar::I32(v) => l.arg(v),
        };
    }
}

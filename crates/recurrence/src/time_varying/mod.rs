//! Time-varying all-pole filters (LPC synthesis, torchlpc's `sample_wise_lpc`):
//!
//! ```text
//! y[t] = x[t] − Σ_{k=1..p} A[t, k−1] · y[t − k],    y[−k] = zi[k−1],
//! ```
//!
//! with coefficients per sample, for `channels` channels (x: channels × n, A: channels × n × p,
//! zi: channels × p, all row-major), forward and backward, on the CPU and the GPU.
//!
//! One front door: [`plan_allpole`] takes an [`AllPoleSpec`] (order, channels, whether zi is
//! given; the element type is the call's `T`, f32 or f64), [`AllPoleOptions`] and a `Target`,
//! and returns one [`AllPole`] whose [`forward`](AllPole::forward) and
//! [`backward`](AllPole::backward) run on host slices, and on a GPU target also on device
//! views ([`AllPole::forward_device`], [`AllPole::backward_device`]).
//!
//! **Backward.** For a loss L with g = ∂L/∂y, the adjoint u = ∂L/∂x is the time-reversed
//! all-pole filter of g with the shifted coefficients,
//! u[t] = g[t] − Σ_k A[t+k+1, k]·u[t+k+1]; the engines run it in transposed form (pending
//! partial sums as the state, A read row by row), whose state after t = 0 is ∂L/∂zi
//! (∂L/∂zi[j] = −Σ_{t ≤ p−1−j} A[t, t+j]·u[t]); and ∂L/∂A[t, k] = −u[t]·y[t−k−1] (y before the
//! start from zi). `reference` holds the direct formulas in double-double; tests hold both
//! engines to it and to finite differences.
//!
//! **Accuracy contract.** Every step computes in f64 — f32 data included — and each output is
//! rounded once to the data's type, so for f32 the error is the output's rounding plus f64
//! error amplified by the filter (tested: within 4× the error of the serial loop in f32, and
//! within a few ulp of max|y| of the f64 result); for f64 the CPU engine is the serial loop
//! itself, bit for bit (no FMA, terms k = 1 … p). The GPU kernel runs chunks of the time axis
//! ([`chunked`] is its CPU twin) and adds the carry's f64 roundings through each chunk's
//! transition matrix, whose unit-state responses can dwarf the output: far below f32's
//! rounding (f32 data keeps the contract on the GPU), but 40× and more the f64 serial loop's
//! error with order-16 poles to radius 0.999 — so f64 data planned for a GPU runs the CPU
//! engine (host data) or is refused with the way out (device data). No stability test: a
//! time-varying filter whose frozen filters are all stable can still grow, and no cheap test
//! decides it; its output grows as the arithmetic gives.
//!
//! **Input policy.** Host data: non-finite x, A or zi are refused naming the argument and the
//! index. Device data is not scanned (a NaN spreads to the outputs after it, as in the serial
//! loop).

pub mod cases;
mod checks;
pub mod chunked;
mod gpu;
pub mod reference;
mod serial;

pub use checks::checks;
pub(crate) use checks::merged;
pub use gpu::{GpuAllPole, SOURCE};

use crate::elem::{DType, Element};
use crate::error::FilterError;
use crate::filter::check_finite;
use sigpu_runtime::cuda::{DeviceSlice, DeviceSliceMut};
use sigpu_runtime::Target;

/// The largest order either engine takes (the GPU kernel keeps the state in registers).
pub const MAX_ORDER: usize = 64;

/// The GPU kernel's default chunk length: 256 steps per chunk keeps the serial carry to
/// n/256 steps per channel and the p extra recurrences per step on otherwise idle lanes.
pub const DEFAULT_CHUNK: usize = 256;

/// What is filtered: the order p (coefficients per sample), the channels of a call, and
/// whether calls give an initial state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllPoleSpec {
    /// Coefficients per sample (p ≥ 1).
    pub order: usize,
    /// Channels of every call (x holds channels × n values).
    pub channels: usize,
    /// Whether calls pass zi (channels × p); without it the state starts at zero.
    pub zi: bool,
}

/// How it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllPoleOptions {
    /// CPU threads (None: all the process may use).
    pub threads: Option<usize>,
    /// GPU chunk length (None: [`DEFAULT_CHUNK`]); 16 … 4096.
    pub chunk: Option<usize>,
}

/// What was planned: the engine and its arithmetic.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct AllPoleReport {
    /// `cpu-serial` (a channel per thread) or `gpu-chunked`.
    pub engine: &'static str,
    /// The arithmetic of every step: always `f64`.
    pub accumulate: &'static str,
    /// Steps per chunk on the GPU (None on the CPU).
    pub chunk: Option<usize>,
}

enum Engine<T: Element> {
    Cpu { threads: usize },
    Gpu(Box<GpuAllPole<T>>),
}

/// A planned time-varying all-pole filter: forward and backward on one target.
pub struct AllPole<T: Element> {
    spec: AllPoleSpec,
    engine: Engine<T>,
}

/// A forward call on device memory of the plan's GPU (on its target's stream).
pub struct DeviceForward<'a, T> {
    /// Input, channels × n.
    pub x: DeviceSlice<'a, T>,
    /// Coefficients, channels × n × order.
    pub a: DeviceSlice<'a, T>,
    /// Initial state (y[−1−i] = zi[i]), channels × order, or none (zero).
    pub zi: Option<DeviceSlice<'a, T>>,
    /// Output, channels × n.
    pub y: DeviceSliceMut<'a, T>,
    /// Room for the final state (zf[i] = y[n−1−i]), or none.
    pub zf: Option<DeviceSliceMut<'a, T>>,
    /// Channels of the call.
    pub channels: usize,
}

/// A backward call on device memory of the plan's GPU (on its target's stream).
pub struct DeviceBackward<'a, T> {
    /// The forward call's coefficients.
    pub a: DeviceSlice<'a, T>,
    /// The forward call's output.
    pub y: DeviceSlice<'a, T>,
    /// The forward call's initial state, or none.
    pub zi: Option<DeviceSlice<'a, T>>,
    /// ∂L/∂y, channels × n.
    pub grad_y: DeviceSlice<'a, T>,
    /// ∂L/∂x, channels × n.
    pub grad_x: DeviceSliceMut<'a, T>,
    /// ∂L/∂A, channels × n × order.
    pub grad_a: DeviceSliceMut<'a, T>,
    /// ∂L/∂zi, channels × order, or none.
    pub grad_zi: Option<DeviceSliceMut<'a, T>>,
    /// Channels of the call.
    pub channels: usize,
}

/// Plans a time-varying all-pole filter for `T` (f32 or f64) on `target`.
pub fn plan_allpole<T: Element>(
    spec: &AllPoleSpec,
    options: AllPoleOptions,
    target: &Target,
) -> Result<AllPole<T>, FilterError> {
    if !matches!(T::DTYPE, DType::F32 | DType::F64) {
        return Err(FilterError::Input(format!(
            "the all-pole filter takes f32 or f64 data, not {}",
            T::DTYPE
        )));
    }
    if spec.order == 0 || spec.order > MAX_ORDER {
        return Err(FilterError::Input(format!(
            "A: order {} (its last dimension) must be 1 … {MAX_ORDER}",
            spec.order
        )));
    }
    if spec.channels == 0 {
        return Err(FilterError::Input(
            "x: at least one channel is needed".into(),
        ));
    }
    let chunk = options.chunk.unwrap_or(DEFAULT_CHUNK);
    if !(16..=4096).contains(&chunk) {
        return Err(FilterError::Input(format!(
            "chunk {chunk}: the GPU chunk length must be 16 … 4096"
        )));
    }
    let engine = match target {
        Target::Cpu(cpu) => Engine::Cpu {
            threads: options
                .threads
                .or(cpu.threads)
                .unwrap_or_else(sigpu_runtime::host::threads),
        },
        // f64 data: the chunk carry's roundings (f64, scaled by the chunks' unit-state
        // responses) reach 40× and more the serial loop's error near the unit circle, so f64
        // runs the CPU engine, which is the serial loop.
        Target::Gpu(_) if T::DTYPE == DType::F64 => Engine::Cpu {
            threads: options.threads.unwrap_or_else(sigpu_runtime::host::threads),
        },
        Target::Gpu(g) => Engine::Gpu(Box::new(GpuAllPole::new(g, spec.order, chunk)?)),
    };
    Ok(AllPole {
        spec: *spec,
        engine,
    })
}

impl<T: Element> AllPole<T> {
    /// The spec it was planned for.
    pub fn spec(&self) -> &AllPoleSpec {
        &self.spec
    }

    /// The engine and its arithmetic.
    pub fn report(&self) -> AllPoleReport {
        match &self.engine {
            Engine::Cpu { .. } => AllPoleReport {
                engine: "cpu-serial",
                accumulate: "f64",
                chunk: None,
            },
            Engine::Gpu(g) => AllPoleReport {
                engine: "gpu-chunked",
                accumulate: "f64",
                chunk: Some(g.chunk()),
            },
        }
    }

    /// Samples per channel after checking the lengths of a call against the spec.
    fn samples(
        &self,
        x: usize,
        a: usize,
        zi: Option<usize>,
        what: &str,
    ) -> Result<usize, FilterError> {
        let AllPoleSpec {
            order, channels, ..
        } = self.spec;
        if !x.is_multiple_of(channels) {
            return Err(FilterError::Input(format!(
                "{what}: {x} values do not split into {channels} channels"
            )));
        }
        let n = x / channels;
        if a != x * order {
            return Err(FilterError::Input(format!(
                "A: {a} values, expected channels × n × order = {channels} × {n} × {order}"
            )));
        }
        if let Some(z) = zi {
            if !self.spec.zi {
                return Err(FilterError::Input(
                    "zi: given, but the filter was planned without".into(),
                ));
            }
            if z != channels * order {
                return Err(FilterError::Input(format!(
                    "zi: {z} values, expected channels × order = {channels} × {order}"
                )));
            }
        }
        Ok(n)
    }

    /// y from x (channels × n), A (channels × n × order) and zi (channels × order), with the
    /// final state into `zf` (zi's layout) when given. Host data on either target.
    pub fn forward(
        &self,
        x: &[T],
        a: &[T],
        zi: Option<&[T]>,
        y: &mut [T],
        zf: Option<&mut [T]>,
    ) -> Result<(), FilterError> {
        let n = self.samples(x.len(), a.len(), zi.map(<[T]>::len), "x")?;
        check_output(y.len(), x.len(), "y")?;
        if let Some(z) = &zf {
            check_output(z.len(), self.spec.channels * self.spec.order, "zf")?;
        }
        check_finite(x, "x")?;
        check_finite(a, "A")?;
        if let Some(z) = zi {
            check_finite(z, "zi")?;
        }
        if n == 0 {
            if let Some(out) = zf {
                fill_state(out, zi);
            }
            return Ok(());
        }
        let p = self.spec.order;
        match &self.engine {
            Engine::Cpu { threads } => {
                let zf_rows: Vec<Option<&mut [T]>> = match zf {
                    Some(z) => z.chunks_mut(p).map(Some).collect(),
                    None => (0..self.spec.channels).map(|_| None).collect(),
                };
                let items: Vec<_> = x
                    .chunks(n)
                    .zip(a.chunks(n * p))
                    .zip(y.chunks_mut(n))
                    .zip(zf_rows)
                    .enumerate()
                    .collect();
                serial::parallel_each(items, *threads, |(c, (((x, a), y), zf))| {
                    let zi = zi.map(|z| &z[c * p..(c + 1) * p]);
                    let end = serial::forward_channel(x, a, zi, y, p);
                    if let Some(out) = zf {
                        for (o, v) in out.iter_mut().zip(end) {
                            *o = T::from_f64(v);
                        }
                    }
                });
                Ok(())
            }
            Engine::Gpu(g) => g.forward_host(x, a, zi, y, zf, self.spec.channels, n),
        }
    }

    /// The gradients of a loss L given g = ∂L/∂y: ∂L/∂x into `grad_x`, ∂L/∂A into `grad_a`
    /// and, when given, ∂L/∂zi into `grad_zi`. `a`, `y` and `zi` are the forward call's.
    #[allow(clippy::too_many_arguments)]
    pub fn backward(
        &self,
        a: &[T],
        y: &[T],
        zi: Option<&[T]>,
        grad_y: &[T],
        grad_x: &mut [T],
        grad_a: &mut [T],
        grad_zi: Option<&mut [T]>,
    ) -> Result<(), FilterError> {
        let n = self.samples(grad_y.len(), a.len(), zi.map(<[T]>::len), "grad_y")?;
        check_output(y.len(), grad_y.len(), "y")?;
        check_output(grad_x.len(), grad_y.len(), "grad_x")?;
        check_output(grad_a.len(), a.len(), "grad_a")?;
        let p = self.spec.order;
        if let Some(z) = &grad_zi {
            check_output(z.len(), self.spec.channels * p, "grad_zi")?;
        }
        check_finite(grad_y, "grad_y")?;
        check_finite(a, "A")?;
        if n == 0 {
            if let Some(out) = grad_zi {
                out.fill(T::ZERO);
            }
            return Ok(());
        }
        match &self.engine {
            Engine::Cpu { threads } => {
                let gzi_rows: Vec<Option<&mut [T]>> = match grad_zi {
                    Some(z) => z.chunks_mut(p).map(Some).collect(),
                    None => (0..self.spec.channels).map(|_| None).collect(),
                };
                let items: Vec<_> = grad_y
                    .chunks(n)
                    .zip(a.chunks(n * p))
                    .zip(y.chunks(n))
                    .zip(grad_x.chunks_mut(n))
                    .zip(grad_a.chunks_mut(n * p))
                    .zip(gzi_rows)
                    .enumerate()
                    .collect();
                serial::parallel_each(items, *threads, |(c, (((((g, a), y), gx), ga), gzi))| {
                    let zi = zi.map(|z| &z[c * p..(c + 1) * p]);
                    serial::backward_channel(a, y, zi, g, gx, ga, gzi, p);
                });
                Ok(())
            }
            Engine::Gpu(gpu) => gpu.backward_host(
                a,
                y,
                zi,
                grad_y,
                grad_x,
                grad_a,
                grad_zi,
                self.spec.channels,
                n,
            ),
        }
    }

    fn gpu_engine(&self) -> Result<&GpuAllPole<T>, FilterError> {
        match &self.engine {
            Engine::Gpu(g) => Ok(g),
            Engine::Cpu { .. } if T::DTYPE == DType::F64 => Err(FilterError::Refused(
                "the time-varying all-pole filter runs f64 data on the CPU (its chunked GPU \
                 kernel's f64 carries lose more than 4x the serial loop's accuracy near the unit \
                 circle): pass host arrays (tensor.cpu()), or float32 data for the GPU"
                    .into(),
            )),
            Engine::Cpu { .. } => Err(FilterError::Input(
                "device data needs a filter planned for a GPU target".into(),
            )),
        }
    }

    /// [`forward`](Self::forward) on device views of the plan's GPU, enqueued on its stream.
    pub fn forward_device(&self, io: DeviceForward<'_, T>) -> Result<(), FilterError> {
        let g = self.gpu_engine()?;
        if io.channels != self.spec.channels {
            return Err(FilterError::Input(format!(
                "x: {} channels, the filter was planned for {}",
                io.channels, self.spec.channels
            )));
        }
        let n = self.samples(io.x.len(), io.a.len(), io.zi.as_ref().map(|z| z.len()), "x")?;
        check_output(io.y.len(), io.x.len(), "y")?;
        if let Some(z) = &io.zf {
            check_output(z.len(), self.spec.channels * self.spec.order, "zf")?;
        }
        if n == 0 {
            return Err(FilterError::Input(
                "x: empty channels (n = 0) on the device".into(),
            ));
        }
        g.forward(io, n)
    }

    /// [`backward`](Self::backward) on device views of the plan's GPU, enqueued on its stream.
    pub fn backward_device(&self, io: DeviceBackward<'_, T>) -> Result<(), FilterError> {
        let g = self.gpu_engine()?;
        if io.channels != self.spec.channels {
            return Err(FilterError::Input(format!(
                "grad_y: {} channels, the filter was planned for {}",
                io.channels, self.spec.channels
            )));
        }
        let n = self.samples(
            io.grad_y.len(),
            io.a.len(),
            io.zi.as_ref().map(|z| z.len()),
            "grad_y",
        )?;
        check_output(io.y.len(), io.grad_y.len(), "y")?;
        check_output(io.grad_x.len(), io.grad_y.len(), "grad_x")?;
        check_output(io.grad_a.len(), io.a.len(), "grad_a")?;
        if let Some(z) = &io.grad_zi {
            check_output(z.len(), self.spec.channels * self.spec.order, "grad_zi")?;
        }
        if n == 0 {
            return Err(FilterError::Input(
                "grad_y: empty channels (n = 0) on the device".into(),
            ));
        }
        g.backward(io, n)
    }
}

fn check_output(got: usize, want: usize, what: &str) -> Result<(), FilterError> {
    if got == want {
        Ok(())
    } else {
        Err(FilterError::Input(format!(
            "{what}: room for {got} values, {want} needed"
        )))
    }
}

/// The final state of empty channels: the initial one (or zero).
fn fill_state<T: Element>(out: &mut [T], zi: Option<&[T]>) {
    match zi {
        Some(z) => out.copy_from_slice(z),
        None => out.fill(T::ZERO),
    }
}

#[cfg(test)]
mod tests;

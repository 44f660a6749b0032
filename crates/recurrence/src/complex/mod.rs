//! Complex signals (complex64 / complex128, stored as interleaved `re, im` pairs of f32 /
//! f64) with real or complex coefficients: SciPy's `lfilter` / `sosfilt` on complex data.
//!
//! [`plan_complex`] is the front door for them, as [`crate::plan`] is for real data; it
//! decides once how the filter runs:
//! - **real coefficients** (every imaginary part zero): a real filter is linear and real, so
//!   it filters the real and imaginary parts independently. The filter is planned by the real
//!   planner for the same target — the same contract, method and engine as a real signal of
//!   the same element type — and runs on the two parts as two channels of one batch. Its
//!   bounds are the real filter's times √2 (the error of each part, as a complex modulus);
//! - **complex coefficients**: SciPy's serial loops in complex f64 (module `serial`), one
//!   channel per thread. For complex128 it is SciPy's own algorithm, operation for
//!   operation; complex64 signals are filtered in f64, with the coefficients as given, and
//!   rounded once (SciPy filters them in complex64), so the contract — within 4× SciPy's
//!   error at the same dtype — holds by construction. Stability is the step-down test on the
//!   complex denominator in f64 (module `stable`); unstable filters are refused unless
//!   `allow_unstable`. Host data runs on the CPU threads ([`ComplexFilter::run`]). On a GPU
//!   target the plan also compiles the same loops as a CUDA kernel (module `gpu`,
//!   `kernels/complex_serial.cu`: one channel per GPU thread, every operation a
//!   round-to-nearest intrinsic, so no fused multiply-add changes a bit), which filters
//!   device data in the caller's memory ([`ComplexFilter::run_device`]); its output equals
//!   the CPU engine's bit for bit, so it keeps the same contract and bound. For complex64 the
//!   plan also builds, where its bound keeps the contract, the chunked scan of module
//!   [`chunked`] (chunks from zero, the states carried across chunks by the transition
//!   matrix, chunks rerun): device calls with fewer than [`chunked::MAX_CHANNELS`] channels
//!   of at least [`chunked::MIN_LENGTH`] samples run it, and the report's bound is then the
//!   worse of the two engines'.
//!
//! The element type `T` is the part type: f32 for complex64, f64 for complex128. Layout:
//! `channels` channels one after another, each `2·n` values `re, im, re, im, …`; zi / zf hold
//! [`ComplexFilter::state_len`] complex values per channel, interleaved the same way (for
//! sections `[section][2]`, SciPy's order).
//!
//! ```
//! use sigpu_recurrence::complex::{plan_complex, ComplexSpec};
//! use sigpu_recurrence::FilterOptions;
//! use sigpu_runtime::Target;
//!
//! // y[n] = x[n] + 0.5j·y[n-1]: a complex pole.
//! let spec = ComplexSpec::ba(&[1.0], &[], &[1.0, 0.0], &[0.0, -0.5])?;
//! let f = plan_complex::<f64>(&spec, FilterOptions::default(), &Target::cpu())?;
//! let (y, _) = f.apply(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], None)?;
//! assert_eq!(y, [1.0, 0.0, 0.0, 0.5, -0.25, 0.0]);
//! assert_eq!(f.report().coefficients, "complex");
//! # Ok::<(), sigpu_recurrence::FilterError>(())
//! ```

mod c64;
pub mod cases;
mod checks;
pub mod chunked;
pub mod gpu;
mod serial;
pub mod signal;
mod spec;
mod stable;
mod zi;

pub use c64::C64;
pub use checks::checks;
pub use spec::ComplexSpec;
pub use zi::{lfilter_zi, sosfilt_zi};

use crate::elem::{DType, Element};
use crate::engine::{Batch, DeviceBatch, Timing};
use crate::error::FilterError;
use crate::filter::FilterOptions;
use crate::planner::{planner, Planned};
use gpu::GpuComplex;
use serial::{normalised, Serial};
use sigpu_runtime::Target;
use std::time::Instant;

/// How a complex filter runs and its predicted error, as the real [`crate::Report`] but for
/// complex data (errors as complex moduli).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ComplexReport {
    /// The method: the real filter's (`plr`, `sos`, `sections`, …) for real coefficients,
    /// `serial` or `sos-serial` for complex ones.
    pub method: String,
    /// `real` (the real filter on both parts) or `complex` (the complex serial engine).
    pub coefficients: &'static str,
    /// Bound on max|y − y_exact| / max|x| (moduli) for the method chosen, from a zero state.
    pub error_bound: f64,
    /// The same bound for SciPy's algorithm at the same dtype.
    pub reference_bound: f64,
}

/// A planned complex filter: the real filter on both parts, or the complex serial engine.
pub struct ComplexFilter<T: Element> {
    engine: Engine<T>,
    report: ComplexReport,
    threads: usize,
}

enum Engine<T: Element> {
    Parts(Planned<T>),
    /// The serial loops: on the CPU for host data, and on a GPU target also compiled as the
    /// kernel for device data.
    Serial(Serial, Option<Box<GpuComplex<T>>>),
}

/// Plans `spec` for complex data whose parts are `T` (f32: complex64, f64: complex128) on
/// `target`: real coefficients through [`crate::planner()`] (its contract and engines, cached
/// there), complex ones as SciPy's serial loop in complex f64 (see the module docs).
pub fn plan_complex<T: Element>(
    spec: &ComplexSpec,
    options: FilterOptions,
    target: &Target,
) -> Result<ComplexFilter<T>, FilterError> {
    if !T::DTYPE.is_float() {
        return Err(FilterError::Input(format!(
            "complex signals are complex64 or complex128 (f32 or f64 parts), not {} parts",
            T::DTYPE
        )));
    }
    spec.validate()?;
    let threads = options
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    if let Some(real) = spec.as_real() {
        let f = planner().plan::<T>(&real, options, target)?;
        let r = f.report();
        let report = ComplexReport {
            method: r.method.name().to_string(),
            coefficients: "real",
            error_bound: r.error_bound * std::f64::consts::SQRT_2,
            reference_bound: r.reference_bound * std::f64::consts::SQRT_2,
        };
        return Ok(ComplexFilter {
            engine: Engine::Parts(f),
            report,
            threads,
        });
    }
    let dtype = T::DTYPE;
    let (engine, b, a, method) = serial_of(spec);
    let magnitude = stable::max_reflection(&a);
    if !options.allow_unstable && (magnitude >= 1.0 || magnitude.is_nan()) {
        return Err(FilterError::Coefficients(format!(
            "the filter {spec} is unstable: a pole lies on or outside the unit circle (step-down \
             test in f64 on the complex denominator), so its output grows without bound; pass \
             --allow-unstable (library: FilterOptions.allow_unstable) to run it anyway"
        )));
    }
    let k = engine.state_len();
    let (mut error_bound, reference_bound) = serial_bounds(&b, &a, k, dtype);
    let device = match target {
        Target::Gpu(g) => {
            // Long complex64 signals with few channels: the chunked scan, where its bound
            // keeps the complex64 contract.
            let scan = match dtype {
                DType::F32 => chunked::plan(&engine, k, &scan_norms(&b, &a, k)),
                _ => None,
            };
            if let Some(s) = &scan {
                error_bound = error_bound.max(s.bound);
            }
            Some(Box::new(GpuComplex::new(g, &engine, scan)?))
        }
        Target::Cpu(_) => None,
    };
    Ok(ComplexFilter {
        engine: Engine::Serial(engine, device),
        report: ComplexReport {
            method: method.into(),
            coefficients: "complex",
            error_bound,
            reference_bound,
        },
        threads,
    })
}

/// The serial loop of `spec`, its whole (b, a) and the method's name. The arithmetic is f64:
/// the coefficients run as given, also for complex64 signals (as the real engines that
/// compute in f64 take them).
fn serial_of(spec: &ComplexSpec) -> (Serial, Vec<C64>, Vec<C64>, &'static str) {
    match spec {
        ComplexSpec::Ba { b, a } => {
            let (b, a) = normalised(b, a);
            let s = Serial::Ba {
                b: b.clone(),
                a: a.clone(),
            };
            (s, b, a, "serial")
        }
        ComplexSpec::Sos(rows) => {
            let (mut b, mut a) = (vec![C64::ONE], vec![C64::ONE]);
            for r in rows {
                b = poly_mul(&b, &r[..3]);
                a = poly_mul(&a, &r[3..]);
            }
            (Serial::Sos(rows.clone()), b, a, "sos-serial")
        }
    }
}

/// The serial loop's error bounds: γ·‖h_{1/A}‖₁·(‖b‖₁ + ‖a‖₁·‖h‖₁) with γ = (2k + 4)·√2·u for
/// state length k (each complex product and sum rounds within √2·u, and every state value's
/// roundings pass through 1/A), at f64 for the engine, at the dtype for SciPy's; a complex64
/// output adds its one rounding, √2·u₃₂·‖h‖₁. For unstable filters (allowed) both are
/// infinite.
fn serial_bounds(b: &[C64], a: &[C64], k: usize, dtype: DType) -> (f64, f64) {
    let (hb, ha, b1, a1) = filter_norms(b, a);
    let growth = ha * (b1 + a1 * hb);
    let gamma = |u: f64| (2 * k + 4) as f64 * std::f64::consts::SQRT_2 * u;
    let f64_bound = gamma(f64::EPSILON / 2.0) * growth;
    match dtype {
        DType::F32 => {
            let u32 = f32::EPSILON as f64 / 2.0;
            (
                f64_bound + std::f64::consts::SQRT_2 * u32 * hb,
                gamma(u32) * growth,
            )
        }
        _ => (f64_bound, f64_bound),
    }
}

/// ‖h‖₁ of b / a, ‖h‖₁ of 1 / a, ‖b‖₁ and ‖a‖₁, of the normalised filter.
fn filter_norms(b: &[C64], a: &[C64]) -> (f64, f64, f64, f64) {
    let (b, a) = normalised(b, a);
    let (hb, ha) = stable::norms(&b, &a);
    let l1 = |v: &[C64]| v.iter().map(|c| c.abs()).sum::<f64>();
    (hb, ha, l1(&b), l1(&a))
}

/// What the chunked scan's bound is built from (module `chunked`), for complex64 data.
fn scan_norms(b: &[C64], a: &[C64], k: usize) -> chunked::Norms {
    let (hb, _, b1, a1) = filter_norms(b, a);
    let (serial, _) = serial_bounds(b, a, k, DType::F64);
    let (_, reference) = serial_bounds(b, a, k, DType::F32);
    chunked::Norms {
        serial,
        a1,
        growth: b1 + a1 * hb,
        h1: hb,
        reference,
    }
}

fn poly_mul(p: &[C64], q: &[C64]) -> Vec<C64> {
    let mut out = vec![C64::ZERO; p.len() + q.len() - 1];
    for (i, &x) in p.iter().enumerate() {
        for (j, &y) in q.iter().enumerate() {
            out[i + j] = out[i + j] + x * y;
        }
    }
    out
}

impl<T: Element> ComplexFilter<T> {
    /// The method and its predicted error bound (with SciPy's).
    pub fn report(&self) -> &ComplexReport {
        &self.report
    }

    /// Complex zi / zf values per channel: max(len(a), len(b)) − 1, or 2 per section.
    pub fn state_len(&self) -> usize {
        match &self.engine {
            Engine::Parts(f) => f.state_len(),
            Engine::Serial(s, _) => s.state_len(),
        }
    }

    /// The number of sections when the filter was given as sections, else None.
    pub fn sections(&self) -> Option<usize> {
        match &self.engine {
            Engine::Parts(f) => f.sections(),
            Engine::Serial(Serial::Sos(rows), _) => Some(rows.len()),
            Engine::Serial(Serial::Ba { .. }, _) => None,
        }
    }

    /// Where the work runs, for reports.
    pub fn device(&self) -> String {
        match &self.engine {
            Engine::Parts(f) => f.device(),
            Engine::Serial(_, None) => format!("cpu ({} threads, serial)", self.threads),
            Engine::Serial(_, Some(g)) => format!(
                "{} (device data: one channel per GPU thread, serial{}; host data: cpu, {} \
                 threads)",
                g.target().describe(),
                match g.scan() {
                    Some(_) => format!(
                        ", or chunks of {} for fewer than {} channels of at least {} samples",
                        chunked::CHUNK,
                        chunked::MAX_CHANNELS,
                        chunked::MIN_LENGTH
                    ),
                    None => String::new(),
                },
                self.threads
            ),
        }
    }

    /// How the work is split between host and GPU, where not all on the target.
    pub fn note(&self) -> Option<String> {
        match &self.engine {
            Engine::Parts(f) => f.note(),
            Engine::Serial(..) => None,
        }
    }

    /// Filters `channels` complex channels of equal length stored one after another in `x`
    /// (interleaved `re, im`) into `y`; zi / zf hold `state_len()` complex values per channel
    /// (zf from a zero state without zi). Non-finite input is refused naming its sample.
    pub fn run(
        &self,
        x: &[T],
        channels: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
    ) -> Result<Timing, FilterError> {
        let k = self.state_len();
        let n = check_layout(
            x.len(),
            channels,
            y.len(),
            zi.map(<[T]>::len),
            zf.as_deref().map(<[T]>::len),
            k,
        )?;
        check_finite_complex(x, "x")?;
        if let Some(z) = zi {
            check_finite_complex(z, "zi")?;
        }
        let start = Instant::now();
        match &self.engine {
            Engine::Parts(f) => {
                let timing = run_parts(&**f, x, channels, n, y, zi, zf, k)?;
                Ok(match timing.transfer_seconds {
                    Some(_) => timing,
                    None => Timing::since(start),
                })
            }
            Engine::Serial(s, _) => {
                self.run_serial(s, x, channels, n, y, zi, zf, k);
                Ok(Timing::since(start))
            }
        }
    }

    /// Filters device data on the plan's GPU, on its target's stream (enqueued, not waited
    /// for): the complex-coefficient kernel, bit for bit the CPU engine's result — or, for
    /// complex64 with few long channels where the plan built it, the chunked scan (module
    /// [`chunked`]; bit for bit its CPU twin, within the report's bound). Device data
    /// is not scanned for non-finite values (a NaN spreads to the samples after it, as in
    /// SciPy's loop). Refused for a plan of the CPU (plan for the GPU that holds the data) and
    /// for real coefficients (filter the `re, im` values as real data: the real filters run
    /// them on the GPU). The batch holds interleaved `re, im` values as [`ComplexFilter::run`]
    /// takes them on the host: x and y `channels` × 2·n, zi / zf `channels` × 2·state_len.
    pub fn run_device(&self, batch: DeviceBatch<'_, T>) -> Result<(), FilterError> {
        let DeviceBatch {
            x,
            channels,
            y,
            zi,
            zf,
        } = batch;
        let k = self.state_len();
        let n = check_layout(
            x.len(),
            channels,
            y.len(),
            zi.as_ref().map(|z| z.len()),
            zf.as_ref().map(|z| z.len()),
            k,
        )?;
        let gpu = match &self.engine {
            Engine::Serial(_, Some(g)) => g,
            Engine::Serial(_, None) => {
                return Err(FilterError::Input(
                    "this complex filter was planned for the CPU: plan it for the GPU that \
                     holds the data, or pass host arrays"
                        .into(),
                ))
            }
            Engine::Parts(_) => {
                return Err(FilterError::Input(
                    "the coefficients are real: filter the (re, im) values as a real array \
                     (the real filters run it on the GPU)"
                        .into(),
                ))
            }
        };
        // Also for n = 0: the kernel then passes zi (or zero) to zf.
        gpu.run(&x, y, zi.as_ref(), zf, channels, n)
    }

    /// The serial loop and the chunked scan's Φ when device data may run the scan (the
    /// checks run its twin from them).
    fn scan_parts(&self) -> Option<(&Serial, &[C64])> {
        match &self.engine {
            Engine::Serial(s, Some(g)) => g.scan().map(|sc| (s, &sc.phi[..])),
            _ => None,
        }
    }

    /// One channel: y and zf (SciPy's `lfilter(b, a, x, zi=zi)` / `sosfilt` on complex x).
    pub fn apply(&self, x: &[T], zi: Option<&[T]>) -> Result<(Vec<T>, Vec<T>), FilterError> {
        let mut y = vec![T::ZERO; x.len()];
        let mut zf = vec![T::ZERO; 2 * self.state_len()];
        self.run(x, 1, &mut y, zi, Some(&mut zf))?;
        Ok((y, zf))
    }

    #[allow(clippy::too_many_arguments)]
    fn run_serial(
        &self,
        s: &Serial,
        x: &[T],
        channels: usize,
        n: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
        k: usize,
    ) {
        // A filter without state (an FIR of one tap) still gets one slot per channel, so
        // that the channels and their states pair up below.
        let stride = k.max(1);
        let mut states: Vec<C64> = match zi {
            Some(_) if k == 0 => vec![C64::ZERO; channels],
            Some(z) => z
                .chunks_exact(2)
                .map(|p| C64::new(p[0].to_f64(), p[1].to_f64()))
                .collect(),
            None => vec![C64::ZERO; channels * stride],
        };
        let len = 2 * n;
        let threads = self.threads.min(channels).max(1);
        if threads == 1 || channels * n < 1 << 14 {
            for ((xc, yc), z) in x
                .chunks(len.max(1))
                .zip(y.chunks_mut(len.max(1)))
                .zip(states.chunks_mut(stride))
            {
                s.run(xc, yc, z);
            }
        } else {
            let per = channels.div_ceil(threads);
            std::thread::scope(|scope| {
                let parts = x
                    .chunks(per * len)
                    .zip(y.chunks_mut(per * len))
                    .zip(states.chunks_mut(per * stride));
                for ((xs, ys), zs) in parts {
                    scope.spawn(move || {
                        for ((xc, yc), z) in xs
                            .chunks(len)
                            .zip(ys.chunks_mut(len))
                            .zip(zs.chunks_mut(stride))
                        {
                            s.run(xc, yc, z);
                        }
                    });
                }
            });
        }
        if let (Some(zf), true) = (zf, k > 0) {
            for (out, z) in zf.chunks_exact_mut(2).zip(&states) {
                out[0] = T::from_f64(z.re);
                out[1] = T::from_f64(z.im);
            }
        }
    }
}

/// The real filter on both parts: channel c's real part becomes real channel 2c, its
/// imaginary part 2c + 1 (and so for the states), one batch through the planned filter.
#[allow(clippy::too_many_arguments)]
fn run_parts<T: Element>(
    f: &dyn crate::Recurrence<T>,
    x: &[T],
    channels: usize,
    n: usize,
    y: &mut [T],
    zi: Option<&[T]>,
    zf: Option<&mut [T]>,
    k: usize,
) -> Result<Timing, FilterError> {
    use signal::{interleave, split};
    let xr = split(x, n);
    let zr = zi.map(|z| split(z, k));
    let mut yr = vec![T::ZERO; x.len()];
    let mut zfr = zf.as_ref().map(|z| vec![T::ZERO; z.len()]);
    let timing = f.run(Batch {
        x: &xr,
        channels: 2 * channels,
        y: &mut yr,
        zi: zr.as_deref(),
        zf: zfr.as_deref_mut(),
        fresh: Some("x"),
    })?;
    y.copy_from_slice(&interleave(&yr, n));
    if let (Some(out), Some(parts)) = (zf, zfr) {
        out.copy_from_slice(&interleave(&parts, k));
    }
    Ok(timing)
}

/// Complex samples per channel, after checking that x, y, zi and zf (of these lengths in
/// values) fit `channels` channels of interleaved pairs with `k` complex state values each.
fn check_layout(
    x: usize,
    channels: usize,
    y: usize,
    zi: Option<usize>,
    zf: Option<usize>,
    k: usize,
) -> Result<usize, FilterError> {
    if channels == 0 {
        return Err(FilterError::Input("channels must be at least 1".into()));
    }
    if !x.is_multiple_of(2 * channels) {
        return Err(FilterError::Input(format!(
            "{x} values do not split into {channels} channel(s) of (re, im) pairs"
        )));
    }
    if y != x {
        return Err(FilterError::Input(format!(
            "the output holds {y} values but the input {x}"
        )));
    }
    for (what, len) in [("zi", zi), ("zf", zf)] {
        if let Some(len) = len {
            if len != 2 * channels * k {
                return Err(FilterError::Input(format!(
                    "{what} holds {len} values; {channels} channel(s) of {k} complex state \
                     values need {}",
                    2 * channels * k
                )));
            }
        }
    }
    Ok(x / (2 * channels))
}

/// Refuses a non-finite complex value, naming its index among the complex values.
pub fn check_finite_complex<T: Element>(v: &[T], what: &str) -> Result<(), FilterError> {
    match v.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(i) => Err(FilterError::Input(format!(
            "{what} holds a non-finite value at complex index {} ({} part is {}): sigpu \
             filters finite input only",
            i / 2,
            if i % 2 == 0 { "real" } else { "imaginary" },
            v[i].to_f64()
        ))),
    }
}

#[cfg(test)]
mod tests;

//! The compiled filter: a signature checked and converted to one element type once, with its
//! correction factors, reusable across calls, channels and streams.

use crate::cpu::{self, Isa, Plan, SUB};
use crate::elem::{DType, Element};
use crate::engine::Batch;
use crate::error::FilterError;
use crate::factors::Factors;
use crate::poles::STABILITY_SLACK;
use crate::report::Method;
use crate::serial::{filter_serial, final_state};
use crate::signature::Signature;
use sigpu_runtime::host::CpuArch;

/// How a CPU filter runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Chunked and multi-threaded when the input is long enough, serial otherwise.
    #[default]
    Auto,
    /// The serial recurrence, one element after another.
    Serial,
    /// The chunked algorithm even for short inputs.
    Chunked,
}

/// Choices made when a filter is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FilterOptions {
    /// The PLR paper's domain-specific optimisations: factors truncated below the smallest normal
    /// float, zero factors suppressed, factors of 0 and 1 specialised. Off only to measure
    /// what they bring.
    pub optimize: bool,
    /// Run recurrences with a pole of magnitude > 1 (floats) instead of refusing them.
    pub allow_unstable: bool,
    pub strategy: Strategy,
    /// CPU threads (None: all the process may use).
    pub threads: Option<usize>,
    /// The CPU extensions the CPU path may use: the host's by default (detected once per
    /// process), [`CpuArch::scalar`] for the portable path.
    pub cpu: CpuArch,
}

impl Default for FilterOptions {
    fn default() -> Self {
        FilterOptions {
            optimize: true,
            allow_unstable: false,
            strategy: Strategy::Auto,
            threads: None,
            cpu: CpuArch::host(),
        }
    }
}

/// A recurrence compiled for element type `T`.
#[derive(Clone, Debug)]
pub struct Filter<T: Element> {
    signature: Signature,
    ff: Vec<T>,
    fb: Vec<T>,
    state_len: usize,
    options: FilterOptions,
    cpu_factors: Factors<T>,
    transfer_sub: Vec<T>,
    max_pole: f64,
}

/// The most recursive coefficients a (b, a) filter or signature may have: set-up (factor
/// tables, exact stability) grows with the square of the order. Higher-order filters belong
/// in second-order sections.
pub const MAX_ORDER: usize = 64;

/// Inputs shorter than this run serially under [`Strategy::Auto`].
const SERIAL_BELOW: usize = 4096;

impl<T: Element> Filter<T> {
    /// Checks `signature` for `T` (integer coefficients for integer types, finite values,
    /// stability for floats) and computes its correction factors.
    pub fn new(signature: &Signature, options: FilterOptions) -> Result<Self, FilterError> {
        let convert = |side: &str, coefs: &[crate::Coef]| -> Result<Vec<T>, FilterError> {
            coefs
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    T::from_coef(c).map_err(|m| {
                        FilterError::Coefficients(format!(
                            "{signature}: {side} coefficient {} ({}): {m}",
                            i + 1,
                            c.text
                        ))
                    })
                })
                .collect()
        };
        if signature.feedback.len() > MAX_ORDER {
            return Err(FilterError::Coefficients(format!(
                "{} recursive coefficients: at most {} are supported (set-up cost and accuracy \
                 both degrade with the order); give a high-order IIR filter as second-order \
                 sections (--sos, scipy's output='sos')",
                signature.feedback.len(),
                MAX_ORDER
            )));
        }
        let ff = convert("non-recursive", &signature.feedforward)?;
        let fb = convert("recursive", &signature.feedback)?;
        if ff.is_empty() || fb.is_empty() {
            return Err(FilterError::Coefficients(format!(
                "{signature}: both sides need at least one coefficient"
            )));
        }
        // Stability of the coefficients as the element type holds them.
        let rounded: Vec<f64> = fb.iter().map(|v| v.to_f64()).collect();
        let max_pole = crate::poles::max_root_magnitude(&rounded);
        // A NaN magnitude (the root finder overflowed on huge coefficients) is not stable either.
        let unstable = if T::DTYPE.is_float() && !options.allow_unstable {
            // Exact step-down on the coefficients as T holds them; roots only decide the
            // marginal case (poles on the unit circle, e.g. prefix sums).
            let a: Vec<f64> = rounded.iter().map(|v| -v).collect();
            match crate::stability::step_down(&a) {
                crate::stability::Stability::Stable { .. } => false,
                crate::stability::Stability::Unstable { .. } => true,
                crate::stability::Stability::Marginal => {
                    max_pole.is_nan() || max_pole > 1.0 + STABILITY_SLACK
                }
            }
        } else {
            max_pole.is_nan() || max_pole > 1.0 + STABILITY_SLACK
        };
        if T::DTYPE.is_float() && !options.allow_unstable && unstable {
            return Err(FilterError::Unstable {
                signature: signature.to_string(),
                magnitude: max_pole.max(1.0),
            });
        }
        let mut cpu_factors = Factors::compute(&fb, SUB, options.optimize);
        // The CPU path drops the tables' negligible tails (Σ|f| ≤ ε·2⁻⁸ of T): f64 tables
        // that reach DBL_MIN only past the chunk's end would otherwise correct every element
        // and chain every block to its predecessor.
        cpu_factors.truncate_negligible(crate::numbers::eps::<T>() / 256.0);
        let transfer_sub = cpu_factors.transfer(SUB);
        Ok(Filter {
            signature: signature.clone(),
            ff,
            fb,
            state_len: signature.state_len,
            options,
            cpu_factors,
            transfer_sub,
            max_pole,
        })
    }

    /// Parses the PLR paper's notation and builds the filter.
    pub fn parse(signature: &str, options: FilterOptions) -> Result<Self, FilterError> {
        Filter::new(&Signature::parse(signature)?, options)
    }

    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// a0, a-1, …: the map's coefficients in `T`.
    pub fn feedforward(&self) -> &[T] {
        &self.ff
    }

    /// b-1, …, b-k: the recurrence's coefficients in `T`.
    pub fn feedback(&self) -> &[T] {
        &self.fb
    }

    pub fn order(&self) -> usize {
        self.fb.len()
    }

    /// Length of `zi` / `zf` per channel.
    pub fn state_len(&self) -> usize {
        self.state_len
    }

    pub fn options(&self) -> &FilterOptions {
        &self.options
    }

    /// Largest pole magnitude of the coefficients as `T` holds them.
    pub fn max_pole(&self) -> f64 {
        self.max_pole
    }

    /// The CPU path's factors (for `cpu::SUB`-element sub-chunks).
    pub fn cpu_factors(&self) -> &Factors<T> {
        &self.cpu_factors
    }

    /// Correction factors for chunks of `chunk` elements (what the GPU generator bakes in).
    pub fn factors_for(&self, chunk: usize) -> Factors<T> {
        Factors::compute(&self.fb, chunk, self.options.optimize)
    }

    /// The instruction set the CPU path will use.
    pub fn simd(&self) -> Isa {
        // Never more than the CPU has, whatever the options describe.
        cpu::block_isa(&self.options.cpu)
    }

    /// Filters one channel: returns y and the final state zf (SciPy's `lfilter(b, a, x, zi=zi)`).
    pub fn apply(&self, x: &[T], zi: Option<&[T]>) -> Result<(Vec<T>, Vec<T>), FilterError> {
        let mut y = vec![T::ZERO; x.len()];
        let mut zf = vec![T::ZERO; self.state_len];
        self.apply_batch(x, 1, &mut y, zi, Some(&mut zf))?;
        Ok((y, zf))
    }

    /// Filters `channels` channels of equal length stored one after another in `x`, into `y`
    /// (same layout). `zi` and `zf`, when given, hold `state_len()` values per channel.
    pub fn apply_batch(
        &self,
        x: &[T],
        channels: usize,
        y: &mut [T],
        zi: Option<&[T]>,
        zf: Option<&mut [T]>,
    ) -> Result<(), FilterError> {
        let batch = Batch {
            x,
            channels,
            y,
            zi,
            zf,
            fresh: None,
        };
        self.apply_batch_flagged(batch).map(drop)
    }

    /// [`Filter::apply_batch`]; returns true when x may hold a non-finite value (a local
    /// recurrence ended non-finite, or a serial run's output is not finite — a non-finite
    /// input or an overflow). `fresh`: y was just allocated and never written; its
    /// pages are zeroed by the kernel at the first write and those lines are then still in
    /// the caches, so plain stores beat non-temporal ones there (as in the section engine).
    pub(crate) fn apply_batch_flagged(&self, batch: Batch<'_, T>) -> Result<bool, FilterError> {
        let s = self.state_len;
        let layout = format!("of state {s} (SciPy's max(len(b), len(a)) - 1 per channel)");
        let n = batch.samples(s, &layout)?;
        let (x, channels, fresh) = (batch.x, batch.channels, batch.fresh.is_some());
        let (y, zi, zf) = (batch.y, batch.zi, batch.zf);
        let threads = self.options.threads.unwrap_or_else(host_threads).max(1);
        let plan = Plan {
            ff: &self.ff,
            fb: &self.fb,
            factors: &self.cpu_factors,
            transfer_sub: &self.transfer_sub,
            independent: self.cpu_factors.carry_independent(SUB),
            simd: self.simd(),
            avx512: self.simd() == Isa::Avx2Fma && cpu::sos_isa(&self.options.cpu) == Isa::Avx512,
            stream: !fresh && n * std::mem::size_of::<T>() >= cpu::STREAM_BYTES,
        };
        let serial = match self.options.strategy {
            Strategy::Serial => true,
            Strategy::Chunked => false,
            Strategy::Auto => n < SERIAL_BELOW,
        };
        let s = self.state_len;
        let zi_of = |c: usize| zi.map(|z| &z[c * s..(c + 1) * s]);
        let flagged = std::sync::atomic::AtomicBool::new(false);
        let run_one = |c: usize, y: &mut [T], threads: usize| {
            let xc = &x[c * n..(c + 1) * n];
            let finite = if serial {
                // Watched through its output: a non-finite input or an overflow leaves a
                // non-finite output (an unwatched run flagged every short fresh call as one).
                filter_serial(&self.ff, &self.fb, xc, zi_of(c), y);
                y.iter().all(|v| v.is_finite())
            } else {
                cpu::filter_channel(&plan, xc, zi_of(c), y, threads)
            };
            if !finite {
                flagged.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        };
        if n > 0 {
            if channels >= threads && threads > 1 {
                // Many channels: one thread per channel at a time.
                let next = std::sync::atomic::AtomicUsize::new(0);
                let rows: Vec<std::sync::Mutex<&mut [T]>> =
                    y.chunks_mut(n).map(std::sync::Mutex::new).collect();
                // The caller's cancellation token, carried into the workers' threads.
                let cancel = sigpu_runtime::cancel::Cancel::current();
                std::thread::scope(|scope| {
                    for _ in 0..threads {
                        scope.spawn(|| {
                            cancel.scope(|| loop {
                                if cancel.is_cancelled() {
                                    break;
                                }
                                let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let Some(row) = rows.get(c) else { break };
                                let mut row = row.lock().unwrap_or_else(|p| p.into_inner());
                                run_one(c, &mut row, 1);
                            })
                        });
                    }
                });
            } else {
                for (c, row) in y.chunks_mut(n).enumerate() {
                    run_one(c, row, threads);
                }
            }
        }
        if let Some(zf) = zf {
            self.final_states(x, y, channels, zi, zf);
        }
        Ok(flagged.into_inner())
    }

    /// zf for each of `channels` channels, from its last inputs and outputs (and zi).
    fn final_states(&self, x: &[T], y: &[T], channels: usize, zi: Option<&[T]>, zf: &mut [T]) {
        let (n, s) = (x.len() / channels, self.state_len);
        for c in 0..channels {
            let range = c * n..(c + 1) * n;
            let zi_c = zi.map(|z| &z[c * s..(c + 1) * s]);
            let state = final_state(&self.ff, &self.fb, s, &x[range.clone()], &y[range], zi_c);
            zf[c * s..(c + 1) * s].copy_from_slice(&state);
        }
    }

    /// The channel length, after checking that the buffers fit `channels` channels.
    pub(crate) fn check_shapes(
        &self,
        x_len: usize,
        channels: usize,
        y_len: usize,
        zi_len: Option<usize>,
    ) -> Result<usize, FilterError> {
        if channels == 0 {
            return Err(FilterError::Input("channels must be at least 1".into()));
        }
        if !x_len.is_multiple_of(channels) {
            return Err(FilterError::Input(format!(
                "{x_len} input values do not split into {channels} channels of equal length"
            )));
        }
        if y_len != x_len {
            return Err(FilterError::Input(format!(
                "the output holds {y_len} values but the input {x_len}"
            )));
        }
        if let Some(len) = zi_len {
            let want = channels * self.state_len;
            if len != want {
                return Err(FilterError::Input(format!(
                    "zi holds {len} values; {channels} channel(s) of state {} need {want} \
                     (SciPy's max(len(b), len(a)) - 1 per channel)",
                    self.state_len
                )));
            }
        }
        Ok(x_len / channels)
    }
}

/// `cpu (N threads, ISA)`: the threads and the instruction set a CPU engine of `method` runs
/// with (the section engine's for sections and pole cascades, the (b, a) block functions'
/// otherwise).
pub(crate) fn cpu_device(options: &FilterOptions, method: Method) -> String {
    let threads = options.threads.unwrap_or_else(host_threads);
    let isa = match method {
        Method::Sos | Method::PoleCascade | Method::Sections => cpu::sos_isa(&options.cpu),
        _ => cpu::block_isa(&options.cpu),
    };
    format!("cpu ({threads} threads, {isa})")
}

/// Threads the process may use, asked once (the answer reads cgroup files).
pub(crate) fn host_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(sigpu_runtime::host::threads)
}

/// An error naming the first NaN or infinity in `values`.
pub fn check_finite<T: Element>(values: &[T], what: &str) -> Result<(), FilterError> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(i) => Err(FilterError::Input(format!(
            "{what}[{i}] is {:?}: the input must be finite (a NaN or infinity would spread to \
             every later output)",
            values[i]
        ))),
    }
}

/// The error of a run whose state went non-finite: the input's first non-finite value by name,
/// or, where the input is finite, the output's overflow of `T` (a filter whose coefficients as
/// `T` holds them put a pole so near the unit circle that its gain exceeds `T`'s range; SciPy
/// returns infinities there, silently).
pub(crate) fn nonfinite_run<T: Element>(x: &[T], what: &str) -> FilterError {
    match check_finite(x, what) {
        Err(e) => e,
        Ok(()) => FilterError::Input(format!(
            "the output overflowed {}: the filter's gain on this input exceeds the type's range \
             (its coefficients rounded to {} put a pole at the edge of stability); filter in \
             f64, or as second-order sections (scipy's output='sos')",
            T::DTYPE,
            T::DTYPE
        )),
    }
}

/// Comma-separated numbers as `T` (integers exactly): a list of state values or coefficients
/// given as text. Errors name the first entry that is not a finite number or that `T` cannot
/// hold.
pub fn parse_values<T: Element>(text: &str) -> Result<Vec<T>, FilterError> {
    text.split(',')
        .map(|t| {
            let t = t.trim();
            let value: f64 = t
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| FilterError::Input(format!("{t:?} is not a finite number")))?;
            let coef = crate::Coef {
                text: t.to_owned(),
                value,
                int: t.parse().ok(),
            };
            T::from_coef(&coef)
        })
        .collect()
}

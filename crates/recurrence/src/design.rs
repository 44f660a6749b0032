//! The accuracy contract and the choice of method for a `(b, a)` filter.
//!
//! **Contract.** For every stable filter, the output is within 4× the error SciPy's
//! `lfilter` / `sosfilt` makes at the same dtype, both measured against the exact output of
//! the coefficients as given (f64). Before running, the library predicts a bound on
//! max|y − y_exact| / max|x| for each way it could run the filter and for SciPy's serial
//! transposed direct form II (the `reference_bound`), all from the coefficients:
//!
//! - serial (SciPy's algorithm): ε·(k+1)·‖h_{1/A}‖₁·(Σ|b| + Σ|a|·‖h‖₁), where h_{1/A} is the
//!   impulse response of the recursive part and h the filter's;
//! - `plr` (blocked, carries corrected with factor tables computed in double-double): the
//!   serial bound plus ε·(k+2)·Σ_m max|F_m|·‖h‖₁ — the carries are outputs, and their products
//!   with the factors (up to 3e9 for butter(8, 0.02) over a 2,072-sample block) cancel;
//! - `pole-cascade`: the numerator b as an FIR, then 1/A as a cascade of all-pole biquads built
//!   from A's roots (found in f64, polished by Newton's method with the polynomial evaluated in
//!   double-double, paired into conjugate sections, the poles nearest the unit circle last as
//!   in SciPy's `zpk2sos`); bound: the FIR's error through ‖h_{1/A}‖₁, each section's rounding
//!   through the sections after it, the rounding of each section's coefficients to the dtype,
//!   and the blocking term of [`crate::Sos`].
//!
//! Choice: `plr` (the GPU's single-pass kernel) wherever the factors stay small
//! (Σ max|F_m|·(k+2) ≤ 64: blocking adds rounding-level error — measured, the PLR error
//! otherwise exceeds SciPy's by 10–30× even with exact factors, because the serial bound is
//! far looser than the blocking term) and the recursive part amplifies roundings little
//! (‖h_{1/A}‖₁ ≤ [`PLR_MAX_INVERSE_L1`], on the CPU and the GPU alike); else `pole-cascade`
//! where its bound is 16× below the serial one (orders ≤ 2: below it); else `serial`, which is
//! SciPy's algorithm and keeps the
//! contract by construction. Unstable filters (exact step-down on the
//! coefficients in the dtype that runs, or on each section) are refused.

use crate::bounds::{l1_cascade, l1_impulse, serial_bound_holds_until};
use crate::elem::Element;
use crate::engine::{Batch, Recurrence, Timing};
use crate::error::FilterError;
use crate::filter::{cpu_device, host_threads, Filter, FilterOptions, Strategy, MAX_ORDER};
use crate::fir_fft::{self, FftFir};
use crate::numbers::eps;
use crate::report::{Method, Report};
use crate::serial::final_state;
use crate::signature::Signature;
use crate::sos::Sos;
use crate::stability::{step_down, Stability};
use std::sync::Arc;
use std::time::Instant;

/// A `(b, a)` filter compiled for element type `T` with the method the contract picks.
#[derive(Clone, Debug)]
pub struct Lfilter<T: Element> {
    /// b / a[0] and a / a[0] in f64, as given.
    b: Vec<f64>,
    a: Vec<f64>,
    state_len: usize,
    kind: Kind<T>,
    /// A long FIR's CPU engine (the `Direct` filter stays for the GPU kernel).
    fft: Option<Arc<FftFir>>,
    report: Report,
    options: FilterOptions,
}

/// The largest ‖h_{1/A}‖₁ for which the CPU runs a float filter blocked as (b, a) (`plr`).
/// The factor-growth rule alone let through second-order designs with poles close to ±1 or
/// high Q (notches near DC or Nyquist, butter(2, 0.02)), whose blocked outputs measured up to
/// 5.8× SciPy's error on steps, DC plus noise and large-then-small inputs
/// (`bench/peers/plr_gpu_calibration.py --cpu`); at ‖h_{1/A}‖₁ ≤ 64 the worst was 2.7×.
pub const PLR_MAX_INVERSE_L1: f64 = 64.0;

#[derive(Clone, Debug)]
enum Kind<T: Element> {
    Direct(Box<Filter<T>>),
    /// `serial`: a in T and the longest signal (samples per channel) that runs (ff, a)
    /// serially instead, where the serial loop's bound is below the cascade's.
    Cascade {
        ff: Vec<T>,
        poles: Box<Sos<T>>,
        serial: Option<(Vec<T>, usize)>,
    },
    Serial {
        b: Vec<T>,
        a: Vec<T>,
    },
}

impl<T: Element> Lfilter<T> {
    /// SciPy's `lfilter(b, a)` convention: a[0] normalises.
    pub fn new(b: &[f64], a: &[f64], options: FilterOptions) -> Result<Self, FilterError> {
        let sig = Signature::from_lfilter(b, a)?;
        Self::from_signature(&sig, options)
    }

    /// A filter in the PLR paper's notation; integer element types run exactly (wrapping) with
    /// the blocked method.
    pub fn from_signature(sig: &Signature, options: FilterOptions) -> Result<Self, FilterError> {
        let order = sig.feedback.len();
        if order > MAX_ORDER {
            return Err(FilterError::Coefficients(format!(
                "{} recursive coefficients: at most {MAX_ORDER} are supported (set-up cost \
                 and accuracy both degrade with the order); give a high-order IIR filter as \
                 second-order sections (--sos, scipy's output='sos')",
                order
            )));
        }
        let b: Vec<f64> = sig.feedforward.iter().map(|c| c.value).collect();
        let mut a = vec![1.0];
        a.extend(sig.feedback.iter().map(|c| -c.value));
        while a.len() > 1 && a[a.len() - 1] == 0.0 {
            a.pop();
        }
        let state_len = sig.state_len;
        if !T::DTYPE.is_float() {
            let f = Filter::<T>::new(sig, options)?;
            let report = Report {
                method: if a.len() == 1 {
                    Method::Fir
                } else {
                    Method::Plr
                },
                error_bound: 0.0,
                reference_bound: 0.0,
            };
            return Ok(Lfilter {
                b,
                a,
                state_len,
                kind: Kind::Direct(Box::new(f)),
                fft: None,
                report,
                options,
            });
        }
        let u = eps::<T>();
        if a.len() == 1 {
            let f = Filter::<T>::new(sig, options)?;
            let sb: f64 = b.iter().map(|v| v.abs()).sum();
            let bound = u * b.len() as f64 * sb;
            // Long numerators by FFT convolution on the CPU (module `fir_fft`): its bound is
            // its f64 convolution error plus the rounding of the output to T.
            let fft = (b.len() >= fir_fft::CROSSOVER && options.strategy != Strategy::Serial)
                .then(|| Arc::new(FftFir::new(&b)));
            let error_bound = fft.as_ref().map_or(bound, |f| f.bound() + u * sb);
            return Ok(Lfilter {
                b,
                a,
                state_len,
                kind: Kind::Direct(Box::new(f)),
                fft,
                report: Report {
                    method: Method::Fir,
                    error_bound,
                    reference_bound: bound,
                },
                options,
            });
        }
        // Stability, exactly, of the f64 coefficients (what every method approximates).
        let k = a.len() - 1;
        if !options.allow_unstable {
            check_stable(sig, &a[1..])?;
        }
        let sb: f64 = b.iter().map(|v| v.abs()).sum();
        let sa: f64 = a.iter().map(|v| v.abs()).sum();
        let (l1a, decays) = l1_impulse(&[1.0], &a);
        let (l1h, _) = l1_impulse(&b, &a);
        let serial = u * (k + 1) as f64 * l1a * (sb + sa * l1h);
        // PLR with factors computed in double-double: build it (its own stability check runs on
        // the coefficients in T).
        let plr = Filter::<T>::new(
            sig,
            FilterOptions {
                allow_unstable: true,
                ..options
            },
        )?;
        let plr_stable_in_t = plr.max_pole() <= 1.0 || {
            let at: Vec<f64> = plr.feedback().iter().map(|v| -v.to_f64()).collect();
            matches!(step_down(&at), Stability::Stable { .. })
        };
        let f = plr.cpu_factors();
        let g: f64 = (0..f.order())
            .map(|j| {
                f.table(j)
                    .iter()
                    .fold(0.0f64, |m, v| m.max(v.to_f64().abs()))
            })
            .sum();
        let plr_bound = if plr_stable_in_t {
            serial + u * (k + 2) as f64 * g * l1h
        } else {
            f64::INFINITY
        };
        let forced = options.strategy == Strategy::Serial;
        // Filters whose factors stay small (Σ max|F_m| with k + 2 roundings ≤ 64: the blocking
        // adds rounding-level error) run blocked as (b, a): the measured error then matches
        // the serial one. Larger factor growth (poles near 1, high orders) runs as sections.
        // The factor rule alone is not enough where 1/A itself amplifies roundings strongly
        // (poles near ±1, high Q): there the blocked path runs only up to PLR_MAX_INVERSE_L1.
        let benign = g * (k + 2) as f64 <= 64.0 && l1a <= PLR_MAX_INVERSE_L1;
        if !forced && benign && plr_bound.is_finite() {
            return Ok(Lfilter {
                b,
                a,
                state_len,
                kind: Kind::Direct(Box::new(plr)),
                fft: None,
                report: Report {
                    method: Method::Plr,
                    error_bound: plr_bound,
                    reference_bound: serial,
                },
                options,
            });
        }
        let _ = decays;
        let cascade = pole_cascade::<T>(&a, options).ok();
        let casc_bound = cascade.as_ref().map_or(f64::INFINITY, |(s, extra, _)| {
            let fir = u * (b.len() + 1) as f64 * sb * l1a;
            fir + sb * s.report().error_bound + extra * l1h
        });
        // The sections multiply back to A only to their f64 rounding: a residual δ in A's
        // coefficients moves the output by up to ℓ1(1/A)·‖δ‖₁·max|y| (high orders amplify it by
        // their pole sensitivity, ℓ1(1/A) ~ 1e8 for butter(10)). The reported bound counts it;
        // the choice of method does not (measured, the cascade stays orders of magnitude below
        // the serial error where its bound without it is 16× below the serial bound).
        let residual = cascade.as_ref().map_or(0.0, |c| c.2 * l1a * l1h);
        let ff: Vec<T> = b.iter().map(|&v| T::from_f64(v)).collect();
        let a_in_t: Vec<T> = a.iter().map(|&v| T::from_f64(v)).collect();
        let serial_kind = || Kind::Serial {
            b: ff.clone(),
            a: a_in_t.clone(),
        };
        // The cascade only where its bound is 16× below the serial one (the two bounds are not
        // equally tight: the all-pole cascade's intermediate signals can be large where the
        // numerator's zeros cancel them, in high-pass and band-pass designs); otherwise
        // SciPy's own algorithm, which keeps the contract by construction.
        // The serial form runs the coefficients rounded to T: where that rounding makes them
        // unstable (butter(8, 0.02) in f32), its output is garbage, so the cascade (sections
        // from the f64 poles, each checked in T) is taken whatever the bounds say, or the
        // filter is refused.
        let a_t: Vec<f64> = a[1..].iter().map(|&v| T::from_f64(v).to_f64()).collect();
        // (Where T holds a exactly, check_stable above already ran the step-down on it.)
        let serial_ok = options.allow_unstable
            || a_t == a[1..]
            || matches!(
                step_down(&a_t),
                Stability::Stable { .. } | Stability::Marginal
            );
        let (kind, method, bound) = match cascade {
            Some((poles, _, _))
                if !serial_ok
                    || (!forced
                        && (16.0 * casc_bound <= serial || (k <= 2 && casc_bound <= serial))) =>
            {
                {
                    // Short signals run SciPy's loop: its error grows through the poles only
                    // with time, and the cascade is no better there (ellip(8) high-pass from
                    // zi, f32, 3 samples: the cascade 14 ε off, SciPy's loop 3 ε). Up to where
                    // the loop's bound over the signal's length stays below the cascade's, so
                    // the reported bound holds either way; at most 1,024 samples per channel
                    // (the loop runs one channel after another). Coefficients that round to
                    // an unstable A in T qualify too: over so few samples a pole a rounding
                    // away from the unit circle grows by a rounding's worth.
                    let short = serial_bound_holds_until(&b, &a, eps::<T>(), casc_bound, 1024);
                    let serial = (short > 0).then(|| (a_in_t.clone(), short));
                    (
                        Kind::Cascade {
                            ff: ff.clone(),
                            poles: Box::new(poles),
                            serial,
                        },
                        Method::PoleCascade,
                        casc_bound + residual,
                    )
                }
            }
            _ if serial_ok => (serial_kind(), Method::Serial, serial),
            _ => {
                return Err(FilterError::Coefficients(format!(
                    "{sig}: rounded to {}, these (b, a) coefficients are unstable (exact \
                     step-down), and the filter could not be factored into stable sections; \
                     run it in f64 (--dtype f64), or give it as second-order sections (--sos; \
                     scipy's output='sos')",
                    T::DTYPE
                )))
            }
        };
        Ok(Lfilter {
            b,
            a,
            state_len,
            kind,
            fft: None,
            report: Report {
                method,
                error_bound: bound,
                reference_bound: serial,
            },
            options,
        })
    }

    /// The options the filter was built with.
    pub fn options(&self) -> &FilterOptions {
        &self.options
    }

    /// The PLR filter when that is the method (what the GPU kernel generator takes).
    pub fn plr(&self) -> Option<&Filter<T>> {
        match &self.kind {
            Kind::Direct(f) => Some(f),
            _ => None,
        }
    }

    /// The all-pole sections when the method is `pole-cascade`.
    pub fn pole_sections(&self) -> Option<&Sos<T>> {
        match &self.kind {
            Kind::Cascade { poles, .. } => Some(poles),
            _ => None,
        }
    }

    /// b / a[0] and a / a[0] as f64.
    pub fn coefficients(&self) -> (&[f64], &[f64]) {
        (&self.b, &self.a)
    }

    /// The batch through the method's engine (see [`Batch::fresh`]).
    fn filter(&self, batch: Batch<'_, T>) -> Result<(), FilterError> {
        let s = self.state_len;
        let n = batch.samples(s, &format!("of state {s} (max(len(b), len(a)) - 1)"))?;
        if let Some(fft) = &self.fft {
            let Batch {
                x,
                channels,
                y,
                zi,
                zf,
                fresh,
            } = batch;
            // A non-finite input would spread over its whole FFT block: refused first.
            if let Some(what) = fresh {
                crate::check_finite(x, what)?;
            }
            let threads = self.options.threads.unwrap_or_else(host_threads).max(1);
            for c in 0..channels {
                let r = c * n..(c + 1) * n;
                let zi_c = zi.map(|z| &z[c * s..(c + 1) * s]);
                fft.run(&x[r.clone()], zi_c, &mut y[r], threads);
            }
            if let Some(zf) = zf {
                zf.copy_from_slice(&self.final_states(x, y, channels, zi));
            }
            return Ok(());
        }
        if let (Some(what), Kind::Direct(f)) = (batch.fresh, &self.kind) {
            let x = batch.x;
            if f.apply_batch_flagged(batch)? {
                return Err(crate::filter::nonfinite_run(x, what));
            }
            return Ok(());
        }
        let Batch {
            x,
            channels,
            y,
            zi,
            zf,
            fresh,
        } = batch;
        // The chunked pole cascade (one channel per call, below) finds non-finite input
        // through its sections' state, as the plr method does.
        let watched = matches!(self.kind, Kind::Cascade { .. })
            && channels < self.options.threads.unwrap_or_else(host_threads).max(1);
        if let (Some(what), false) = (fresh, watched) {
            crate::check_finite(x, what)?;
        }
        let serial = match &self.kind {
            Kind::Serial { b, a } => Some((b, a)),
            Kind::Cascade {
                ff,
                serial: Some((a, short)),
                ..
            } if n <= *short => Some((ff, a)),
            _ => None,
        };
        if let Some((b, a)) = serial {
            let mut zf = zf;
            for c in 0..channels {
                let r = c * n..(c + 1) * n;
                let mut st: Vec<T> = match zi {
                    Some(z) => z[c * s..(c + 1) * s].to_vec(),
                    None => vec![T::ZERO; s],
                };
                tdf2(b, a, &x[r.clone()], &mut y[r], &mut st);
                // Non-finite values are absorbing in the recurrence: an overflow shows in
                // the final state (the input was checked finite above when fresh).
                if let (Some(what), false) = (fresh, st.iter().all(|v| v.is_finite())) {
                    return Err(crate::filter::nonfinite_run(x, what));
                }
                if let Some(zf) = zf.as_deref_mut() {
                    zf[c * s..(c + 1) * s].copy_from_slice(&st);
                }
            }
            return Ok(());
        }
        match &self.kind {
            Kind::Direct(f) => f.apply_batch(x, channels, y, zi, zf),
            Kind::Serial { .. } => unreachable!("run above"),
            Kind::Cascade { poles, ff, .. } => {
                let threads = self.options.threads.unwrap_or_else(host_threads).max(1);
                if channels >= threads {
                    // Channels in parallel, each on one thread.
                    let u = self.cascade_input(x, channels, zi).expect("a cascade");
                    poles.apply_batch(&u, channels, y, None, None)?;
                } else {
                    let mut nonfinite = false;
                    for c in 0..channels {
                        let r = c * n..(c + 1) * n;
                        let zi_c = zi.map(|z| &z[c * s..(c + 1) * s]);
                        nonfinite |= cascade_channel(
                            ff,
                            poles,
                            &x[r.clone()],
                            zi_c,
                            &mut y[r],
                            threads,
                            fresh.is_some(),
                        );
                    }
                    if let (true, Some(what)) = (nonfinite, fresh) {
                        return Err(crate::filter::nonfinite_run(x, what));
                    }
                }
                if let Some(zf) = zf {
                    zf.copy_from_slice(&self.final_states(x, y, channels, zi));
                }
                Ok(())
            }
        }
    }

    /// For the `pole-cascade` method: the input of the all-pole sections, Σ_j b_j·x[n−j]
    /// plus zi in the first samples, channel by channel (what a device then runs through
    /// [`Lfilter::pole_sections`]). None for the other methods.
    pub fn cascade_input(&self, x: &[T], channels: usize, zi: Option<&[T]>) -> Option<Vec<T>> {
        let Kind::Cascade { ff, .. } = &self.kind else {
            return None;
        };
        let (s, n) = (self.state_len, x.len() / channels.max(1));
        let mut u = vec![T::ZERO; x.len()];
        for c in 0..channels {
            let r = c * n..(c + 1) * n;
            fir_map(
                ff,
                &x[r.clone()],
                zi.map(|z| &z[c * s..(c + 1) * s]),
                &mut u[r],
            );
        }
        Some(u)
    }

    /// SciPy's zf of every channel from its input, output and zi, in f64 from the f64
    /// coefficients (for methods whose state is not the (b, a) one).
    pub fn final_states(&self, x: &[T], y: &[T], channels: usize, zi: Option<&[T]>) -> Vec<T> {
        let (s, n) = (self.state_len, x.len() / channels.max(1));
        let mut fb: Vec<f64> = self.a[1..].iter().map(|v| -v).collect();
        fb.resize(s.max(fb.len()), 0.0);
        let mut out = Vec::with_capacity(channels * s);
        for c in 0..channels {
            // The last max(s, 1) + 1 samples decide zf, with zi only while it still reaches.
            let keep = n.min(s + 1);
            let r = (c + 1) * n - keep..(c + 1) * n;
            let xs: Vec<f64> = x[r.clone()].iter().map(|v| v.to_f64()).collect();
            let ys: Vec<f64> = y[r].iter().map(|v| v.to_f64()).collect();
            let zs: Option<Vec<f64>> = if keep == n {
                zi.map(|z| z[c * s..(c + 1) * s].iter().map(|v| v.to_f64()).collect())
            } else {
                None
            };
            let st = final_state(&self.b, &fb, s, &xs, &ys, zs.as_deref());
            out.extend(st.into_iter().map(T::from_f64));
        }
        out
    }
}

/// The CPU engine of a (b, a) filter: the method the contract chose, on every core.
impl<T: Element> Recurrence<T> for Lfilter<T> {
    fn report(&self) -> &Report {
        &self.report
    }

    /// max(len(a), len(b)) − 1: SciPy's zi / zf length per channel.
    fn state_len(&self) -> usize {
        self.state_len
    }

    fn sections(&self) -> Option<usize> {
        None
    }

    fn device(&self) -> String {
        cpu_device(&self.options, self.report.method)
    }

    /// The `plr` method finds non-finite input of a fresh batch through its local
    /// recurrences, without a pass over x, and writes the fresh output with plain stores; the
    /// other methods check x first. y and zf are unspecified after an error.
    fn run(&self, batch: Batch<'_, T>) -> Result<Timing, FilterError> {
        let start = Instant::now();
        self.filter(batch)?;
        Ok(Timing::since(start))
    }
}

/// The unstable-filter error for (b, a) when the exact step-down finds a pole outside.
fn check_stable(sig: &Signature, a: &[f64]) -> Result<(), FilterError> {
    match step_down(a) {
        Stability::Stable { .. } => Ok(()),
        st => {
            let fb: Vec<f64> = a.iter().map(|v| -v).collect();
            let m = crate::poles::max_root_magnitude(&fb);
            if matches!(st, Stability::Marginal) && m <= 1.0 + crate::poles::STABILITY_SLACK {
                return Ok(());
            }
            Err(FilterError::Unstable {
                signature: sig.to_string(),
                magnitude: m.max(1.0),
            })
        }
    }
}

/// Samples of a pole cascade's input computed at a time: the numerator's output for a chunk
/// (64 section blocks, 8 MiB of f64: the L2 of two cores, or L3) stays in the caches while the
/// sections read it, instead of a whole-signal intermediate written to memory and read back.
/// Measured on 2^22 f64 samples of butter(4, 0.1), two cores: 16 ms with chunks of 16 blocks
/// (each chunk joins the threads twice), 12.5 ms with 64, 19 ms with 128.
const CASCADE_CHUNK: usize = 64 * crate::cpu::sos::BLOCK;

/// One channel of a pole cascade, chunk by chunk: the numerator `ff` over the chunk (with the
/// inputs before it, or zi at the start) into a scratch buffer, then the all-pole sections
/// from their state in f64 carried across chunks (so the result equals one pass). Returns
/// whether a non-finite value appeared in the sections' state.
fn cascade_channel<T: Element>(
    ff: &[T],
    poles: &Sos<T>,
    x: &[T],
    zi: Option<&[T]>,
    y: &mut [T],
    threads: usize,
    fresh: bool,
) -> bool {
    let mut state = vec![0.0f64; 2 * poles.n_sections()];
    let mut u = vec![T::ZERO; CASCADE_CHUNK.min(x.len())];
    let mut nonfinite = false;
    let mut start = 0;
    while start < x.len() {
        let end = (start + CASCADE_CHUNK).min(x.len());
        let u = &mut u[..end - start];
        // The numerator reads x from memory: both halves of the chunk at once where there
        // are threads (one thread alone is bound by its share of the memory bandwidth).
        let half = (u.len() / 2).next_multiple_of(8);
        if threads > 1 && half >= 4096 && half < u.len() {
            let (u1, u2) = u.split_at_mut(half);
            std::thread::scope(|scope| {
                scope.spawn(|| fir_range(ff, x, zi, start + half, u2));
                fir_range(ff, x, zi, start, u1);
            });
        } else {
            fir_range(ff, x, zi, start, u);
        }
        nonfinite |= poles.run_channel(u, &mut y[start..end], &mut state, threads, fresh);
        start = end;
    }
    nonfinite
}

/// u[i] = Σ_j ff[j]·x[start + i − j] (terms with a negative index left out) + zi[start + i]
/// (within zi): [`fir_map`] for the outputs from `start` on, with the same roundings in the
/// same order. Where every term exists, [`LANES`] outputs at a time with all taps applied while
/// they stay in registers (one read of x and one write of u, instead of a pass per tap).
fn fir_range<T: Element>(ff: &[T], x: &[T], zi: Option<&[T]>, start: usize, u: &mut [T]) {
    #[cfg(target_arch = "x86_64")]
    {
        let arch = sigpu_runtime::host::CpuArch::host();
        if arch.avx512f {
            // SAFETY: the CPU has AVX-512F.
            return unsafe { fir_range_avx512(ff, x, zi, start, u) };
        }
        if arch.avx2_fma() {
            // SAFETY: the CPU has AVX2 and FMA.
            return unsafe { fir_range_avx2(ff, x, zi, start, u) };
        }
    }
    fir_range_body(ff, x, zi, start, u)
}

/// [`fir_range`] compiled for AVX-512 lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn fir_range_avx512<T: Element>(ff: &[T], x: &[T], zi: Option<&[T]>, start: usize, u: &mut [T]) {
    fir_range_body(ff, x, zi, start, u)
}

/// [`fir_range`] compiled for AVX2 lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn fir_range_avx2<T: Element>(ff: &[T], x: &[T], zi: Option<&[T]>, start: usize, u: &mut [T]) {
    fir_range_body(ff, x, zi, start, u)
}

#[inline(always)]
fn fir_range_body<T: Element>(ff: &[T], x: &[T], zi: Option<&[T]>, start: usize, u: &mut [T]) {
    let len = u.len();
    let k = ff.len() - 1;
    // Outputs before `full` lack some terms (x before the signal's start).
    let full = k.saturating_sub(start).min(len);
    u[..full].fill(T::ZERO);
    for (j, &f) in ff.iter().enumerate() {
        if j >= start + full {
            break;
        }
        let lo = j.saturating_sub(start);
        let src = &x[start + lo - j..start + full - j];
        for (ui, &xi) in u[lo..full].iter_mut().zip(src) {
            *ui = f.mul(xi).add(*ui);
        }
    }
    let mut i = full;
    while i + LANES <= len {
        let mut acc = [T::ZERO; LANES];
        for (j, &f) in ff.iter().enumerate() {
            let xs = &x[start + i - j..start + i - j + LANES];
            for (a, &v) in acc.iter_mut().zip(xs) {
                *a = f.mul(v).add(*a);
            }
        }
        u[i..i + LANES].copy_from_slice(&acc);
        i += LANES;
    }
    for (o, slot) in u.iter_mut().enumerate().skip(i) {
        let at = start + o;
        let mut acc = T::ZERO;
        for (j, &f) in ff.iter().enumerate() {
            acc = f.mul(x[at - j]).add(acc);
        }
        *slot = acc;
    }
    if let Some(zi) = zi {
        for (ui, &z) in u.iter_mut().zip(zi.iter().skip(start)) {
            *ui = ui.add(z);
        }
    }
}

/// Outputs of [`fir_range`] computed together: eight AVX-512 registers of f64, eight
/// independent chains of additions to cover their latency.
const LANES: usize = 64;

/// u[n] = Σ_j ff[j]·x[n−j] + zi[n] (n < len(zi)).
fn fir_map<T: Element>(ff: &[T], x: &[T], zi: Option<&[T]>, u: &mut [T]) {
    for (ui, &xi) in u.iter_mut().zip(x) {
        *ui = ff[0].mul(xi);
    }
    for (j, &f) in ff.iter().enumerate().skip(1) {
        if j >= x.len() {
            break;
        }
        for (ui, &xi) in u[j..].iter_mut().zip(x) {
            *ui = f.mul(xi).add(*ui);
        }
    }
    if let Some(zi) = zi {
        for (ui, &z) in u.iter_mut().zip(zi) {
            *ui = ui.add(z);
        }
    }
}

/// SciPy's transposed direct form II over one channel, with SciPy's order of operations
/// (`y = z0 + b0·x`, `z_m = (z_{m+1} + x·b_{m+1}) − y·a_{m+1}`), so that f64 results match it
/// bit for bit; `z` is zi on entry, zf on exit.
pub(crate) fn tdf2<T: Element>(b: &[T], a: &[T], x: &[T], y: &mut [T], z: &mut [T]) {
    let k = z.len();
    let coef = |v: &[T], i: usize| v.get(i).copied().unwrap_or(T::ZERO);
    let sub = |p: T, q: T| T::from_f64(p.to_f64() - q.to_f64());
    for (xi, yi) in x.iter().zip(y.iter_mut()) {
        let out = coef(z, 0).add(coef(b, 0).mul(*xi));
        for m in 0..k {
            let next = if m + 1 < k { z[m + 1] } else { T::ZERO };
            let t = if m + 1 < k {
                next.add(xi.mul(coef(b, m + 1)))
            } else {
                xi.mul(coef(b, m + 1))
            };
            z[m] = sub(t, out.mul(coef(a, m + 1)));
        }
        *yi = out;
    }
}

/// 1/A as all-pole sections (b = [1, 0, 0]) from A's polished roots, poles nearest the unit
/// circle last; with the output-error term of rounding each section to T, per unit
/// max|y|·‖h‖₁ (Σ_s ‖h_{1/A_s}‖₁·Σ|δa_s|), and ‖Π_s A_s − A‖₁, how far the f64 sections
/// multiply back from A (computed in double-double).
fn pole_cascade<T: Element>(
    a: &[f64],
    options: FilterOptions,
) -> Result<(Sos<T>, f64, f64), FilterError> {
    let fb: Vec<f64> = a[1..].iter().map(|v| -v).collect();
    let mut roots = crate::poles::roots(&fb);
    if !crate::poles::polish(&a[1..], &mut roots) {
        return Err(FilterError::Coefficients("the poles did not settle".into()));
    }
    let pairs = crate::poles::quadratic_factors(&roots)
        .ok_or_else(|| FilterError::Coefficients("the poles do not pair into conjugates".into()))?;
    let rows: Vec<[f64; 6]> = pairs
        .iter()
        .map(|(_, q)| [1.0, 0.0, 0.0, 1.0, q[1], q[2]])
        .collect();
    // The sections must multiply back to A (to the rounding of their coefficients): a root
    // finder that converged twice to one root, or not at all, is caught here.
    let (residual, worst) = crate::poles::product_residual(pairs.iter().map(|p| &p.1), a);
    if worst > 64.0 * f64::EPSILON {
        return Err(FilterError::Coefficients(format!(
            "the pole sections do not multiply back to a (relative residual {worst:.1e})"
        )));
    }
    let sos = Sos::<T>::new(
        &rows,
        FilterOptions {
            allow_unstable: false,
            ..options
        },
    )?;
    let u = eps::<T>();
    let extra: f64 = rows
        .iter()
        .map(|r| l1_cascade(&[*r]).0 * u * (r[4].abs() + r[5].abs()) * 2.0)
        .sum();
    Ok((sos, extra, residual))
}

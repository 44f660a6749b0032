//! Second-order sections (SciPy's `sosfilt` layout): a cascade of biquads, each row
//! `[b0, b1, b2, 1, a1, a2]`, run in transposed direct form II exactly as SciPy runs it, and
//! parallelised over blocks of the signal.
//!
//! **Blocked cascade.** The signal is cut into segments of [`SEG`] samples. Each segment is
//! filtered through the whole cascade from a zero state (8 segments interleaved per thread, so
//! that the biquads' dependency chains overlap in the core); its true output is that local
//! output plus the cascade's zero-input response to the true state at the segment's start —
//! a linear combination of 2·n_sections factor tables `F_j` (the response to a unit value in
//! state j). The true states are carried from segment to segment with the 2S×2S transfer
//! matrix in double-double. The factor tables and the transfer matrix are computed once per
//! filter in double-double and rounded once, never by the recurrence in the element type;
//! tables are cut where every entry falls below f64's ε·2⁻⁸ of their largest.
//!
//! **Any input spectrum.** Every run is in f64 whatever the signal's type (f32 signals are
//! widened, filtered with the coefficients as given, not rounded to f32, and their outputs
//! rounded once). Where the input's energy lies in the cascade's
//! stopband, the segments' zero-state transients (and the correction's terms) dwarf the true
//! output, and their rounding errors would too: the blocked run measures both for free and,
//! beyond `transient_limit` (and `CANCEL` times it), runs the channel again serially in f64
//! — for f64 signals SciPy's own loop. [`Sos::new`] bounds the engine's error per unit max|x|
//! and compares it with SciPy's serial bound ([`crate::Report`]); where blocking could not keep
//! the contract the cascade runs serially per channel instead.

use crate::bounds::{sos_bounds, SosBounds};
use crate::elem::Element;
use crate::engine::{Batch, Recurrence, Timing};
use crate::error::FilterError;
use crate::filter::{cpu_device, host_threads, FilterOptions, Strategy};
use crate::numbers::eps;
use crate::report::{Method, Report};
use crate::sos_rows::SectionLimit;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub use crate::cpu::sos::SEG;
/// Segments filtered interleaved by one thread.
const GROUP: usize = crate::cpu::sos::GROUP;
/// Channels shorter than this run serially.
const SERIAL_BELOW: usize = 2 * SEG * GROUP;
/// How far the blocked run's local (zero-state) outputs may exceed the true ones before the
/// channel is run again serially: their rounding errors scale with them, so where they exceed
/// the output by more than twice the ratio of T's rounding to f64's (the local run's), the
/// blocked error could exceed SciPy's serial error at T by more than the contract's 4×
/// (measured on stopband tones, chirps and steps: error ratios track the peak ratio, 9–500×
/// where it is 6–1,100×, ≤ 3× where it is ≤ 1.4×). 2 for f64 signals, 2^30 for f32 ones.
fn transient_limit<T: Element>() -> f64 {
    2.0 * eps::<T>() / eps::<f64>()
}

/// How far the correction's terms (Σ_j |state_j|·max|F_j| at a segment's start) may exceed the
/// output, in units of [`transient_limit`]: the correction's f64 rounding is ε·|terms| per
/// sample, not accumulated, while SciPy's serial error at T accumulates to hundreds of ε_T
/// (measured: butter(8, 0.005) on white noise reaches 164 with the blocked error a third of
/// SciPy's; sections with near-double poles at −1, r = 0.99995, on a step reach 1,600 with 12×).
const CANCEL: f64 = 256.0;

/// What a blocked run (CPU segments or GPU threads) measured of one channel, for the check
/// that its f64 arithmetic carried the cancellation between zero-state outputs and carry
/// corrections: the largest zero-state output, the largest correction term and the largest
/// output.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BlockedPeaks {
    /// The largest |zero-state output| of any segment and section.
    pub local: f64,
    /// The largest Σ_j |carry_j|·max|F_j| of any segment.
    pub correction: f64,
    /// The largest |output|.
    pub output: f64,
    /// Σ over the channel's threads (and chunks) of the largest carry-in correction term of any
    /// section (as `correction`) times the values per thread: with `output_sum`, how large the corrections
    /// are on average against the output, which a transient where the channel starts from its
    /// zero state cannot mask as it masks the peaks (the CPU engine weighs each segment's sum
    /// by the factor tables' length: the samples it corrects).
    pub correction_sum: f64,
    /// Σ |output| over the channel.
    pub output_sum: f64,
}

impl BlockedPeaks {
    /// Whether a blocked run with these peaks keeps the contract for signals of type `T`; if
    /// not, the channel is filtered again serially. NaN peaks (a non-finite input) count as kept:
    /// non-finite values are reported on their own.
    pub fn keeps_contract<T: Element>(&self) -> bool {
        let limit = transient_limit::<T>();
        !(self.local > limit * self.output
            || self.correction > CANCEL * limit * self.output
            || self.correction_sum > CANCEL * limit * self.output_sum)
    }
}

/// The largest pole radius at which a blocked run computing in the signal's own type (the GPU's
/// fast kernel, f32 on f32; f64 on f64 on the GPU and the CPU) keeps its result: nearer the unit circle its carries (summed over threads, warps
/// and chunks) lose more than SciPy's serial loop on stopband-heavy input even where the peaks
/// look harmless (measured: impulses through notches at r = 0.9993, 14× SciPy's error at a
/// correction peak of 0.66 of the output).
pub const SAME_TYPE_MAX_RADIUS: f64 = 0.999;

/// How far the correction terms of a kernel computing in the signal's type may exceed the
/// output (measured: white noise through butter(8, 0.1) 4.2×, butter(8, 0.02) 24×; misses of
/// 4.7–41× from 35× up on stopband input, and 5–13× at 12× on DC plus noise through a narrow
/// first-order band-pass, whose correction terms cancel each other).
pub const SAME_TYPE_MAX_CORRECTION: f64 = 8.0;

/// How far the correction terms of a kernel computing in the signal's type may exceed the
/// output on average (per sample, [`BlockedPeaks::correction_sum`] against
/// [`BlockedPeaks::output_sum`]). The peaks alone miss input whose output is large only where the
/// channel starts from its zero state: DC plus noise through a narrow band-pass (poles at
/// r = 0.918 near DC) has corrections 7× the output at their peaks, as white noise through the
/// same section has, but 1,400–2,500× on average (white noise: 8×), and f64 errors of 20–30 ε
/// where SciPy's loop was 2.4 ε.
pub const SAME_TYPE_MEAN_CORRECTION: f64 = 16.0;

/// Up to which passband correction ratio ([`crate::gpu::sos_tables::passband_correction`]) the
/// limit on the correction peak follows the design: as the poles near the unit circle by the
/// pass band, the correction terms grow against the output on any input, stopband or not
/// (butter(8, 0.05) on a step: 9.5× the output with the result within a quarter of the
/// contract's tolerance). Beyond, the stopband sweep's misses begin (ratios 25–30).
pub const SAME_TYPE_PASSBAND_UP_TO: f64 = 20.0;

/// How far above the passband ratio the correction peak may reach where the limit follows the
/// design ([`SAME_TYPE_PASSBAND_UP_TO`]). Calibrated on the emulation over 4,220 runs (292
/// scipy designs — Butterworth, Chebyshev I, elliptic; low, high and band pass; orders 1–10 —
/// under noise, steps and stopband signals, and the stopband sweep's resonant designs, f32 and
/// f64): 1.0, 1.2 and 1.5 kept 167, 210 and 259 more results than the fixed limit, none missing
/// the contract; the average limit ([`SAME_TYPE_MEAN_CORRECTION`]) stays fixed, and without it
/// 7 would have.
pub const SAME_TYPE_PASSBAND_FACTOR: f64 = 1.2;

/// The most sections a cascade may have (the set-up cost grows with its square).
pub const MAX_SECTIONS: usize = 128;

/// A cascade of second-order sections compiled for element type `T` (f32 or f64).
#[derive(Clone, Debug)]
pub struct Sos<T: Element> {
    /// Rows in T: b0 b1 b2 −a1 −a2 (negated feedback, for multiply-adds).
    rows: Vec<[T; 5]>,
    /// The rows the f64 engines compute with (`given`), b0 b1 b2 −a1 −a2.
    rows64: Vec<[f64; 5]>,
    /// The rows as given to `new` after rounding to T, as f64: [b0 b1 b2 1 a1 a2].
    coef: Vec<[f64; 6]>,
    /// The rows as given to `new` (for f64 signals, `coef`): what every engine computing in f64
    /// filters with (this cascade's, and the GPU's f64-arithmetic hand-back).
    given: Vec<[f64; 6]>,
    /// .0[j][i]: cascade output i samples into a segment for a unit state j (j = 2s + m);
    /// .1: the state after SEG samples of zero input, row-major 2S × 2S, in double-double: the
    /// high parts, then the low parts.
    tables: Tables,
    /// max_i |F_j[i]| per unit state j.
    factor_peaks: Vec<f64>,
    options: FilterOptions,
    blocked: bool,
    report: Report,
}

impl<T: Element> Sos<T> {
    /// Checks and compiles `sos` (rows `[b0, b1, b2, 1, a1, a2]`, SciPy's `(n_sections, 6)`):
    /// finite values, a0 = 1 exactly (SciPy does not normalise rows), each section stable in
    /// `T` (exact step-down) unless `options.allow_unstable`.
    pub fn new(sos: &[[f64; 6]], options: FilterOptions) -> Result<Self, FilterError> {
        let limit = SectionLimit {
            max: MAX_SECTIONS,
            engine: "the CPU cascade",
        };
        let coef = crate::sos_rows::checked_rows::<T>(sos, limit, !options.allow_unstable)?;
        let rows = coef
            .iter()
            .map(|r| {
                [
                    T::from_f64(r[0]),
                    T::from_f64(r[1]),
                    T::from_f64(r[2]),
                    T::from_f64(-r[4]),
                    T::from_f64(-r[5]),
                ]
            })
            .collect::<Vec<[T; 5]>>();
        // Every run computes in f64, and f32 signals with the coefficients as given: rounding them
        // to f32 would only add their error (a resonator by DC at r = 0.999984 rounded to f32
        // moves its output by 3.8%, where SciPy's f32 loop lands 0.9% off the design).
        let given: Vec<[f64; 6]> = match T::DTYPE {
            crate::elem::DType::F32 => sos.to_vec(),
            _ => coef.clone(),
        };
        let rows64 = (given.iter())
            .map(|r| [r[0], r[1], r[2], -r[4], -r[5]])
            .collect();
        let tables = factor_tables_cached(&given, T::DTYPE.size() == 4);
        let bounds = tables.2;
        // f64 signals compute in their own type: with poles nearer the unit circle than
        // SAME_TYPE_MAX_RADIUS the blocked run misses the contract on stopband input that its
        // peaks do not flag (measured: an impulse through high-passes at r = 0.99998, 5.1×
        // SciPy's error; DC plus noise through a resonator at r = 0.99938, 4.9×), so those run
        // SciPy's loop.
        let near_circle = T::DTYPE == crate::elem::DType::F64
            && crate::bounds::max_pole_radius(&coef) > SAME_TYPE_MAX_RADIUS;
        let blocked = options.strategy != Strategy::Serial
            && (options.strategy == Strategy::Chunked
                || (bounds.blocked <= 4.0 * bounds.serial && !near_circle));
        let report = Report {
            method: if blocked {
                Method::Sos
            } else {
                Method::SosSerial
            },
            // Blocked or serial, the engine runs in f64 and rounds its output once (for f64
            // signals the serial run is SciPy's own loop).
            error_bound: if blocked {
                bounds.blocked
            } else {
                bounds.blocked.min(bounds.serial)
            },
            reference_bound: bounds.serial,
        };
        let factor_peaks = tables
            .0
            .iter()
            .map(|f| f.iter().fold(0.0f64, |m, v| m.max(v.abs())))
            .collect();
        Ok(Sos {
            given,
            factor_peaks,
            rows,
            rows64,
            coef,
            tables,
            options,
            blocked,
            report,
        })
    }

    pub fn n_sections(&self) -> usize {
        self.rows.len()
    }

    /// The sections as `T` holds them, `[b0, b1, b2, 1, a1, a2]` per row.
    pub fn sections(&self) -> &[[f64; 6]] {
        &self.coef
    }

    /// The sections as given to [`Sos::new`], `[b0, b1, b2, 1, a1, a2]` per row.
    pub fn given_sections(&self) -> &[[f64; 6]] {
        &self.given
    }

    /// The options the cascade was built with.
    pub fn options(&self) -> &FilterOptions {
        &self.options
    }

    /// [`Recurrence::apply_batch`]; returns whether a non-finite value appeared in a state (a
    /// non-finite input, or an overflow). `fresh`: y was just allocated and never written
    /// ([`crate::cpu::output_vec`]): its pages are zeroed by the kernel on the first write and
    /// those lines are still in the caches, so plain stores beat non-temporal ones (measured:
    /// 10–20% less time for a fresh 2^22–2^26-sample output, while a reused output ≥ 8 MiB is
    /// faster with non-temporal stores).
    pub(crate) fn apply_batch_flagged(&self, batch: Batch<'_, T>) -> Result<bool, FilterError> {
        let s2 = self.state_len();
        let n = batch.samples(s2, &format!("× {} sections × 2", self.n_sections()))?;
        let (x, channels, fresh) = (batch.x, batch.channels, batch.fresh.is_some());
        let (y, zi, zf) = (batch.y, batch.zi, batch.zf);
        let threads = self.options.threads.unwrap_or_else(host_threads).max(1);
        let mut states = vec![0.0f64; channels * s2];
        if let Some(zi) = zi {
            for (s, z) in states.iter_mut().zip(zi) {
                *s = z.to_f64();
            }
        }
        let nonfinite = std::sync::atomic::AtomicBool::new(false);
        if n > 0 {
            let per_channel_threads = if channels >= threads { 1 } else { threads };
            let next = AtomicUsize::new(0);
            let work: Vec<Mutex<(&mut [T], &mut [f64])>> = y
                .chunks_mut(n)
                .zip(states.chunks_mut(s2))
                .map(Mutex::new)
                .collect();
            let workers = threads.min(channels).max(1);
            // The caller's cancellation token, carried into the workers' threads.
            let cancel = sigpu_runtime::cancel::Cancel::current();
            let worker = || {
                cancel.scope(|| loop {
                    if cancel.is_cancelled() {
                        break;
                    }
                    let c = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = work.get(c) else { break };
                    let mut item = item.lock().unwrap_or_else(|p| p.into_inner());
                    let (yc, st) = &mut *item;
                    let xc = &x[c * n..(c + 1) * n];
                    if self.run_channel(xc, yc, st, per_channel_threads, fresh) {
                        nonfinite.store(true, Ordering::Relaxed);
                    }
                })
            };
            // One worker runs on the caller's thread: spawning a thread per call costs more
            // than filtering a short block.
            std::thread::scope(|scope| {
                for _ in 1..workers {
                    scope.spawn(worker);
                }
                worker();
            });
        }
        if let Some(zf) = zf {
            for (z, s) in zf.iter_mut().zip(&states) {
                *z = T::from_f64(*s);
            }
        }
        Ok(nonfinite.into_inner() || states.iter().any(|v| !v.is_finite()))
    }

    /// One channel; `state` holds zi on entry and zf on exit (in f64, so a channel run in
    /// pieces equals one run). Returns whether a non-finite value appeared in the filter's
    /// state.
    pub(crate) fn run_channel(
        &self,
        x: &[T],
        y: &mut [T],
        state: &mut [f64],
        threads: usize,
        fresh: bool,
    ) -> bool {
        let n = x.len();
        let serial = !self.blocked
            || match self.options.strategy {
                Strategy::Serial => true,
                Strategy::Chunked => n < SEG,
                Strategy::Auto => n < SERIAL_BELOW,
            };
        if serial {
            self.serial_wide(x, y, state);
            return state.iter().any(|v| !v.is_finite());
        }
        let whole = n / SEG * SEG;
        let s2 = state.len();
        let plan = crate::cpu::sos::Plan {
            rows: &self.rows,
            rows64: &self.rows64,
            factors: &self.tables.0,
            factor_peaks: &self.factor_peaks,
            transfer: &self.tables.1[..s2 * s2],
            transfer_lo: &self.tables.1[s2 * s2..],
            kernel: crate::cpu::sos_isa(&self.options.cpu),
            scipy_order: T::DTYPE == crate::elem::DType::F64,
            stream: !fresh && std::mem::size_of_val(y) >= crate::cpu::STREAM_BYTES,
            help_after: crate::cpu::sos::HELP_AFTER,
        };
        let zi = state.to_vec();
        let outcome = crate::cpu::sos::run_whole_segments(
            &plan,
            &x[..whole],
            &mut y[..whole],
            state,
            threads,
        );
        // The partial last segment runs serially from the true state, which also gives zf: in
        // f64 like the blocks (for f64 signals, exactly SciPy's loop).
        self.serial_wide(&x[whole..], &mut y[whole..], state);
        if outcome.nonfinite || state.iter().any(|v| !v.is_finite()) {
            return true;
        }
        let peak = y[whole..]
            .iter()
            .fold(outcome.peak, |m, v| m.max(v.to_f64().abs()));
        let tail_sum: f64 = y[whole..].iter().map(|v| v.to_f64().abs()).sum();
        let peaks = BlockedPeaks {
            local: outcome.local_peak,
            correction: outcome.correction_peak,
            output: peak,
            correction_sum: outcome.correction_sum,
            output_sum: outcome.output_sum + tail_sum,
        };
        if !peaks.keeps_contract::<T>() {
            // The input's energy lies where the cascade attenuates: the segments' zero-state
            // transients, or the correction's terms, dwarf the output, and so would their
            // rounding errors. The channel runs again serially, in f64 (for f64 signals SciPy's
            // own loop, which keeps the contract by construction).
            state.copy_from_slice(&zi);
            self.serial_wide(x, y, state);
        }
        state.iter().any(|v| !v.is_finite())
    }

    /// One channel by SciPy's loop in f64 with the coefficients as given (for f64 signals
    /// SciPy's own loop, which keeps the contract by construction): (y, zf) from `zi` (or the
    /// zero state): the GPU's hand-back.
    pub(crate) fn serial_channel(&self, x: &[T], zi: Option<&[T]>) -> (Vec<T>, Vec<T>) {
        let mut state: Vec<f64> = match zi {
            Some(z) => z.iter().map(|v| v.to_f64()).collect(),
            None => vec![0.0; 2 * self.rows.len()],
        };
        let mut y = vec![T::ZERO; x.len()];
        self.serial_wide(x, &mut y, &mut state);
        (y, state.into_iter().map(T::from_f64).collect())
    }

    /// SciPy's loop with the state and arithmetic in f64 whatever T is, each output rounded
    /// once to T.
    fn serial_wide(&self, x: &[T], y: &mut [T], state: &mut [f64]) {
        crate::cpu::sos::scipy_loop(&self.rows64, x, state, |i, v| y[i] = T::from_f64(v));
    }
}

/// The CPU engine of a section cascade: blocked where that keeps the contract, else serial.
impl<T: Element> Recurrence<T> for Sos<T> {
    /// The method and the predicted error bound.
    fn report(&self) -> &Report {
        &self.report
    }

    /// State values per channel: 2 per section (SciPy's zi for one channel, `(n_sections, 2)`).
    fn state_len(&self) -> usize {
        2 * self.rows.len()
    }

    fn sections(&self) -> Option<usize> {
        Some(self.rows.len())
    }

    fn device(&self) -> String {
        cpu_device(&self.options, self.report.method)
    }

    /// `zi` / `zf` hold `[channel][section][2]` (2·n_sections values per channel). A fresh
    /// batch's non-finite input is found through the state (only then is x searched, to name
    /// it); plain stores into its output. y and zf are unspecified after an error.
    fn run(&self, batch: Batch<'_, T>) -> Result<Timing, FilterError> {
        let (start, x, fresh) = (Instant::now(), batch.x, batch.fresh);
        if self.apply_batch_flagged(batch)? {
            if let Some(what) = fresh {
                return Err(crate::filter::nonfinite_run(x, what));
            }
        }
        Ok(Timing::since(start))
    }
}

/// Factor tables and transfer matrix of one cascade ([`factor_tables`]) and its error bounds
/// ([`sos_bounds`]), shared between the filters compiled from the same rows.
pub(crate) type Tables = Arc<(Vec<Vec<f64>>, Vec<f64>, SosBounds)>;

/// [`factor_tables`] and the bounds through a small per-process cache keyed by the rows' bits:
/// filtering many signals with the same sections (blocks of a stream, a loop over files,
/// repeated `sosfilt` calls from Python) computes the double-double tables once.
pub(crate) fn factor_tables_cached(coef: &[[f64; 6]], single: bool) -> Tables {
    type Key = (Vec<u64>, bool);
    static CACHE: Mutex<Vec<(Key, Tables)>> = Mutex::new(Vec::new());
    const KEEP: usize = 8;
    let key: Key = (coef.iter().flatten().map(|v| v.to_bits()).collect(), single);
    {
        let cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, t)) = cache.iter().find(|(k, _)| *k == key) {
            return t.clone();
        }
    }
    let (factors, transfer) = factor_tables(coef);
    let eps = if single { eps::<f32>() } else { eps::<f64>() };
    let bounds = sos_bounds(coef, &factors, eps);
    let tables: Tables = Arc::new((factors, transfer, bounds));
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if cache.len() >= KEEP {
        cache.remove(0);
    }
    cache.push((key, tables.clone()));
    tables
}

/// The cascade's zero-input output for each unit state over SEG samples, and the transfer
/// matrix, in double-double ([`crate::cascade_tables`]: the tables by the adjoint recursion,
/// the transfer matrix by binary powering): the transfer matrix's high parts, then its low
/// parts. Tables are cut after the last entry above f64's ε·2⁻⁸ of their peak.
pub(crate) fn factor_tables(coef: &[[f64; 6]]) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut tables = crate::cascade_tables::unit_state_tables(coef, SEG);
    let dd = crate::cascade_tables::transfer(coef, SEG);
    let hi = dd.iter().map(|v| v.to_f64());
    let lo = dd
        .iter()
        .map(|v| v.sub(crate::dd::Dd::new(v.to_f64())).to_f64());
    let transfer: Vec<f64> = hi.chain(lo).collect();
    // Cut at f64's rounding whatever the signal's type: the engine corrects in f64, and where
    // the input lies in the stopband the carried states exceed the output by orders of
    // magnitude, so a table cut at f32's rounding would leave errors far above it.
    let eps = f64::EPSILON;
    let mut len = 0;
    for t in &tables {
        let peak = t.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if let Some(last) = t.iter().rposition(|v| v.abs() > peak * eps / 256.0) {
            len = len.max(last + 1);
        }
    }
    for t in &mut tables {
        t.truncate(len);
    }
    (tables, transfer)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    const BLOCK_SAMPLES: usize = crate::cpu::sos::BLOCK;

    // scipy's values as printed (17 digits round-trip).
    #[allow(clippy::excessive_precision)]
    pub(crate) fn butter4() -> Vec<[f64; 6]> {
        // scipy.signal.butter(4, 0.05, output='sos')
        vec![
            [
                3.1238976917082617e-05,
                6.2477953834165235e-05,
                3.1238976917082617e-05,
                1.0,
                -1.7259333950369407,
                7.4744737190779109e-01,
            ],
            [
                1.0,
                2.0,
                1.0,
                1.0,
                -1.8638004920752349,
                8.8703299965269455e-01,
            ],
        ]
    }

    #[test]
    fn blocked_equals_serial_and_streams() {
        let sos = butter4();
        let n = 3 * SERIAL_BELOW + 1234;
        let x: Vec<f64> = (0..n)
            .map(|i| ((i * 7919) % 1013) as f64 / 506.0 - 1.0)
            .collect();
        let opts = FilterOptions {
            threads: Some(3),
            ..FilterOptions::default()
        };
        let f = Sos::<f64>::new(&sos, opts).unwrap();
        assert_eq!(f.report().method, Method::Sos);
        let serial = Sos::<f64>::new(
            &sos,
            FilterOptions {
                strategy: Strategy::Serial,
                ..opts
            },
        )
        .unwrap();
        let zi = [0.1, -0.2, 0.3, 0.05];
        let (y, zf) = f.apply(&x, Some(&zi)).unwrap();
        let (ys, zfs) = serial.apply(&x, Some(&zi)).unwrap();
        let peak = ys.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let err = y
            .iter()
            .zip(&ys)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(err <= 1e-13 * peak, "{err}");
        for (a, b) in zf.iter().zip(&zfs) {
            assert!((a - b).abs() <= 1e-13 * peak, "{a} {b}");
        }
        // Two halves with the carried state equal one pass.
        let cut = n / 2 + 17;
        let (y1, z1) = f.apply(&x[..cut], Some(&zi)).unwrap();
        let (y2, z2) = f.apply(&x[cut..], Some(&z1)).unwrap();
        let joined: Vec<f64> = y1.into_iter().chain(y2).collect();
        let err = joined
            .iter()
            .zip(&ys)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(err <= 1e-13 * peak, "{err}");
        assert!((z2[3] - zfs[3]).abs() <= 1e-13 * peak);
    }

    /// Sections with poles of radius `r` at angles spread over (0, π/2), unit DC gain.
    fn cascade(n: usize, r: f64) -> Vec<[f64; 6]> {
        (0..n)
            .map(|s| {
                let th = 0.2 + 0.3 * s as f64;
                let (a1, a2) = (-2.0 * r * th.cos(), r * r);
                let g = (1.0 + a1 + a2) / 4.0;
                [g, 2.0 * g, g, 1.0, a1, a2]
            })
            .collect()
    }

    #[test]
    fn every_kernel_and_section_count_equals_serial() {
        use sigpu_runtime::host::CpuArch;
        let host = CpuArch::host();
        let arches = [
            host,
            CpuArch {
                avx512f: false,
                ..host
            },
            CpuArch::scalar(),
        ];
        let n = BLOCK_SAMPLES * 3 + 5 * SEG + 777;
        let x: Vec<f64> = (0..n)
            .map(|i| ((i * 7919) % 1013) as f64 / 506.0 - 1.0)
            .collect();
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        for sections in [1, 3, 4, 5, 9] {
            let sos = cascade(sections, 0.97);
            let zi: Vec<f64> = (0..2 * sections).map(|j| 0.1 * j as f64 - 0.3).collect();
            let zi32: Vec<f32> = zi.iter().map(|&v| v as f32).collect();
            let serial_opts = FilterOptions {
                strategy: Strategy::Serial,
                ..FilterOptions::default()
            };
            let (ys, zfs) = Sos::<f64>::new(&sos, serial_opts)
                .unwrap()
                .apply(&x, Some(&zi))
                .unwrap();
            let (ys32, _) = Sos::<f32>::new(&sos, serial_opts)
                .unwrap()
                .apply(&x32, Some(&zi32))
                .unwrap();
            let peak = ys.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let serial32 = ys32
                .iter()
                .zip(&ys)
                .fold(0.0f64, |m, (a, b)| m.max((*a as f64 - b).abs()));
            for cpu in arches {
                for threads in [1, 2, 3] {
                    let opts = FilterOptions {
                        threads: Some(threads),
                        cpu,
                        strategy: Strategy::Chunked,
                        ..FilterOptions::default()
                    };
                    let f = Sos::<f64>::new(&sos, opts).unwrap();
                    let (y, zf) = f.apply(&x, Some(&zi)).unwrap();
                    let err = y
                        .iter()
                        .zip(&ys)
                        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
                    let what = format!("{sections} sections, {cpu:?}, {threads} threads");
                    assert!(err <= 1e-12 * peak, "{what}: {err}");
                    for (a, b) in zf.iter().zip(&zfs) {
                        assert!((a - b).abs() <= 1e-12 * peak, "{what}: zf {a} {b}");
                    }
                    let (y32, _) = Sos::<f32>::new(&sos, opts)
                        .unwrap()
                        .apply(&x32, Some(&zi32))
                        .unwrap();
                    let err32 = y32
                        .iter()
                        .zip(&ys)
                        .fold(0.0f64, |m, (a, b)| m.max((*a as f64 - b).abs()));
                    assert!(
                        err32 <= 4.0 * serial32.max(1e-6 * peak),
                        "{what}: f32 {err32}"
                    );
                }
            }
        }
    }

    /// One channel into a fresh output, non-finite input named x.
    fn fresh<'a>(x: &'a [f64], y: &'a mut [f64]) -> Batch<'a, f64> {
        Batch {
            x,
            channels: 1,
            y,
            zi: None,
            zf: None,
            fresh: Some("x"),
        }
    }

    #[test]
    fn non_finite_inputs_are_found_through_the_state() {
        let sos = butter4();
        let n = 3 * SERIAL_BELOW + 99;
        let mut x: Vec<f64> = (0..n).map(|i| (i % 17) as f64 - 8.0).collect();
        let opts = FilterOptions {
            threads: Some(2),
            ..FilterOptions::default()
        };
        let f = Sos::<f64>::new(&sos, opts).unwrap();
        let mut y = vec![0.0; n];
        for at in [0, SEG - 1, 2 * BLOCK_SAMPLES + 3, n - 1] {
            let keep = x[at];
            x[at] = if at % 2 == 0 { f64::NAN } else { f64::INFINITY };
            let e = f.run(fresh(&x, &mut y)).unwrap_err().to_string();
            assert!(e.contains(&format!("x[{at}]")), "{at}: {e}");
            x[at] = keep;
        }
        assert!(f.run(fresh(&x, &mut y)).is_ok());
    }

    #[test]
    fn bad_sections_are_refused() {
        let opts = FilterOptions::default();
        let mut s = butter4();
        s[1][3] = 2.0;
        let e = Sos::<f64>::new(&s, opts).unwrap_err().to_string();
        assert!(e.contains("sos[1, 3]") && e.contains("a0 = 1"), "{e}");
        let mut s = butter4();
        s[0][1] = f64::NAN;
        let e = Sos::<f64>::new(&s, opts).unwrap_err().to_string();
        assert!(e.contains("sos[0, 1]"), "{e}");
        let mut s = butter4();
        s[0][5] = 1.2;
        let e = Sos::<f64>::new(&s, opts).unwrap_err().to_string();
        assert!(
            e.contains("unstable") && e.contains("--allow-unstable"),
            "{e}"
        );
        assert!(Sos::<f64>::new(&[], opts).is_err());
        assert!(Sos::<i32>::new(&butter4(), opts).is_err());
    }
}

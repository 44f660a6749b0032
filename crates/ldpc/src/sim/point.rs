//! One SNR point's counts and rates, and when a point stops.

use serde::{Deserialize, Serialize};

/// One SNR point's counts and rates.
///
/// Read from a file, a point's BER interval is computed again from its counts
/// ([`PointResult::ber_interval`]), whatever the file says: files written before
/// `bit_errors_sq` was kept carry bit-independent intervals, far too narrow, and get the
/// worst case over every spread of their bit errors instead (`ber_ci_method`
/// `"frames-worst-case"`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(from = "PointFile")]
pub struct PointResult {
    /// Es/N0, dB.
    pub es_n0_db: f64,
    /// Eb/N0, dB.
    pub eb_n0_db: f64,
    /// Frames simulated.
    pub frames: u64,
    /// Frames with an information-bit error.
    pub frame_errors: u64,
    /// Information-bit errors.
    pub bit_errors: u64,
    /// Σ over frames of (the frame's bit errors)²: with `bit_errors` and `frames` the spread of
    /// errors between frames, which the BER interval needs (0 in files from before it: their
    /// points get [`ber_interval_worst_case`]).
    pub bit_errors_sq: u64,
    /// Information bits sent.
    pub info_bits: u64,
    /// Bit error rate over information bits.
    pub ber: f64,
    /// Frame error rate.
    pub fer: f64,
    /// 95% intervals: FER a Wilson interval over frames; BER see [`ber_interval`] (bit errors
    /// cluster in frames, so bits are not independent trials) and `ber_ci_method`.
    pub ber_ci: [f64; 2],
    /// 95% Wilson interval of the FER.
    pub fer_ci: [f64; 2],
    /// Which construction gave `ber_ci`.
    pub ber_ci_method: BerCiMethod,
    /// Decoder iterations per frame.
    pub mean_iterations: f64,
    /// Wall time of the point, s.
    pub seconds: f64,
    /// Frames simulated per second (`frames / seconds`: making, decoding and counting).
    pub frames_per_s: f64,
    /// Information bits per second, Mbit/s (`frames · K / seconds`).
    pub info_mbps: f64,
    /// Code bits per second, Mbit/s (`frames · N / seconds`).
    pub coded_mbps: f64,
}

/// Which construction a point's BER interval comes from (`ber_ci_method` in sweep files).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BerCiMethod {
    /// [`ber_interval`]: Student-t / Wilson over frames from the frames' spread of bit
    /// errors (Σ eᵢ² known).
    #[default]
    FramesT,
    /// [`ber_interval_worst_case`]: Σ eᵢ² is not known (a file written before it was kept) or
    /// does not fit the counts, so the interval is the widest that any spread of the bit
    /// errors over the failed frames gives.
    FramesWorstCase,
}

impl BerCiMethod {
    /// As sweep files spell it: `frames-t` or `frames-worst-case`.
    pub fn name(self) -> &'static str {
        match self {
            BerCiMethod::FramesT => "frames-t",
            BerCiMethod::FramesWorstCase => "frames-worst-case",
        }
    }
}

/// A point as files hold it: `bit_errors_sq` and `ber_ci_method` may be missing (files from
/// before them), and `ber_ci` is replaced by the interval the counts give.
#[derive(Deserialize)]
struct PointFile {
    es_n0_db: f64,
    eb_n0_db: f64,
    frames: u64,
    frame_errors: u64,
    bit_errors: u64,
    #[serde(default)]
    bit_errors_sq: u64,
    info_bits: u64,
    ber: f64,
    fer: f64,
    ber_ci: [f64; 2],
    fer_ci: [f64; 2],
    mean_iterations: f64,
    seconds: f64,
    /// N: files from before the rates were kept lack it, and their points no coded rate.
    #[serde(default)]
    coded_mbps: f64,
}

impl From<PointFile> for PointResult {
    fn from(f: PointFile) -> PointResult {
        let mut p = PointResult {
            es_n0_db: f.es_n0_db,
            eb_n0_db: f.eb_n0_db,
            frames: f.frames,
            frame_errors: f.frame_errors,
            bit_errors: f.bit_errors,
            bit_errors_sq: f.bit_errors_sq,
            info_bits: f.info_bits,
            ber: f.ber,
            fer: f.fer,
            ber_ci: f.ber_ci,
            fer_ci: f.fer_ci,
            ber_ci_method: BerCiMethod::FramesT,
            mean_iterations: f.mean_iterations,
            seconds: f.seconds,
            frames_per_s: 0.0,
            info_mbps: 0.0,
            coded_mbps: 0.0,
        };
        (p.ber_ci, p.ber_ci_method) = p.ber_interval();
        // The rates again from the counts; the coded one from the file's (N is not kept).
        p.update_throughput(None);
        if p.coded_mbps == 0.0 && p.seconds > 0.0 {
            p.coded_mbps = f.coded_mbps;
        }
        p
    }
}

impl PointResult {
    /// The point on one line of text: SNR, counts, rates with their intervals, speed — what
    /// `sigpu ldpc simulate` prints per point.
    pub fn summary(&self) -> String {
        // A point of an old file (no Σ e²) has the worst case over spreads: said beside it.
        let worst = match self.ber_ci_method {
            BerCiMethod::FramesWorstCase => " (worst case over spreads)",
            BerCiMethod::FramesT => "",
        };
        let p = self;
        format!(
            "Es/N0 {:.2} dB (Eb/N0 {:.2}): {} frames, {} frame errors, BER {:.3e} [{:.2e}, {:.2e}]{worst}, FER {:.3e} [{:.2e}, {:.2e}], {:.1} iterations/frame, {:.1} s ({:.0} frames/s, {:.1} Mbps information, {:.1} Mbps coded)",
            p.es_n0_db, p.eb_n0_db, p.frames, p.frame_errors, p.ber, p.ber_ci[0], p.ber_ci[1], p.fer, p.fer_ci[0], p.fer_ci[1], p.mean_iterations, p.seconds,
            p.frames_per_s, p.info_mbps, p.coded_mbps
        )
    }

    /// The tally so far, for a progress line: frame errors, BER and FER.
    pub fn progress(&self) -> String {
        let (errors, ber, fer) = (self.frame_errors, self.ber, self.fer);
        format!("{errors} frame errors, BER {ber:.2e}, FER {fer:.2e}")
    }

    pub(super) fn new(es_n0_db: f64, eb_n0_db: f64) -> PointResult {
        PointResult {
            es_n0_db,
            eb_n0_db,
            frames: 0,
            frame_errors: 0,
            bit_errors: 0,
            bit_errors_sq: 0,
            info_bits: 0,
            ber: 0.0,
            fer: 0.0,
            ber_ci: [0.0, 1.0],
            fer_ci: [0.0, 1.0],
            ber_ci_method: BerCiMethod::FramesT,
            mean_iterations: 0.0,
            seconds: 0.0,
            frames_per_s: 0.0,
            info_mbps: 0.0,
            coded_mbps: 0.0,
        }
    }

    /// The point without its timing (seconds and rates zeroed): what two runs of one point
    /// on any devices agree on.
    pub fn untimed(&self) -> PointResult {
        PointResult {
            seconds: 0.0,
            frames_per_s: 0.0,
            info_mbps: 0.0,
            coded_mbps: 0.0,
            ..self.clone()
        }
    }

    /// `frames_per_s`, `info_mbps` and (given N) `coded_mbps` from the counts and `seconds`.
    pub(super) fn update_throughput(&mut self, n: Option<u64>) {
        if self.seconds > 0.0 {
            self.frames_per_s = self.frames as f64 / self.seconds;
            self.info_mbps = self.info_bits as f64 / self.seconds / 1e6;
            if let Some(n) = n {
                self.coded_mbps = (self.frames * n) as f64 / self.seconds / 1e6;
            }
        }
    }

    /// Information bits per frame.
    pub fn k(&self) -> u64 {
        self.info_bits / self.frames.max(1)
    }

    /// The BER interval the counts give and how: [`ber_interval`] when `bit_errors_sq` fits
    /// the counts ([`spread_fits`]), else [`ber_interval_worst_case`] (files written before
    /// `bit_errors_sq` was kept hold 0 there).
    pub fn ber_interval(&self) -> ([f64; 2], BerCiMethod) {
        let (f, k, m, e) = (self.frames, self.k(), self.frame_errors, self.bit_errors);
        if spread_fits(f, k, m, e, self.bit_errors_sq) {
            let ci = ber_interval(f, k, m, e, self.bit_errors_sq);
            (ci, BerCiMethod::FramesT)
        } else {
            (
                ber_interval_worst_case(f, k, m, e),
                BerCiMethod::FramesWorstCase,
            )
        }
    }

    pub(super) fn update_rates(&mut self) {
        self.ber = self.bit_errors as f64 / self.info_bits.max(1) as f64;
        self.fer = self.frame_errors as f64 / self.frames.max(1) as f64;
        self.fer_ci = wilson(self.frame_errors, self.frames);
        (self.ber_ci, self.ber_ci_method) = self.ber_interval();
    }
}

/// z for a two-sided 95% interval: Φ⁻¹(0.975).
const Z95: f64 = 1.959_963_984_540_054;

/// Degrees of freedom above which [`ber_interval`] takes the normal quantile for t's.
const T_DF_MAX: f64 = 1e5;

/// 95% Wilson score interval for `k` successes in `n` trials; exactly 0 below when `k` is 0
/// and exactly 1 above when `k` is `n` (the formula gives those only up to rounding).
pub fn wilson(k: u64, n: u64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let [lo, hi] = wilson_real(k as f64, n as f64, Z95);
    [if k == 0 { 0.0 } else { lo }, if k == n { 1.0 } else { hi }]
}

/// The Wilson interval for a real (effective) count `k` of `n` (effective) trials, `z` the
/// quantile.
fn wilson_real(k: f64, n: f64, z: f64) -> [f64; 2] {
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let center = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    [(center - half).max(0.0), (center + half).min(1.0)]
}

/// 95% interval for the BER of `frames` frames of `k` information bits each, `frame_errors`
/// of them failed, `errors` bit errors in all and `errors_sq` the sum over frames of each
/// frame's errors squared.
///
/// A decoder fails a frame with many bit errors at once, so bits are not independent trials
/// and a binomial interval over bits is far too narrow (4 errors in one frame would claim
/// the BER to within a factor 7). The frames are: the interval is a Wilson interval on the
/// effective sample size (Kish's design effect, as Korn & Graubard do for clustered surveys):
///
/// - the BER is the mean of the frames' error fractions rᵢ = eᵢ/k; its cluster-robust
///   (frame-level) variance is s²/F, s² the sample variance of the rᵢ over the F frames;
/// - the design effect d = (s²/F) / (p(1−p)/(F·k)) compares it with the binomial variance,
///   taken at least 1 (never narrower than the binomial interval);
/// - the interval is Wilson's for p·n/d errors of n/d bits, n = F·k, with the Student-t
///   quantile of `frame_errors` degrees of freedom in place of the normal one: the spread is
///   learnt from the failed frames alone, and with a handful of them it is itself uncertain
///   (the normal quantile covered 85–89% in simulations with 1–6 failed frames; with t,
///   95–99%; with 100 failed frames t is 1.98, the normal 1.96;
///   `scripts/ber_interval_coverage.py`); beyond 10⁵ failed frames the normal quantile.
///
/// With a single frame the spread is unknown and every bit is taken as possibly alike
/// (d = k: the frame is the trial). With no error the lower bound is exactly 0 and the upper
/// the FER's (a failed frame may carry up to k bit errors, and nothing shows how many): at
/// least as wide as any clustering allows. Checked against a frame-level bootstrap
/// (resampling whole frames) in the tests. Without Σ eᵢ² (old sweep files), see
/// [`ber_interval_worst_case`].
pub fn ber_interval(
    frames: u64,
    k: u64,
    frame_errors: u64,
    errors: u64,
    errors_sq: u64,
) -> [f64; 2] {
    ber_interval_sq(frames, k, frame_errors, errors, errors_sq as f64)
}

/// [`ber_interval`] with Σ eᵢ² as a real number (the worst case's may pass u64, and
/// infinity stands for "any spread": d = k).
fn ber_interval_sq(
    frames: u64,
    k: u64,
    frame_errors: u64,
    errors: u64,
    errors_sq: f64,
) -> [f64; 2] {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let n = frames as f64 * k as f64;
    if frames == 0 || k == 0 {
        return [0.0, 1.0];
    }
    if errors == 0 {
        return [0.0, wilson(0, frames)[1]];
    }
    let p = (errors as f64 / n).min(1.0);
    let (f, kf) = (frames as f64, k as f64);
    let deff = if frames < 2 || p >= 1.0 {
        kf
    } else {
        let e = errors as f64;
        let s2 = (errors_sq - e * e / f).max(0.0) / (kf * kf * (f - 1.0));
        (s2 / f / (p * (1.0 - p) / n)).clamp(1.0, kf)
    };
    // Beyond 10⁵ degrees of freedom t is the normal quantile to 1.2e-5 (statrs' own error
    // there is of that order, and its inverse slows down without bound as they grow).
    let df = frame_errors.max(1) as f64;
    let z = match df <= T_DF_MAX {
        true => StudentsT::new(0.0, 1.0, df).map_or(Z95, |t| t.inverse_cdf(0.975)),
        false => Z95,
    };
    let n_eff = n / deff;
    let [lo, hi] = wilson_real(p * n_eff, n_eff, z);
    [lo, if p >= 1.0 { 1.0 } else { hi }]
}

/// Whether `frame_errors` failed frames of `k` information bits, out of `frames`, can hold
/// `errors` bit errors: a frame fails on its information bits, so each failed frame holds
/// between 1 and k of them.
fn counts_fit(frames: u64, k: u64, frame_errors: u64, errors: u64) -> bool {
    let (m, e) = (frame_errors as u128, errors as u128);
    frame_errors <= frames && m <= e && e <= m * k as u128
}

/// The largest Σ eᵢ² of `errors` bit errors spread over `frame_errors` failed frames, each
/// holding 1 to k of them: as many frames full (k errors) as the errors allow, one frame
/// with the rest, the others with one error each (the spread that majorises every other;
/// Σ eᵢ² is Schur-convex). Infinite when the counts fit no spread (fewer bit errors than
/// failed frames, more than they hold, or more failed frames than frames).
pub fn max_errors_sq(frames: u64, k: u64, frame_errors: u64, errors: u64) -> f64 {
    if errors == 0 && frame_errors == 0 {
        return 0.0;
    }
    if !counts_fit(frames, k, frame_errors, errors) {
        return f64::INFINITY;
    }
    let (m, e, k) = (frame_errors as u128, errors as u128, k as u128);
    if k == 1 {
        return e as f64;
    }
    // Each failed frame holds one error; the spare errors fill frames to k one after another.
    let spare = e - m;
    let full = (spare / (k - 1)).min(m);
    let rest = spare - full * (k - 1);
    // In f64: full·k² may pass u128 for counts no file holds.
    let k2 = (k * k) as f64;
    if full == m {
        m as f64 * k2
    } else {
        full as f64 * k2 + ((1 + rest) * (1 + rest)) as f64 + (m - full - 1) as f64
    }
}

/// Whether `errors_sq` is a Σ eᵢ² that some spread of `errors` bit errors over
/// `frame_errors` failed frames (each holding 1 to k) gives: from E²/m (all alike) to
/// [`max_errors_sq`]. Files written before Σ eᵢ² was kept hold 0 there, which fits no
/// spread of a bit error; with no error there is nothing to spread.
pub fn spread_fits(frames: u64, k: u64, frame_errors: u64, errors: u64, errors_sq: u64) -> bool {
    if errors == 0 {
        return frame_errors == 0 && errors_sq == 0;
    }
    let (m, e, sq) = (frame_errors as u128, errors as u128, errors_sq as u128);
    counts_fit(frames, k, frame_errors, errors)
        && sq * m >= e * e
        && (sq as f64) <= max_errors_sq(frames, k, frame_errors, errors)
}

/// A 95% BER interval when the spread of bit errors between frames is not known (a sweep
/// file written before `bit_errors_sq` was kept): the union of the [`ber_interval`]s of
/// every way `errors` bit errors can spread over `frame_errors` failed frames of `k` bits
/// (each holding 1 to k of them).
///
/// The spread enters [`ber_interval`] only through Σ eᵢ², and the interval grows with it: for
/// fixed BER p the design effect d rises with Σ eᵢ², the effective sample size n/d falls, and
/// Wilson intervals of a fixed p are nested (smaller n, wider interval; the t quantile of
/// `frame_errors` degrees of freedom does not depend on the spread). So the union is the
/// interval of the largest Σ eᵢ², [`max_errors_sq`]: as many frames as possible full, the
/// others with one error. It contains every spread's interval and is attained by one, so it
/// is the narrowest interval that is valid whatever the spread was. With no error it is
/// [`ber_interval`]'s (lower bound exactly 0); counts that fit no spread get d = k.
pub fn ber_interval_worst_case(frames: u64, k: u64, frame_errors: u64, errors: u64) -> [f64; 2] {
    let sq = max_errors_sq(frames, k, frame_errors, errors);
    ber_interval_sq(frames, k, frame_errors, errors, sq)
}

/// When a point stops: at the frame (in frame order) that brings its frame errors to
/// `min_errors`, or at frame `max_frames`. The batch only sets how many frames a decoder call
/// takes: the stop falls on the same frame whatever the batch, the threads, the devices or
/// the ranks, so a seed gives the same counts on any machine.
#[derive(Clone, Copy, Debug)]
pub struct StopRule {
    /// Stop once this many frames failed …
    pub min_errors: u64,
    /// … or this many frames ran.
    pub max_frames: u64,
    /// Frames per decoder call.
    pub batch: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval() {
        let [lo, hi] = wilson(10, 1000);
        assert!(
            lo < 0.01 && hi > 0.01 && lo > 0.004 && hi < 0.02,
            "{lo} {hi}"
        );
        // 0 errors: exactly 0 below (the formula leaves 2e-22 by rounding).
        let [lo, hi] = wilson(0, 1000);
        assert!(lo == 0.0 && hi > 0.003 && hi < 0.005, "{lo} {hi}");
        assert_eq!(wilson(7, 7)[1], 1.0);
        // scipy.stats.binomtest(10, 1000).proportion_ci(0.95, "wilson")
        let [lo, hi] = wilson(10, 1000);
        assert!(
            (lo - 0.0054408).abs() < 1e-6 && (hi - 0.0183095).abs() < 1e-6,
            "{lo} {hi}"
        );
    }

    fn interval_of(k: u64, frame_errors: &[u64], frames: u64) -> [f64; 2] {
        let e: u64 = frame_errors.iter().sum();
        let sq: u64 = frame_errors.iter().map(|x| x * x).sum();
        let failed = frame_errors.iter().filter(|&&x| x > 0).count() as u64;
        ber_interval(frames, k, failed, e, sq)
    }

    #[test]
    fn ber_interval_accounts_for_errors_clustering_in_frames() {
        // The issue's case: 4 bit errors all in one frame of 7200 bits, 10,000 frames. Bits
        // as trials claimed [2.2e-8, 1.4e-7] (scipy binomtest(4, 72e6) Wilson: [2.1604e-8,
        // 1.4286e-7]); with one failed frame the spread is unknown, and the interval says so.
        // Reference (numpy/scipy, the formula above): d = 4, t(1) = 12.7062,
        // Wilson(1, 1.8e7) -> [3.3991e-10, 9.0800e-6].
        let (k, frames) = (7200, 10_000);
        let [lo, hi] = interval_of(k, &[4], frames);
        assert!((lo / 3.3991e-10 - 1.0).abs() < 1e-3, "{lo:e}");
        assert!((hi / 9.0800e-6 - 1.0).abs() < 1e-3, "{hi:e}");
        // The same 4 errors in 4 frames: d = 1, t(4) = 2.7764 -> [1.5206e-8, 2.0297e-7].
        let [lo4, hi4] = interval_of(k, &[1, 1, 1, 1], frames);
        assert!((lo4 / 1.5206e-8 - 1.0).abs() < 1e-3, "{lo4:e}");
        assert!((hi4 / 2.0297e-7 - 1.0).abs() < 1e-3, "{hi4:e}");
        // Both contain the binomial interval over bits.
        let [blo, bhi] = wilson(4, k * frames);
        assert!(lo4 < blo && hi4 > bhi && lo < lo4 && hi > hi4);
        // No error: exactly 0 below, the FER's bound above.
        assert_eq!(
            ber_interval(frames, k, 0, 0, 0),
            [0.0, wilson(0, frames)[1]]
        );
        assert_eq!(ber_interval(1, k, 1, k, k * k)[1], 1.0);
        assert_eq!(ber_interval(0, k, 0, 0, 0), [0.0, 1.0]);
    }

    #[test]
    fn ber_interval_matches_a_frame_level_bootstrap() {
        // 2000 frames of 1000 bits; 60 failed frames with 1..=60 bit errors (e = 1 + (7i mod 60)).
        // Reference: a percentile bootstrap over whole frames in numpy (200,000 resamples):
        //   e = np.zeros(2000); e[:60] = 1 + (7 * np.arange(60)) % 60
        //   rng = np.random.default_rng(1)
        //   b = e[rng.integers(0, 2000, (200000, 2000))].sum(axis=1) / 2e6  # in chunks
        //   np.percentile(b, [2.5, 97.5]) -> [0.0006625, 0.0011900]   (BER 0.000915)
        // while the independent-bit Wilson interval (scipy binomtest(1830, 2e6)) is
        // [0.000874, 0.000958], six times narrower. Ours: [0.000683, 0.001226] (t(60) = 2.0003).
        let errors: Vec<u64> = (0..60).map(|i| 1 + (7 * i) % 60).collect();
        let [lo, hi] = interval_of(1000, &errors, 2000);
        let (boot_lo, boot_hi) = (0.0006625, 0.0011900);
        assert!((lo / boot_lo - 1.0).abs() < 0.05, "{lo} vs {boot_lo}");
        assert!((hi / boot_hi - 1.0).abs() < 0.05, "{hi} vs {boot_hi}");
    }

    /// Every spread of `errors` bit errors over `m` failed frames of 1..=k errors each, as
    /// non-increasing lists.
    fn spreads(m: u64, errors: u64, k: u64, max: u64, out: &mut Vec<Vec<u64>>, acc: &mut Vec<u64>) {
        if m == 0 {
            if errors == 0 {
                out.push(acc.clone());
            }
            return;
        }
        for e in 1..=max.min(k).min(errors) {
            if errors - e < m - 1 || errors - e > (m - 1) * e.min(k) {
                continue;
            }
            acc.push(e);
            spreads(m - 1, errors - e, k, e, out, acc);
            acc.pop();
        }
    }

    #[test]
    fn the_worst_case_is_the_widest_interval_of_every_spread() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1e-300);
        let mut cases = 0;
        for frames in [1u64, 2, 3, 7, 40, 1000] {
            for k in 1..=6u64 {
                for m in 1..=frames.min(5) {
                    for errors in m..=m * k {
                        let mut all = Vec::new();
                        spreads(m, errors, k, k, &mut all, &mut Vec::new());
                        assert!(!all.is_empty(), "{m} {errors} {k}");
                        let sq = |s: &Vec<u64>| s.iter().map(|e| e * e).sum::<u64>();
                        let max_sq = all.iter().map(sq).max().unwrap();
                        assert_eq!(max_errors_sq(frames, k, m, errors), max_sq as f64);
                        let mut union = [f64::INFINITY, 0.0f64];
                        for s in &all {
                            assert!(spread_fits(frames, k, m, errors, sq(s)), "{s:?}");
                            let [lo, hi] = ber_interval(frames, k, m, errors, sq(s));
                            union = [union[0].min(lo), union[1].max(hi)];
                        }
                        let [lo, hi] = ber_interval_worst_case(frames, k, m, errors);
                        assert!(
                            close(lo, union[0]) && close(hi, union[1]),
                            "F {frames} k {k} m {m} E {errors}: [{lo}, {hi}] vs {union:?}"
                        );
                        cases += 1;
                    }
                }
            }
        }
        assert!(cases > 300, "{cases}");
    }

    #[test]
    fn the_worst_case_contains_the_clustered_interval_of_any_spread() {
        // Random spreads (a small LCG): a few heavy frames, many light ones, all alike.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % n
        };
        for (frames, k) in [(10_000u64, 7200u64), (2000, 1000), (128, 32_400), (5, 10)] {
            for _ in 0..200 {
                let m = 1 + next(frames.min(150));
                let heavy = next(4);
                let spread: Vec<u64> = (0..m)
                    .map(|i| match heavy {
                        0 => 1 + next(k),
                        1 if i == 0 => k,
                        1 => 1,
                        2 => 1 + next(k.min(20)),
                        _ => (k / 3).max(1),
                    })
                    .collect();
                let e: u64 = spread.iter().sum();
                let sq: u64 = spread.iter().map(|x| x * x).sum();
                assert!(spread_fits(frames, k, m, e, sq));
                assert!(!spread_fits(frames, k, m, e, 0), "0: an old file");
                let [lo, hi] = ber_interval(frames, k, m, e, sq);
                let [wlo, whi] = ber_interval_worst_case(frames, k, m, e);
                assert!(
                    wlo <= lo && whi >= hi,
                    "{spread:?}: [{wlo}, {whi}] vs [{lo}, {hi}]"
                );
                // ... and the bit-independent interval that old files carry.
                let [blo, bhi] = wilson(e, frames * k);
                assert!(wlo <= blo && whi >= bhi);
            }
        }
    }

    #[test]
    fn the_worst_case_of_no_error_starts_at_zero() {
        for frames in [1, 10, 10_000] {
            let ci = ber_interval_worst_case(frames, 7200, 0, 0);
            assert_eq!(ci, [0.0, wilson(0, frames)[1]]);
            assert_eq!(ci[0], 0.0);
        }
        assert_eq!(ber_interval_worst_case(0, 7200, 0, 0), [0.0, 1.0]);
        // Every bit wrong: the upper bound is 1.
        assert_eq!(ber_interval_worst_case(3, 8, 3, 24)[1], 1.0);
    }

    #[test]
    fn t_quantiles_stay_fast_and_meet_the_normal_one() {
        use statrs::distribution::{ContinuousCDF, StudentsT};
        let t = |df: f64| StudentsT::new(0.0, 1.0, df).unwrap().inverse_cdf(0.975);
        assert!((t(T_DF_MAX) / Z95 - 1.0).abs() < 2e-5);
        // Above it the normal quantile, and no wait however many failed frames a file claims.
        let start = std::time::Instant::now();
        let _ = ber_interval(u64::MAX, 2, u64::MAX / 2, u64::MAX / 2, u64::MAX);
        assert!(start.elapsed().as_secs_f64() < 1.0);
        assert!((t(1.0) - 12.7062).abs() < 1e-4);
    }

    #[test]
    fn the_issue_case_gets_the_clustered_interval() {
        // 4 bit errors in the only failed frame: there is one spread, the clustered one.
        // Bits as trials claimed [2.2e-8, 1.4e-7]; the frames say [3.3991e-10, 9.0800e-6].
        let [lo, hi] = ber_interval_worst_case(10_000, 7200, 1, 4);
        assert_eq!([lo, hi], ber_interval(10_000, 7200, 1, 4, 16));
        assert!((hi / 9.0800e-6 - 1.0).abs() < 1e-3, "{hi:e}");
        // 4 errors in 4 failed frames can only be one each; 10 in 2 at worst 9 + 1; 12 in 3
        // frames of 5 bits at worst 5 + 5 + 2.
        assert_eq!(max_errors_sq(10_000, 7200, 4, 4), 4.0);
        assert_eq!(max_errors_sq(10_000, 7200, 2, 10), 82.0);
        assert_eq!(max_errors_sq(10_000, 5, 3, 12), 25.0 + 25.0 + 4.0);
    }

    #[test]
    fn counts_that_fit_no_spread_get_the_widest_interval() {
        // More failed frames than bit errors, or more errors than the failed frames hold.
        for (m, e) in [(5, 3), (1, 8), (20, 40)] {
            assert_eq!(max_errors_sq(10, 4, m, e), f64::INFINITY);
            assert!(!spread_fits(10, 4, m, e, 16));
            let [lo, hi] = ber_interval_worst_case(10, 4, m, e);
            assert!(lo >= 0.0 && lo <= hi && hi <= 1.0, "{lo} {hi}");
        }
        // Σ e² below E²/m or above the largest spread's fits no spread either.
        assert!(!spread_fits(100, 10, 2, 10, 49));
        assert!(spread_fits(100, 10, 2, 10, 50));
        assert!(spread_fits(100, 10, 2, 10, 82));
        assert!(!spread_fits(100, 10, 2, 10, 83));
        // Nothing panics on counts no file holds.
        for v in [0, 1, u64::MAX / 2, u64::MAX] {
            let _ = ber_interval_worst_case(v, v, v, v);
            let _ = spread_fits(v, v, v, v, v);
        }
    }

    fn old_point(frames: u64, frame_errors: u64, bit_errors: u64) -> serde_json::Value {
        // As files written before `bit_errors_sq` held them: a bit-independent BER interval.
        let k = 7200;
        let ber = bit_errors as f64 / (frames * k) as f64;
        serde_json::json!({
            "es_n0_db": 1.0, "eb_n0_db": 1.0, "frames": frames, "frame_errors": frame_errors,
            "bit_errors": bit_errors, "info_bits": frames * k, "ber": ber,
            "fer": frame_errors as f64 / frames as f64,
            "ber_ci": wilson(bit_errors, frames * k), "fer_ci": wilson(frame_errors, frames),
            "mean_iterations": 10.0, "seconds": 1.0
        })
    }

    #[test]
    fn a_point_without_the_spread_reads_back_with_the_worst_case() {
        let p: PointResult = serde_json::from_value(old_point(10_000, 1, 4)).unwrap();
        assert_eq!(p.ber_ci_method, BerCiMethod::FramesWorstCase);
        assert_eq!(p.ber_ci, ber_interval_worst_case(10_000, 7200, 1, 4));
        assert!(p.ber_ci[1] > 50.0 * 1.43e-7, "{:?}", p.ber_ci);
        // Written, the file says how; read again, the same point.
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["ber_ci_method"], "frames-worst-case");
        assert_eq!(serde_json::from_value::<PointResult>(json).unwrap(), p);
        // No error: the lower bound is exactly 0.
        let z: PointResult = serde_json::from_value(old_point(1000, 0, 0)).unwrap();
        assert_eq!(z.ber_ci, [0.0, wilson(0, 1000)[1]]);
        // With Σ e² the frames-t interval, whatever the file's method says.
        let mut v = old_point(10_000, 2, 10);
        v["bit_errors_sq"] = 50.into();
        v["ber_ci_method"] = "frames-worst-case".into();
        let p: PointResult = serde_json::from_value(v).unwrap();
        assert_eq!(p.ber_ci_method, BerCiMethod::FramesT);
        assert_eq!(p.ber_ci, ber_interval(10_000, 7200, 2, 10, 50));
        let wide: PointResult = serde_json::from_value(old_point(10_000, 2, 10)).unwrap();
        assert!(wide.ber_ci[0] < p.ber_ci[0] && wide.ber_ci[1] > p.ber_ci[1]);
    }
}

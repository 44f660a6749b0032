//! The GPU self-check registry: each capability crate lists [`Check`]s that run one kernel on
//! fresh random inputs and compare it against its CPU twin. `sigpu check` runs them all.

use super::gpu::Gpu;
use serde::Serialize;

/// Why a check could not run to a verdict: an error of any crate's type (a driver error, an
/// LNS or LDPC error, ...), kept with its source chain.
pub type CheckError = Box<dyn std::error::Error + Send + Sync>;

/// Whether checks draw inputs small enough for compute-sanitizer (set by `sigpu check
/// --sanitize`). Its tools slow kernels 10–1000×; checks whose default inputs are large (the
/// LDPC decoders decode thousands of frames) take fewer where this is set, keeping every
/// code path (partial batches, saturation) they cover.
static SANITIZE_SIZES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes the checks of this process draw sanitizer-sized inputs (see [`sanitize_sizes`]).
pub fn set_sanitize_sizes(on: bool) {
    SANITIZE_SIZES.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether checks should draw sanitizer-sized inputs: a check with large default inputs picks
/// its smaller size where this is true.
pub fn sanitize_sizes() -> bool {
    SANITIZE_SIZES.load(std::sync::atomic::Ordering::Relaxed)
}

/// What a check returns: its report, or why it could not run.
pub type CheckResult = std::result::Result<CheckReport, CheckError>;

/// A check's outcome in the registry's terms: the report, or the crate's own error as it is.
pub fn check_result<E: Into<CheckError>>(
    result: std::result::Result<CheckReport, E>,
) -> CheckResult {
    result.map_err(Into::into)
}

/// One kernel-versus-CPU-twin comparison.
#[derive(Clone, Copy)]
pub struct Check {
    /// `crate/kernel`, e.g. `runtime/tex2d_linear_f32`.
    pub name: &'static str,
    /// One line on what is compared.
    pub about: &'static str,
    /// Runs the check with inputs drawn from a generator seeded by the `u64`.
    pub run: fn(&Gpu, u64) -> CheckResult,
}

impl Check {
    /// A check named `crate/kernel`, described by `about`, run by `run`.
    pub const fn new(
        name: &'static str,
        about: &'static str,
        run: fn(&Gpu, u64) -> CheckResult,
    ) -> Check {
        Check { name, about, run }
    }

    /// The seed this check draws its inputs from in a run seeded with `run_seed`: mixed with
    /// the check's name, so a check replays alike whether run alone (`--filter`) or with all.
    pub fn seed(&self, run_seed: u64) -> u64 {
        // FNV-1a over the name, a stable hash (std's hasher may change between releases).
        let name = self.name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        run_seed ^ name
    }
}

/// How far a GPU result may stray from its CPU twin: |got − want| ≤ abs + rel·|want|.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Tolerance {
    /// Absolute part of the bound, in the compared values' units.
    pub abs: f64,
    /// Relative part of the bound, a fraction of |want|.
    pub rel: f64,
}

impl Tolerance {
    /// Bit-for-bit agreement (NaN still matches NaN).
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };

    /// NaN matches only NaN and an infinity only itself; finite values within the bound.
    fn admits(&self, got: f64, want: f64) -> bool {
        if got == want || (got.is_nan() && want.is_nan()) {
            return true;
        }
        want.is_finite() && (got - want).abs() <= self.abs + self.rel * want.abs()
    }
}

/// The outcome of one check.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    /// Values compared: the expected output's length.
    pub elements: usize,
    /// Elements outside the tolerance, plus any length difference.
    pub mismatches: usize,
    /// Largest |got − want| seen (infinite when a result was NaN or missing).
    pub max_error: f64,
    /// The bound the elements were held to.
    pub tolerance: Tolerance,
    /// The first mismatch, or extra facts the check measured.
    pub note: String,
}

impl CheckReport {
    /// Passed when something was compared and nothing mismatched.
    pub fn passed(&self) -> bool {
        self.elements > 0 && self.mismatches == 0
    }

    /// Appends `note` to the report's note, `; `-separated.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        let note = note.into();
        self.note = if self.note.is_empty() {
            note
        } else {
            format!("{}; {note}", self.note)
        };
        self
    }
}

/// Compares element-wise; a NaN where a number was expected (a poisoned, unwritten output) and
/// any length difference count as mismatches.
pub fn compare_f32(got: &[f32], want: &[f32], tolerance: Tolerance) -> CheckReport {
    let mut report = CheckReport {
        elements: want.len(),
        mismatches: got.len().abs_diff(want.len()),
        max_error: 0.0,
        tolerance,
        note: String::new(),
    };
    if got.len() != want.len() {
        report.max_error = f64::INFINITY;
        report.note = format!("length {} != expected {}", got.len(), want.len());
    }
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (g as f64, w as f64);
        let err = if g.is_nan() || w.is_nan() {
            if g.is_nan() && w.is_nan() {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            (g - w).abs()
        };
        report.max_error = report.max_error.max(err);
        if !tolerance.admits(g, w) {
            if report.mismatches == 0 {
                report.note = format!("first mismatch at [{i}]: got {g:e}, want {w:e}");
            }
            report.mismatches += 1;
        }
    }
    report
}

/// Compares with `==`: for integers, or floats that must match exactly (a NaN never matches,
/// so a poisoned output fails; compare `to_bits()` where NaN results are expected).
pub fn compare_exact<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T]) -> CheckReport {
    let unequal = |g: &&T, w: &&T| if g == w { 0.0 } else { f64::INFINITY };
    let mut report = compare_by(got.iter().zip(want), 0.0, unequal, Tolerance::EXACT);
    if got.len() != want.len() {
        // Missing or extra elements are mismatches too; the note then names no element.
        report.elements = want.len();
        report.mismatches += got.len().abs_diff(want.len());
        report.max_error = f64::INFINITY;
        report.note.clear();
    }
    report
}

/// Compares (got, want) pairs by `distance`: pairs farther apart than `tol` are mismatches
/// (the first is described in the note) and the largest distance is the max error. For
/// number types with their own notion of closeness (CLNS codes, complex values, ...).
pub fn compare_by<T: std::fmt::Debug>(
    pairs: impl IntoIterator<Item = (T, T)>,
    tol: f64,
    distance: impl Fn(&T, &T) -> f64,
    tolerance: Tolerance,
) -> CheckReport {
    let mut report = CheckReport {
        elements: 0,
        mismatches: 0,
        max_error: 0.0,
        tolerance,
        note: String::new(),
    };
    for (i, (got, want)) in pairs.into_iter().enumerate() {
        report.elements += 1;
        let d = distance(&got, &want);
        report.max_error = report.max_error.max(d);
        if d > tol {
            if report.mismatches == 0 {
                report.note = format!("first mismatch at [{i}]: got {got:?}, want {want:?}");
            }
            report.mismatches += 1;
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_per_check_and_repeat_per_run() {
        let run = |_: &crate::cuda::Gpu, _| unreachable!();
        let a = Check {
            name: "x/a",
            about: "",
            run,
        };
        let b = Check {
            name: "x/b",
            about: "",
            run,
        };
        assert_eq!(a.seed(7), a.seed(7));
        assert_ne!(a.seed(7), b.seed(7));
        assert_ne!(a.seed(7), a.seed(8));
    }

    #[test]
    fn poisoned_output_fails() {
        let r = compare_f32(
            &[1.0, f32::NAN],
            &[1.0, 2.0],
            Tolerance {
                abs: 1e-3,
                rel: 0.0,
            },
        );
        assert!(!r.passed());
        assert_eq!(r.mismatches, 1);
        assert!(r.note.contains("[1]"), "{}", r.note);
    }

    #[test]
    fn tolerance_is_abs_plus_rel() {
        let tol = Tolerance {
            abs: 0.0,
            rel: 1e-3,
        };
        assert!(compare_f32(&[1000.9], &[1000.0], tol).passed());
        assert!(!compare_f32(&[1001.1], &[1000.0], tol).passed());
        assert!(compare_f32(&[f32::NAN], &[f32::NAN], Tolerance::EXACT).passed());
        assert!(compare_f32(&[f32::INFINITY], &[f32::INFINITY], Tolerance::EXACT).passed());
        let loose = Tolerance { abs: 1.0, rel: 1.0 };
        assert!(!compare_f32(&[0.0], &[f32::INFINITY], loose).passed());
        assert!(!compare_f32(&[f32::NEG_INFINITY], &[f32::INFINITY], loose).passed());
        assert!(!compare_f32(&[f32::INFINITY], &[1.0], loose).passed());
    }

    #[test]
    fn length_and_empty() {
        assert!(!compare_f32(&[1.0], &[1.0, 2.0], Tolerance::EXACT).passed());
        assert!(
            !compare_exact::<u8>(&[], &[]).passed(),
            "comparing nothing proves nothing"
        );
        assert!(compare_exact(&[1u8, 2], &[1, 2]).passed());
        assert_eq!(compare_exact(&[1u8, 3, 4], &[1, 2, 5]).mismatches, 2);
    }

    #[test]
    fn exact_reports_first_mismatch_or_length() {
        let r = compare_exact(&[1u8, 3, 4], &[1, 2, 5]);
        assert_eq!((r.elements, r.mismatches), (3, 2));
        assert_eq!(r.max_error, f64::INFINITY);
        assert_eq!(r.note, "first mismatch at [1]: got 3, want 2");
        let r = compare_exact(&[1u8, 3], &[1, 2, 5]);
        assert_eq!((r.elements, r.mismatches), (3, 2));
        assert_eq!((r.max_error, r.note.as_str()), (f64::INFINITY, ""));
        let r = compare_exact(&[1u8, 2], &[1, 2]);
        assert_eq!((r.mismatches, r.max_error), (0, 0.0));
    }

    #[test]
    fn by_distance_counts_beyond_tol() {
        let pairs = [(1.0f64, 1.0), (2.0, 2.5), (3.0, 5.0), (4.0, 4.25)];
        let r = compare_by(pairs, 0.3, |g, w| (g - w).abs(), Tolerance::EXACT);
        assert_eq!((r.elements, r.mismatches, r.max_error), (4, 2, 2.0));
        assert_eq!(r.note, "first mismatch at [1]: got 2.0, want 2.5");
    }
}

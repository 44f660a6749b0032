//! Searching the approximation degree λ (seed §5.4 and §7): the fastest λ whose error stays
//! within the QoS bound, over λ = 0 (all accurate) ..= the occupied warp slots (all SFU).
//!
//! QoS_ratio semantics follow the paper's §7: the bound is a fraction of the all-SFU version's
//! error, E(λ) ≤ ratio · E(λ_max). A ratio of 0.8 keeps 80% of the error the SFU version
//! would add; 1 accepts the all-SFU kernel.
//!
//! - SMP: from λ_max downwards until the bound holds.
//! - HEU: linear approaching (regula falsi on E between a feasible and an infeasible point,
//!   starting from (0, 0) and (λ_max, E_max)) until the line's prediction lands on a point
//!   already measured; if that point breaks the bound, the fall-back phase walks λ down from
//!   it until the bound holds (E may be non-smooth, e.g. the paper's NBO and CFD).
//! - OMG: every λ; the fastest point that meets the bound.
//!
//! Every search measures λ = 0 first (the accurate reference and T(0) for the speedup); a
//! point asked for twice is measured once. `runs` counts the points measured.

use crate::error::ApproxError;
use serde::Serialize;
use std::collections::BTreeMap;

/// One measurement: the kernel at λ, its time and its error against λ = 0.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    /// The approximation degree measured.
    pub lambda: u32,
    /// T(λ): the kernel's time (milliseconds when measured by [`crate::tune`]).
    pub time: f64,
    /// E(λ): the output's error against λ = 0, in the app's metric.
    pub error: f64,
}

/// Runs the kernel at a λ and measures it.
pub trait Evaluator {
    /// What a failed measurement returns.
    type Error;
    /// Measures the kernel at `lambda` (0 ..= λ_max).
    fn measure(&mut self, lambda: u32) -> Result<Point, Self::Error>;
}

/// A closure as an evaluator (synthetic curves, replays of a measured curve).
pub struct FnEvaluator<F>(pub F);

impl<E, F: FnMut(u32) -> Result<Point, E>> Evaluator for FnEvaluator<F> {
    type Error = E;
    fn measure(&mut self, lambda: u32) -> Result<Point, E> {
        (self.0)(lambda)
    }
}

/// A search strategy for λ, named as in Li et al.'s SFU-approximation paper; see the module
/// docs for how each walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Simple: from λ_max downwards until the bound holds.
    Smp,
    /// Heuristic: regula falsi on E(λ), then a walk down if the prediction breaks the bound.
    Heu,
    /// Optimal: every λ measured; the fastest one within the bound.
    Omg,
}

impl Method {
    /// Every method, in the order they are run and reported.
    pub const ALL: [Method; 3] = [Method::Smp, Method::Heu, Method::Omg];
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::Smp => "smp",
            Method::Heu => "heu",
            Method::Omg => "omg",
        })
    }
}

impl std::str::FromStr for Method {
    type Err = ApproxError;
    fn from_str(s: &str) -> Result<Method, ApproxError> {
        match s {
            "smp" => Ok(Method::Smp),
            "heu" => Ok(Method::Heu),
            "omg" => Ok(Method::Omg),
            _ => Err(ApproxError::UnknownMethod(s.to_owned())),
        }
    }
}

/// A search that cannot start or whose evaluator failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError<E> {
    /// The QoS ratio is not a number in (0, 1].
    #[error(
        "QoS ratio must be a number in (0, 1] (a fraction of the all-SFU version's error); got {0}"
    )]
    Ratio(f64),
    /// An absolute error bound that is not a finite number ≥ 0.
    #[error("the error bound must be a finite number >= 0; got {0}")]
    Absolute(f64),
    /// λ_max is 0: there is nothing to search.
    #[error("λ_max is 0: the kernel occupies no warp slot, so there is nothing to search")]
    NoSlots,
    /// The evaluator failed; its error as it is.
    #[error("{0}")]
    Measure(E),
}

/// Checks a QoS ratio: finite and in (0, 1].
pub fn check_ratio(ratio: f64) -> Result<f64, ApproxError> {
    if ratio.is_finite() && ratio > 0.0 && ratio <= 1.0 {
        Ok(ratio)
    } else {
        Err(ApproxError::Ratio(ratio))
    }
}

/// What a search found.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The search that ran.
    pub method: Method,
    /// The λ chosen: the fastest measured point within the bound, or 0 when none is.
    pub lambda: u32,
    /// T at the chosen λ.
    pub time: f64,
    /// E at the chosen λ.
    pub error: f64,
    /// The error bound: ratio · E(λ_max).
    pub bound: f64,
    /// T(0) / T(λ).
    pub speedup: f64,
    /// Points measured (λ = 0 included).
    pub runs: usize,
    /// λ_max: the all-SFU end of the range searched.
    pub max_lambda: u32,
    /// Every point measured, in λ order.
    pub trace: Vec<Point>,
}

/// Memoises measurements so a point is run once per search.
struct Memo<'a, V: Evaluator> {
    ev: &'a mut V,
    seen: BTreeMap<u32, Point>,
}

impl<V: Evaluator> Memo<'_, V> {
    fn get(&mut self, lambda: u32) -> Result<Point, SearchError<V::Error>> {
        if let Some(p) = self.seen.get(&lambda) {
            return Ok(*p);
        }
        let p = self.ev.measure(lambda).map_err(SearchError::Measure)?;
        self.seen.insert(lambda, p);
        Ok(p)
    }
}

/// The error a search must keep: the paper's ratio of the all-SFU error, or an absolute bound
/// in the metric's own unit (what a user states for their own kernel: "rel-l2 ≤ 1e-4").
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    /// E(λ) ≤ ratio · E(λ_max), ratio in (0, 1].
    Ratio(f64),
    /// E(λ) ≤ this value (finite, ≥ 0).
    Absolute(f64),
}

/// Runs `method` over λ in 0..=`max_lambda` with QoS ratio `ratio`.
pub fn search<V: Evaluator>(
    method: Method,
    ev: &mut V,
    max_lambda: u32,
    ratio: f64,
) -> Result<Outcome, SearchError<V::Error>> {
    search_within(method, ev, max_lambda, Bound::Ratio(ratio))
}

/// Runs `method` over λ in 0..=`max_lambda` keeping `bound`.
pub fn search_within<V: Evaluator>(
    method: Method,
    ev: &mut V,
    max_lambda: u32,
    bound: Bound,
) -> Result<Outcome, SearchError<V::Error>> {
    match bound {
        Bound::Ratio(r) => {
            check_ratio(r).map_err(|_| SearchError::Ratio(r))?;
        }
        Bound::Absolute(b) if !(b.is_finite() && b >= 0.0) => return Err(SearchError::Absolute(b)),
        Bound::Absolute(_) => {}
    }
    if max_lambda == 0 {
        return Err(SearchError::NoSlots);
    }
    let mut m = Memo {
        ev,
        seen: BTreeMap::new(),
    };
    let base = m.get(0)?;
    let top = m.get(max_lambda)?;
    let bound = match bound {
        Bound::Ratio(r) => r * top.error,
        Bound::Absolute(b) => b,
    };
    let ok = |p: &Point| p.error <= bound;
    let chosen = match method {
        Method::Smp => {
            let mut l = max_lambda;
            loop {
                let p = m.get(l)?;
                if ok(&p) || l == 0 {
                    break p;
                }
                l -= 1;
            }
        }
        Method::Omg => {
            for l in 1..max_lambda {
                m.get(l)?;
            }
            // λ = 0 (error 0 against itself) normally meets the bound; when even it does not
            // (a NaN error, a noisy replay), fall back to it, as SMP and HEU do.
            m.seen
                .values()
                .filter(|p| ok(p))
                .min_by(|a, b| a.time.total_cmp(&b.time).then(b.lambda.cmp(&a.lambda)))
                .copied()
                .unwrap_or(base)
        }
        Method::Heu => heu(&mut m, base, top, bound)?,
    };
    Ok(Outcome {
        method,
        lambda: chosen.lambda,
        time: chosen.time,
        error: chosen.error,
        bound,
        speedup: base.time / chosen.time,
        runs: m.seen.len(),
        max_lambda,
        trace: m.seen.values().copied().collect(),
    })
}

fn heu<V: Evaluator>(
    m: &mut Memo<'_, V>,
    base: Point,
    top: Point,
    bound: f64,
) -> Result<Point, SearchError<V::Error>> {
    if top.error <= bound {
        return Ok(top);
    }
    // The line through the feasible point `lo` and the infeasible `hi` meets the bound at
    // the next candidate; the candidate replaces whichever end it is like.
    let (mut lo, mut hi) = (base, top);
    let local = loop {
        let slope = (hi.error - lo.error) / (hi.lambda - lo.lambda) as f64;
        let predicted = if slope > 0.0 {
            lo.lambda as f64 + (bound - lo.error) / slope
        } else {
            lo.lambda as f64
        };
        let l = (predicted.round() as i64).clamp(lo.lambda as i64, hi.lambda as i64) as u32;
        if l == lo.lambda {
            break lo;
        }
        if l == hi.lambda {
            break hi;
        }
        let p = m.get(l)?;
        if p.error <= bound {
            lo = p;
        } else {
            hi = p;
        }
    };
    // Fall-back: from a local point that breaks the bound, down until one meets it.
    let mut p = local;
    while p.error > bound && p.lambda > 0 {
        p = m.get(p.lambda - 1)?;
    }
    Ok(p)
}

impl<E: Into<ApproxError> + std::fmt::Display> SearchError<E> {
    /// The search error as the crate's: a failed measurement keeps its own error, a search that
    /// could not start names `app`.
    pub fn for_app(self, app: &str) -> ApproxError {
        match self {
            SearchError::Measure(e) => e.into(),
            other => ApproxError::Search {
                app: app.to_owned(),
                what: other.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    /// A synthetic kernel: T falls linearly by `gain`, E is `e(λ)`.
    fn curve(gain: f64, e: impl Fn(u32) -> f64) -> impl FnMut(u32) -> Result<Point, Infallible> {
        move |l| {
            Ok(Point {
                lambda: l,
                time: 1.0 - gain * l as f64 / 64.0,
                error: e(l),
            })
        }
    }

    fn run(method: Method, e: impl Fn(u32) -> f64, max: u32, ratio: f64) -> Outcome {
        search(method, &mut FnEvaluator(curve(0.5, e)), max, ratio).unwrap()
    }

    /// Largest λ meeting the bound, from the whole curve.
    fn best(e: impl Fn(u32) -> f64, max: u32, ratio: f64) -> u32 {
        let bound = ratio * e(max);
        (0..=max).rev().find(|&l| e(l) <= bound).unwrap()
    }

    #[test]
    fn monotone_linear_curve() {
        let e = |l: u32| 1e-6 * l as f64;
        for method in Method::ALL {
            let o = run(method, e, 64, 0.8);
            assert!(o.error <= o.bound);
            assert_eq!(o.lambda, 51, "{method}: {o:?}");
            assert!((o.speedup - 1.0 / (1.0 - 0.5 * 51.0 / 64.0)).abs() < 1e-12);
        }
        let heu = run(Method::Heu, e, 64, 0.8);
        assert!(heu.runs <= 65 / 4, "HEU used {} runs", heu.runs);
        assert_eq!(run(Method::Omg, e, 64, 0.8).runs, 65);
        assert_eq!(run(Method::Smp, e, 64, 0.8).runs, 1 + 14);
    }

    #[test]
    fn occupancy_bounds_the_space() {
        // 48 occupied slots: λ beyond 48 is never asked for.
        let e = |l: u32| l.min(48) as f64;
        let mut asked = Vec::new();
        let mut f = |l: u32| {
            asked.push(l);
            curve(0.5, e)(l)
        };
        let o = search(Method::Omg, &mut FnEvaluator(&mut f), 48, 0.5).unwrap();
        assert_eq!(o.lambda, 24);
        assert!(asked.iter().all(|&l| l <= 48));
    }

    #[test]
    fn noisy_convex_curve_stays_feasible_and_close() {
        // Deterministic noise of ±3% on a convex error curve.
        let noise =
            |l: u32| 1.0 + 0.03 * ((l.wrapping_mul(2654435761u32) >> 16) as f64 / 65536.0 - 0.5);
        let e = move |l: u32| (l as f64 / 64.0).powf(1.5) * noise(l);
        for ratio in [0.3, 0.5, 0.8, 0.95] {
            let heu = run(Method::Heu, e, 64, ratio);
            assert!(heu.error <= heu.bound);
            let b = best(e, 64, ratio);
            assert!(
                b.abs_diff(heu.lambda) <= 1,
                "ratio {ratio}: heu {} best {b}",
                heu.lambda
            );
            assert!(heu.runs <= 16, "ratio {ratio}: {} runs", heu.runs);
        }
    }

    #[test]
    fn non_smooth_curve_uses_the_fall_back() {
        // A plateau then a jump (like the paper's NBO / CFD): E is flat at 0.9 on 20..40,
        // jumps to 1.0 at 40, and the line from (0,0) to (64,1) predicts 51 for ratio 0.8.
        let e = |l: u32| match l {
            0..20 => l as f64 * 0.045,
            20..40 => 0.9,
            _ => 1.0,
        };
        let heu = run(Method::Heu, e, 64, 0.8);
        assert!(heu.error <= heu.bound, "{heu:?}");
        assert_eq!(heu.lambda, best(e, 64, 0.8), "{heu:?}");
        let smp = run(Method::Smp, e, 64, 0.8);
        assert_eq!(smp.lambda, 17);
        assert!(smp.runs > heu.runs);
    }

    #[test]
    fn absolute_bounds_are_kept_and_checked() {
        let e = |l: u32| 1e-6 * l as f64;
        for method in Method::ALL {
            let o = search_within(
                method,
                &mut FnEvaluator(curve(0.5, e)),
                64,
                Bound::Absolute(2.05e-5),
            )
            .unwrap();
            assert_eq!(o.lambda, 20, "{method}: {o:?}");
            assert_eq!(o.bound, 2.05e-5);
        }
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let r = search_within(
                Method::Heu,
                &mut FnEvaluator(curve(0.5, e)),
                64,
                Bound::Absolute(bad),
            );
            assert!(r.unwrap_err().to_string().contains(">= 0"));
        }
    }

    #[test]
    fn omg_picks_the_fastest_feasible_point_even_in_the_middle() {
        // T has its minimum at λ = 30 (the paper's SIN on Fermi).
        let mut f = |l: u32| -> Result<Point, Infallible> {
            Ok(Point {
                lambda: l,
                time: 1.0 + ((l as f64 - 30.0) / 64.0).powi(2),
                error: l as f64,
            })
        };
        let o = search(Method::Omg, &mut FnEvaluator(&mut f), 64, 0.9).unwrap();
        assert_eq!(o.lambda, 30);
    }

    #[test]
    fn sfu_within_bound_returns_max_and_bad_ratios_fail() {
        let zero = |_: u32| 0.0;
        assert_eq!(run(Method::Heu, zero, 64, 0.8).lambda, 64);
        assert_eq!(run(Method::Heu, zero, 64, 0.8).runs, 2);
        for bad in [0.0, -0.5, 1.5, f64::NAN, f64::INFINITY] {
            let e = search(Method::Heu, &mut FnEvaluator(curve(0.5, zero)), 64, bad).unwrap_err();
            assert!(e.to_string().contains("(0, 1]"), "{e}");
        }
        // Nothing meets the bound (NaN errors, or a noisy E(0) above it): every search falls
        // back to λ = 0 instead of failing.
        for e in [|_: u32| f64::NAN, |l: u32| if l == 8 { 1.0 } else { 2.0 }] {
            for method in Method::ALL {
                assert_eq!(run(method, e, 8, 0.8).lambda, 0, "{method}");
            }
        }
        let e = search(Method::Smp, &mut FnEvaluator(curve(0.5, zero)), 0, 0.8).unwrap_err();
        assert!(e.to_string().contains("no warp slot"), "{e}");
        assert!("xyz"
            .parse::<Method>()
            .unwrap_err()
            .to_string()
            .contains("smp, heu or omg"));
    }
}

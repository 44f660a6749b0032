//! Telling two timings apart: repeated batches until the 95% confidence intervals of two
//! candidates separate, or a cap on the rounds calls them equal.
//!
//! Why: on memory-bound kernels T(λ) is flat within < 1% timing noise, so the fastest point of
//! one measured curve (the OMG oracle's pick) is noise, and "HEU within one λ of OMG" was a
//! comparison with a random λ. A verdict of [`Verdict::Equal`] says the two are the same speed
//! at the confidence the rounds allowed.
//!
//! The unit of a round is the median of a batch of back-to-back runs (robust to the odd slow
//! launch); the interval is the mean of the round medians ± t(0.975, n − 1) · s / √n.

use serde::Serialize;

/// Mean and 95% confidence half-width of a set of samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Mean of the samples.
    pub mean: f64,
    /// Half-width of the 95% interval (infinite below 2 samples).
    pub half_width: f64,
    /// Samples behind it.
    pub samples: usize,
}

/// Student's t at 0.975 for 1..=30 degrees of freedom; 1.96 beyond.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The estimate of `xs`.
pub fn estimate(xs: &[f64]) -> Estimate {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n.max(1) as f64;
    let half_width = if n < 2 {
        f64::INFINITY
    } else {
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let t = T975.get(n - 2).copied().unwrap_or(1.96);
        t * (var / n as f64).sqrt()
    };
    Estimate {
        mean: if n == 0 { f64::NAN } else { mean },
        half_width,
        samples: n,
    }
}

impl Estimate {
    fn lo(&self) -> f64 {
        self.mean - self.half_width
    }
    fn hi(&self) -> f64 {
        self.mean + self.half_width
    }
}

/// How candidate `a` compares with `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// `a`'s interval lies wholly below `b`'s.
    Faster,
    /// `a`'s interval lies wholly above `b`'s.
    Slower,
    /// The intervals still overlap after the last round, or both are narrower than the
    /// tolerance and their means closer than it: the same speed at this confidence.
    Equal,
}

/// How hard [`compare`] tries.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Confidence {
    /// Runs per batch (one round's median).
    pub batch: usize,
    /// Rounds at least (an interval needs 2) and at most.
    pub min_rounds: usize,
    /// Rounds at most, after which overlapping candidates are equal.
    pub max_rounds: usize,
    /// Relative difference of means below which two tight intervals are called equal early.
    pub tolerance: f64,
}

impl Default for Confidence {
    fn default() -> Self {
        Confidence {
            batch: 5,
            min_rounds: 3,
            max_rounds: 12,
            tolerance: 0.005,
        }
    }
}

/// Two candidates compared.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// How `a` compares with `b`.
    pub verdict: Verdict,
    /// `a`'s round medians.
    pub a: Estimate,
    /// `b`'s round medians.
    pub b: Estimate,
    /// Rounds run.
    pub rounds: usize,
}

/// Runs a candidate (a λ) `runs` times back to back and returns each run's time.
pub trait Timer {
    /// What a failed run returns.
    type Error;
    /// `runs` timings of candidate `lambda`.
    fn time(&mut self, lambda: u32, runs: usize) -> Result<Vec<f64>, Self::Error>;
}

/// A closure as a timer (tests, replays).
pub struct FnTimer<F>(pub F);

impl<E, F: FnMut(u32, usize) -> Result<Vec<f64>, E>> Timer for FnTimer<F> {
    type Error = E;
    fn time(&mut self, lambda: u32, runs: usize) -> Result<Vec<f64>, E> {
        (self.0)(lambda, runs)
    }
}

fn batch_median(mut xs: Vec<f64>) -> f64 {
    sigpu_runtime::cuda::median(&mut xs)
}

/// Compares candidates `a` and `b`, alternating batches, until their intervals separate or
/// the rounds run out.
pub fn compare<T: Timer>(
    timer: &mut T,
    a: u32,
    b: u32,
    c: &Confidence,
) -> Result<Comparison, T::Error> {
    let (mut ra, mut rb) = (Vec::new(), Vec::new());
    let batch = c.batch.max(1);
    let mut rounds = 0;
    loop {
        ra.push(batch_median(timer.time(a, batch)?));
        rb.push(batch_median(timer.time(b, batch)?));
        rounds += 1;
        let (ea, eb) = (estimate(&ra), estimate(&rb));
        let done = |verdict| Comparison {
            verdict,
            a: ea,
            b: eb,
            rounds,
        };
        if rounds < c.min_rounds.max(2) {
            continue;
        }
        if ea.hi() < eb.lo() {
            return Ok(done(Verdict::Faster));
        }
        if eb.hi() < ea.lo() {
            return Ok(done(Verdict::Slower));
        }
        let scale = ea.mean.abs().max(eb.mean.abs());
        let tight = ea.half_width.max(eb.half_width) <= c.tolerance * scale;
        if (tight && (ea.mean - eb.mean).abs() <= c.tolerance * scale) || rounds >= c.max_rounds {
            return Ok(done(Verdict::Equal));
        }
    }
}

/// One challenge of [`omg_at_confidence`]: a point against the pick so far.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Challenge {
    /// The challenger's λ.
    pub challenger: u32,
    /// The pick it was compared with.
    pub holder: u32,
    /// Challenger against holder.
    pub comparison: Comparison,
}

/// The OMG oracle's pick at equal confidence: among the `feasible` (λ, time) points, start
/// from the fastest by its single measurement and challenge it with every other point within
/// `window` (relative) of it; a challenger that is faster at confidence takes its place, one
/// that is equal takes it when its λ is larger (more warps on the SFU at no cost in time, as
/// the single-curve OMG broke exact ties). Returns the pick and the comparisons made.
pub fn omg_at_confidence<T: Timer>(
    timer: &mut T,
    feasible: &[(u32, f64)],
    window: f64,
    c: &Confidence,
) -> Result<(u32, Vec<Challenge>), T::Error> {
    let mut sorted = feasible.to_vec();
    sorted.sort_by(|x, y| x.1.total_cmp(&y.1));
    let Some(&(mut best, t0)) = sorted.first() else {
        return Ok((0, Vec::new()));
    };
    let mut log = Vec::new();
    for &(l, t) in &sorted[1..] {
        if t > t0 * (1.0 + window) {
            break;
        }
        let cmp = compare(timer, l, best, c)?;
        log.push(Challenge {
            challenger: l,
            holder: best,
            comparison: cmp,
        });
        match cmp.verdict {
            Verdict::Faster => best = l,
            Verdict::Equal if l > best => best = l,
            _ => {}
        }
    }
    Ok((best, log))
}

/// HEU's pick against OMG's at equal confidence: they agree when the λs are within one of each
/// other or their times are equal at confidence.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HeuVsOmg {
    /// HEU's λ.
    pub heu: u32,
    /// OMG's λ at equal confidence.
    pub omg: u32,
    /// HEU's time against OMG's (absent when the λs are equal: nothing to compare).
    pub comparison: Option<Comparison>,
    /// Within one λ, or the same speed at confidence.
    pub agree: bool,
}

/// Compares HEU's pick `heu` with OMG's `omg` by timing both until they separate.
pub fn heu_vs_omg<T: Timer>(
    timer: &mut T,
    heu: u32,
    omg: u32,
    c: &Confidence,
) -> Result<HeuVsOmg, T::Error> {
    let comparison = if heu == omg {
        None
    } else {
        Some(compare(timer, heu, omg, c)?)
    };
    let agree = heu.abs_diff(omg) <= 1 || comparison.is_some_and(|c| c.verdict != Verdict::Slower);
    Ok(HeuVsOmg {
        heu,
        omg,
        comparison,
        agree,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    /// A fake timer: candidate λ takes `mean(λ)` ms with deterministic ±`noise` jitter.
    fn fake(
        mean: impl Fn(u32) -> f64,
        noise: f64,
    ) -> impl FnMut(u32, usize) -> Result<Vec<f64>, Infallible> {
        let mut k = 0u32;
        move |l, runs| {
            Ok((0..runs)
                .map(|_| {
                    k = k.wrapping_add(1);
                    let u = (k.wrapping_mul(2654435761) >> 8) as f64 / (1u64 << 24) as f64;
                    mean(l) * (1.0 + noise * (2.0 * u - 1.0))
                })
                .collect())
        }
    }

    #[test]
    fn estimates_follow_the_t_distribution() {
        let e = estimate(&[1.0, 2.0, 3.0]);
        assert_eq!(e.mean, 2.0);
        // s = 1, t(0.975, 2) = 4.303.
        assert!((e.half_width - 4.303 / 3f64.sqrt()).abs() < 1e-12);
        assert!(estimate(&[1.0]).half_width.is_infinite());
    }

    #[test]
    fn separated_candidates_are_told_apart_and_close_ones_are_equal() {
        let c = Confidence::default();
        let mut t = FnTimer(fake(|l| 1.0 + 0.1 * l as f64, 0.02));
        let cmp = compare(&mut t, 0, 1, &c).unwrap();
        assert_eq!(cmp.verdict, Verdict::Faster, "{cmp:?}");
        assert!(cmp.rounds <= 4, "{cmp:?}");
        assert_eq!(compare(&mut t, 1, 0, &c).unwrap().verdict, Verdict::Slower);
        // 0.1% apart under ±2% noise: equal, after at most max_rounds.
        let mut t = FnTimer(fake(|l| 1.0 + 0.001 * l as f64, 0.02));
        let cmp = compare(&mut t, 0, 1, &c).unwrap();
        assert_eq!(cmp.verdict, Verdict::Equal, "{cmp:?}");
        assert!(cmp.rounds <= c.max_rounds);
    }

    #[test]
    fn omg_at_confidence_takes_the_larger_of_equal_points() {
        // A flat curve: one noisy sweep says λ = 3 is fastest, but all are the same speed.
        let c = Confidence::default();
        let mut t = FnTimer(fake(|_| 1.0, 0.01));
        let sweep = [(0, 1.004), (1, 1.002), (2, 1.003), (3, 0.995), (4, 1.001)];
        let (pick, log) = omg_at_confidence(&mut t, &sweep, 0.05, &c).unwrap();
        assert_eq!(pick, 4, "{log:?}");
        // A real step: λ ≥ 2 is 20% faster; the largest equal-speed point wins.
        let mut t = FnTimer(fake(|l| if l >= 2 { 0.8 } else { 1.0 }, 0.01));
        let sweep = [(0, 1.0), (1, 1.0), (2, 0.80), (3, 0.81), (4, 0.79)];
        let (pick, _) = omg_at_confidence(&mut t, &sweep, 0.05, &c).unwrap();
        assert_eq!(pick, 4);
        let (pick, _) = omg_at_confidence(&mut t, &[], 0.05, &c).unwrap();
        assert_eq!(pick, 0);
    }

    #[test]
    fn heu_and_omg_agree_within_one_lambda_or_at_equal_speed() {
        let c = Confidence::default();
        let mut flat = FnTimer(fake(|_| 1.0, 0.01));
        let r = heu_vs_omg(&mut flat, 10, 4, &c).unwrap();
        assert!(r.agree, "{r:?}");
        assert_eq!(r.comparison.unwrap().verdict, Verdict::Equal);
        let mut step = FnTimer(fake(|l| if l >= 8 { 0.7 } else { 1.0 }, 0.01));
        let r = heu_vs_omg(&mut step, 5, 9, &c).unwrap();
        assert!(!r.agree, "{r:?}");
        assert!(heu_vs_omg(&mut step, 8, 9, &c).unwrap().agree);
        assert!(heu_vs_omg(&mut step, 9, 9, &c)
            .unwrap()
            .comparison
            .is_none());
    }
}

//! How a user kernel's outputs are scored against the accurate kernel's, and the bound they
//! must keep.
//!
//! Every output buffer is compared, concatenated in argument order. The searches minimise time
//! under a *loss* that grows with the error: the metric's own value, except for PSNR (higher is
//! better), whose loss is 10^(−PSNR/10) = MSE / range² so that a bound of `psnr ≥ 40` dB is
//! `loss ≤ 1e-4`. Reports give the metric's own value.

use super::args::{Dtype, HostArray};
use crate::error::{ApproxError, Result};
use serde::Serialize;
use std::path::Path;

/// A quality metric.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UserMetric {
    /// ‖a − r‖₂ / ‖r‖₂ (‖a − r‖₂ when the reference is all zeros).
    RelL2,
    /// max |a − r|.
    MaxAbs,
    /// The largest distance in units in the last place of the output's own type (integers:
    /// the absolute difference).
    MaxUlp,
    /// 10 · log10(range² / MSE) in dB, range = max(r) − min(r) (1 when r is constant); ∞ for
    /// identical outputs. Higher is better.
    Psnr,
    /// An external command that prints a number (lower is better): `{ref}` and `{out}` in it
    /// become folders holding the reference and candidate outputs as `0.npy`, `1.npy`, … (in
    /// argument order), also given as `SIGPU_REF_DIR` and `SIGPU_OUT_DIR`. Run by `sh -c`; the
    /// last line of its standard output is the number.
    Cmd(String),
}

impl std::str::FromStr for UserMetric {
    type Err = ApproxError;
    fn from_str(s: &str) -> Result<UserMetric> {
        Ok(match s {
            "rel-l2" => UserMetric::RelL2,
            "max-abs" => UserMetric::MaxAbs,
            "max-ulp" => UserMetric::MaxUlp,
            "psnr" => UserMetric::Psnr,
            _ => match s.strip_prefix("cmd:") {
                Some(c) if !c.trim().is_empty() => UserMetric::Cmd(c.to_owned()),
                _ => {
                    return Err(ApproxError::Metric(format!(
                    "unknown metric {s:?} (expected rel-l2, max-abs, max-ulp, psnr or cmd:COMMAND)"
                )))
                }
            },
        })
    }
}

impl std::fmt::Display for UserMetric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UserMetric::RelL2 => f.write_str("rel-l2"),
            UserMetric::MaxAbs => f.write_str("max-abs"),
            UserMetric::MaxUlp => f.write_str("max-ulp"),
            UserMetric::Psnr => f.write_str("psnr"),
            UserMetric::Cmd(c) => write!(f, "cmd:{c}"),
        }
    }
}

/// The quality bound a tuned kernel must keep.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Qos {
    /// The metric's value: at most this (at least this for PSNR, in dB).
    Value(f64),
    /// The paper's ratio: loss ≤ ratio · the all-SFU kernel's loss, ratio in (0, 1].
    Ratio(f64),
}

fn ulps(dtype: Dtype, a: f64, r: f64) -> f64 {
    if a.is_nan() || r.is_nan() {
        return if a.is_nan() && r.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    match dtype {
        Dtype::F32 => {
            let o = |v: f64| {
                let b = (v as f32).to_bits() as i32;
                if b < 0 {
                    i32::MIN as i64 - b as i64
                } else {
                    b as i64
                }
            };
            (o(a) - o(r)).unsigned_abs() as f64
        }
        Dtype::F64 => {
            let o = |v: f64| {
                let b = v.to_bits() as i64;
                if b < 0 {
                    i64::MIN as i128 - b as i128
                } else {
                    b as i128
                }
            };
            (o(a) - o(r)).unsigned_abs() as f64
        }
        _ => (a - r).abs(),
    }
}

impl UserMetric {
    /// Whether higher values are better (PSNR).
    pub fn higher_is_better(&self) -> bool {
        matches!(self, UserMetric::Psnr)
    }

    /// The loss (lower is better) of a metric value.
    pub fn loss(&self, value: f64) -> f64 {
        match self {
            UserMetric::Psnr => 10f64.powf(-value / 10.0),
            _ => value,
        }
    }

    /// The metric value of a loss.
    pub fn value(&self, loss: f64) -> f64 {
        match self {
            UserMetric::Psnr => -10.0 * loss.log10(),
            _ => loss,
        }
    }

    /// The metric's value for `got` against `reference` (same shapes, or an error).
    pub fn evaluate(&self, got: &[HostArray], reference: &[HostArray]) -> Result<f64> {
        if got.len() != reference.len()
            || got
                .iter()
                .zip(reference)
                .any(|(g, r)| g.dtype != r.dtype || g.len() != r.len())
        {
            return Err(ApproxError::Metric(
                "candidate and reference outputs differ in number, type or length".into(),
            ));
        }
        if let UserMetric::Cmd(cmd) = self {
            return run_command(cmd, got, reference);
        }
        let (mut num, mut den, mut max, mut lo, mut hi, mut n) =
            (0f64, 0f64, 0f64, f64::INFINITY, f64::NEG_INFINITY, 0usize);
        for (g, r) in got.iter().zip(reference) {
            for i in 0..g.len() {
                let (a, b) = (g.get(i), r.get(i));
                // NaN in both, or equal values (infinities included), is no error.
                let d = if (a.is_nan() && b.is_nan()) || a == b {
                    0.0
                } else {
                    let d = (a - b).abs();
                    if d.is_nan() {
                        f64::INFINITY
                    } else {
                        d
                    }
                };
                let d = match self {
                    UserMetric::MaxUlp => ulps(g.dtype, a, b),
                    _ => d,
                };
                num += d * d;
                if b.is_finite() {
                    den += b * b;
                    lo = lo.min(b);
                    hi = hi.max(b);
                }
                max = max.max(d);
                n += 1;
            }
        }
        Ok(match self {
            UserMetric::RelL2 if den > 0.0 => (num / den).sqrt(),
            UserMetric::RelL2 => num.sqrt(),
            UserMetric::MaxAbs | UserMetric::MaxUlp => max,
            UserMetric::Psnr => {
                let range = if hi > lo { hi - lo } else { 1.0 };
                let mse = num / n.max(1) as f64;
                if mse == 0.0 {
                    f64::INFINITY
                } else {
                    10.0 * (range * range / mse).log10()
                }
            }
            UserMetric::Cmd(_) => unreachable!("handled above"),
        })
    }
}

fn write_outputs(dir: &Path, outs: &[HostArray]) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| ApproxError::Metric(format!("cannot create {}: {e}", dir.display())))?;
    for (i, o) in outs.iter().enumerate() {
        let p = dir.join(format!("{i}.npy"));
        std::fs::write(&p, o.to_npy())
            .map_err(|e| ApproxError::Metric(format!("cannot write {}: {e}", p.display())))?;
    }
    Ok(())
}

fn run_command(cmd: &str, got: &[HostArray], reference: &[HostArray]) -> Result<f64> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "sigpu-approx-metric-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    ));
    let (rd, od) = (dir.join("ref"), dir.join("out"));
    let result = (|| {
        write_outputs(&rd, reference)?;
        write_outputs(&od, got)?;
        let line = cmd
            .replace("{ref}", &rd.display().to_string())
            .replace("{out}", &od.display().to_string());
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&line)
            .env("SIGPU_REF_DIR", &rd)
            .env("SIGPU_OUT_DIR", &od)
            .output()
            .map_err(|e| ApproxError::Metric(format!("cannot run {cmd:?}: {e}")))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(ApproxError::Metric(format!(
                "{cmd:?} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let last = stdout
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        last.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| !v.is_nan())
            .ok_or_else(|| {
                ApproxError::Metric(format!(
                    "{cmd:?} printed {last:?} as its last line, not a number"
                ))
            })
    })();
    std::fs::remove_dir_all(&dir).ok();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> HostArray {
        HostArray {
            dtype: Dtype::F32,
            shape: vec![v.len()],
            bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    #[test]
    fn names_parse_and_print() {
        for m in [
            "rel-l2",
            "max-abs",
            "max-ulp",
            "psnr",
            "cmd:python3 s.py {ref} {out}",
        ] {
            assert_eq!(m.parse::<UserMetric>().unwrap().to_string(), m);
        }
        let e = "l2".parse::<UserMetric>().unwrap_err().to_string();
        assert!(e.contains("rel-l2, max-abs"), "{e}");
        assert!("cmd: ".parse::<UserMetric>().is_err());
    }

    /// Values computed with numpy:
    /// r = np.array([1, 2, 3, 4], np.float32); a = np.array([1, 2.5, 3, 3.9], np.float32)
    /// rel-l2 = np.linalg.norm(a - r) / np.linalg.norm(r) = 0.09309493021042603 (in float64)
    /// max-abs = 0.5; psnr = 10*log10(3**2 / np.mean((a-r)**2)) = 21.413291846561084
    #[test]
    fn metrics_match_numpy() {
        let r = [f32s(&[1.0, 2.0, 3.0, 4.0])];
        let a = [f32s(&[1.0, 2.5, 3.0, 3.9])];
        let d = 3.9f32 as f64 - 4.0;
        let rel = UserMetric::RelL2.evaluate(&a, &r).unwrap();
        assert!(
            (rel - (0.25 + d * d).sqrt() / 30f64.sqrt()).abs() < 1e-15,
            "{rel}"
        );
        assert!((rel - 0.093_094_930_210_426_03).abs() < 1e-12, "{rel}");
        assert_eq!(UserMetric::MaxAbs.evaluate(&a, &r).unwrap(), 0.5);
        let psnr = UserMetric::Psnr.evaluate(&a, &r).unwrap();
        assert!((psnr - 10.0 * (9.0 / ((0.25 + d * d) / 4.0)).log10()).abs() < 1e-12);
        assert!((psnr - 21.413_291_846_561_084).abs() < 1e-9, "{psnr}");
        assert_eq!(UserMetric::Psnr.evaluate(&r, &r).unwrap(), f64::INFINITY);
        // ulps: 1 + 2^-23 is one ulp above 1; -0 and +0 are 0 apart; across zero counts both sides.
        let one_up = f32::from_bits(1f32.to_bits() + 1);
        let u = UserMetric::MaxUlp
            .evaluate(
                &[f32s(&[one_up, -0.0, -f32::from_bits(1)])],
                &[f32s(&[1.0, 0.0, f32::from_bits(1)])],
            )
            .unwrap();
        assert_eq!(u, 2.0);
        // NaN where the reference is a number is infinitely wrong; NaN in both is equal.
        let e = UserMetric::MaxAbs
            .evaluate(&[f32s(&[f32::NAN, f32::NAN])], &[f32s(&[1.0, f32::NAN])])
            .unwrap();
        assert_eq!(e, f64::INFINITY);
        assert!(UserMetric::RelL2.evaluate(&a, &[f32s(&[1.0])]).is_err());
    }

    #[test]
    fn psnr_loss_round_trips() {
        let m = UserMetric::Psnr;
        assert!((m.loss(40.0) - 1e-4).abs() < 1e-18);
        assert!((m.value(m.loss(37.5)) - 37.5).abs() < 1e-12);
        assert_eq!(UserMetric::RelL2.loss(0.3), 0.3);
    }

    #[test]
    fn an_external_command_scores_the_outputs() {
        let r = [f32s(&[1.0, 2.0])];
        let a = [f32s(&[1.0, 2.5])];
        // The command sees both folders and their files; it prints a fixed number here.
        let m: UserMetric = "cmd:test -f {ref}/0.npy && test -f $SIGPU_OUT_DIR/0.npy && echo 0.125"
            .parse()
            .unwrap();
        assert_eq!(m.evaluate(&a, &r).unwrap(), 0.125);
        let bad: UserMetric = "cmd:echo hello".parse().unwrap();
        let e = bad.evaluate(&a, &r).unwrap_err().to_string();
        assert!(e.contains("\"hello\"") && e.contains("not a number"), "{e}");
        let fail: UserMetric = "cmd:echo oops >&2; exit 3".parse().unwrap();
        let e = fail.evaluate(&a, &r).unwrap_err().to_string();
        assert!(e.contains("oops"), "{e}");
    }
}

//! The per-call-site search: each site's best form by measured sensitivity, then sites added
//! greedily, least sensitive first, each at the largest λ the bound still allows.
//!
//! 1. Measure the accurate kernel (T₀).
//! 2. For every site and every approximate form it has: that site alone in that form on every
//!    warp. Its *sensitivity* is loss / (T₀ − T): error bought per millisecond saved. The site
//!    keeps its least sensitive form that saves time; a site whose forms save nothing stays
//!    accurate.
//! 3. In order of sensitivity, add each site to the setting at full λ; if the loss then breaks
//!    the bound, bisect its λ (the loss grows with λ) for the largest that keeps it. A site is
//!    kept only if the setting gets faster.
//!
//! Measurements: 1 + Σ forms + about log₂(warps) per site that needs a λ.

use crate::sites::{Choice, Form, Setting, Site};
use serde::Serialize;

/// One measured setting.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Measured {
    /// Time (milliseconds when measured on the GPU).
    pub time: f64,
    /// Loss against the accurate output (lower is better).
    pub loss: f64,
}

/// Runs a kernel at a setting and measures it.
pub trait SettingEvaluator {
    /// What a failed measurement returns.
    type Error;
    /// Measures `setting`.
    fn measure(&mut self, setting: &Setting) -> Result<Measured, Self::Error>;
}

/// A site's sensitivity in one form.
#[derive(Clone, Debug, Serialize)]
pub struct Sensitivity {
    /// The site's index.
    pub site: usize,
    /// The form tried alone on every warp.
    pub form: Form,
    /// Its time and loss.
    pub measured: Measured,
    /// loss / (T₀ − T); infinite when it saves nothing.
    pub per_ms: f64,
}

/// What the per-site search found.
#[derive(Clone, Debug, Serialize)]
pub struct GreedyOutcome {
    /// The setting chosen.
    pub setting: Setting,
    /// Its time and loss.
    pub measured: Measured,
    /// The accurate kernel's.
    pub base: Measured,
    /// Each site alone in each approximate form.
    pub sensitivities: Vec<Sensitivity>,
    /// Settings measured.
    pub runs: usize,
}

/// Runs the per-site search over `sites` (warps per block `warps`) under loss ≤ `bound`.
pub fn greedy<V: SettingEvaluator>(
    ev: &mut V,
    sites: &[Site],
    warps: u32,
    bound: f64,
    guards: bool,
) -> Result<GreedyOutcome, V::Error> {
    let n = sites.len();
    let mut runs = 0;
    let mut measure = |ev: &mut V, s: &Setting| {
        runs += 1;
        ev.measure(s)
    };
    let acc = Setting::accurate(n, guards);
    let base = measure(ev, &acc)?;
    let mut sensitivities = Vec::new();
    for site in sites {
        for &form in site.forms.iter().filter(|&&f| f != Form::Accurate) {
            let mut s = acc.clone();
            s.choices[site.index] = Choice {
                form,
                lambda: warps,
            };
            let m = measure(ev, &s)?;
            let saved = base.time - m.time;
            sensitivities.push(Sensitivity {
                site: site.index,
                form,
                measured: m,
                per_ms: if saved > 0.0 {
                    m.loss.max(0.0) / saved
                } else {
                    f64::INFINITY
                },
            });
        }
    }
    // Each site's least sensitive form that saves time, the sites in that order.
    let mut order: Vec<&Sensitivity> = Vec::new();
    for site in sites {
        let best = sensitivities
            .iter()
            .filter(|x| x.site == site.index && x.per_ms.is_finite())
            .min_by(|a, b| {
                a.per_ms
                    .total_cmp(&b.per_ms)
                    .then(a.measured.time.total_cmp(&b.measured.time))
            });
        order.extend(best);
    }
    order.sort_by(|a, b| a.per_ms.total_cmp(&b.per_ms));
    let (mut setting, mut cur) = (acc, base);
    for cand in order {
        let at = |lambda| {
            let mut s = setting.clone();
            s.choices[cand.site] = Choice {
                form: cand.form,
                lambda,
            };
            s
        };
        let full = at(warps);
        let m = measure(ev, &full)?;
        let (s, m) = if m.loss <= bound {
            (full, m)
        } else {
            // Largest λ in 1..warps keeping the bound (λ = 0 is the current setting).
            let (mut lo, mut hi, mut best) = (0u32, warps, None);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                let s = at(mid);
                let m = measure(ev, &s)?;
                if m.loss <= bound {
                    lo = mid;
                    best = Some((s, m));
                } else {
                    hi = mid;
                }
            }
            match best {
                Some(b) => b,
                None => continue,
            }
        };
        if m.time < cur.time {
            setting = s;
            cur = m;
        }
    }
    Ok(GreedyOutcome {
        setting,
        measured: cur,
        base,
        sensitivities,
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sites::SiteKind;
    use std::convert::Infallible;

    fn site(index: usize, function: &str, poly: bool) -> Site {
        let mut forms = vec![Form::Accurate, Form::Sfu];
        if poly {
            forms.push(Form::Poly);
        }
        Site {
            index,
            function: function.into(),
            kind: SiteKind::Standard,
            line: index + 1,
            forms,
        }
    }

    /// A fake kernel: each approximated site saves `save[k][form]` per warp share and adds
    /// `err[k][form]` per warp share (warps: 8).
    struct Fake {
        save: Vec<[f64; 2]>,
        err: Vec<[f64; 2]>,
    }

    impl SettingEvaluator for Fake {
        type Error = Infallible;
        fn measure(&mut self, s: &Setting) -> Result<Measured, Infallible> {
            let (mut time, mut loss) = (10.0, 0.0);
            for (k, c) in s.choices.iter().enumerate() {
                let f = match c.form {
                    Form::Accurate => continue,
                    Form::Sfu => 0,
                    Form::Poly => 1,
                };
                let share = c.lambda.min(8) as f64 / 8.0;
                time -= self.save[k][f] * share;
                loss += self.err[k][f] * share;
            }
            Ok(Measured { time, loss })
        }
    }

    #[test]
    fn cheap_sites_go_all_the_way_and_the_sensitive_one_gets_a_partial_lambda() {
        // Site 0 (sin): SFU saves 3 ms at loss 1e-3, the polynomial 2 ms at 1e-6.
        // Site 1 (exp): SFU saves 1 ms at 1e-7. Site 2 (log): SFU saves 2 ms at 8e-5.
        let sites = [
            site(0, "sinf", true),
            site(1, "expf", true),
            site(2, "logf", true),
        ];
        let mut fake = Fake {
            save: vec![[3.0, 2.0], [1.0, 0.1], [2.0, -0.5]],
            err: vec![[1e-3, 1e-6], [1e-7, 1e-7], [8e-5, 1e-7]],
        };
        let o = greedy(&mut fake, &sites, 8, 5e-5, true).unwrap();
        let c = &o.setting.choices;
        assert_eq!(
            c[0],
            Choice {
                form: Form::Poly,
                lambda: 8
            },
            "{o:?}"
        );
        assert_eq!(
            c[1],
            Choice {
                form: Form::Sfu,
                lambda: 8
            },
            "{o:?}"
        );
        // log: 8e-5 per full λ on top of 1.1e-6; the bound allows λ = 4 (4e-5 + 1.1e-6).
        assert_eq!(
            c[2],
            Choice {
                form: Form::Sfu,
                lambda: 4
            },
            "{o:?}"
        );
        assert!(o.measured.loss <= 5e-5);
        assert!((o.measured.time - (10.0 - 2.0 - 1.0 - 1.0)).abs() < 1e-12);
        // Better than any single λ with every site in its SFU form: that is capped by sin.
        let single = (0..=8)
            .map(|l| fake.measure(&Setting::uniform(3, l, true)).unwrap())
            .filter(|m| m.loss <= 5e-5)
            .map(|m| m.time)
            .fold(f64::INFINITY, f64::min);
        assert!(o.measured.time < single, "{} vs {single}", o.measured.time);
        assert!(o.runs <= 1 + 6 + 3 + 3, "{} runs", o.runs);
    }

    #[test]
    fn sites_that_save_nothing_stay_accurate() {
        let sites = [site(0, "sqrtf", false)];
        let mut fake = Fake {
            save: vec![[-0.1, 0.0]],
            err: vec![[1e-9, 0.0]],
        };
        let o = greedy(&mut fake, &sites, 8, 1.0, false).unwrap();
        assert_eq!(o.setting.choices[0].form, Form::Accurate);
        assert_eq!(o.measured, o.base);
    }
}

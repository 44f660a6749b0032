//! The per-call-site search: each site's forms measured alone, then two greedy walks, and the
//! faster setting of the two that keeps the bound.
//!
//! 1. Measure the accurate kernel (T₀) and every site alone on every warp in each approximate
//!    form. A form's *sensitivity* is loss / (T₀ − T): error bought per millisecond saved
//!    (infinite when it saves nothing alone).
//! 2. Bottom-up: sites in order of their least sensitive form; each is tried at full λ in its
//!    forms, fastest alone first, and kept in the first that keeps the bound and makes the
//!    setting faster; when none is kept and the fastest form broke the bound, its λ is
//!    bisected (the loss grows with λ) for the largest that keeps it.
//! 3. Top-down: every site in its fastest form on every warp; while the bound is broken, the
//!    site with the largest loss alone gets the largest λ that keeps the bound (bisection), or
//!    none. This finds what sites alone do not show: on the H200 the two `cosf` calls of a
//!    log-likelihood kernel are each slower alone on the SFU but faster together.
//!
//! Measurements: 1 + Σ forms, then about one per form plus log₂(warps) per bisection, per walk.

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

/// Counts measurements.
struct Counted<'v, V> {
    ev: &'v mut V,
    runs: usize,
}

impl<V: SettingEvaluator> Counted<'_, V> {
    fn measure(&mut self, s: &Setting) -> Result<Measured, V::Error> {
        self.runs += 1;
        self.ev.measure(s)
    }

    /// The largest λ in 1..warps at which site `k` in `form` keeps `bound` on top of
    /// `setting`, with its measurement.
    fn bisect(
        &mut self,
        setting: &Setting,
        (k, form): (usize, Form),
        warps: u32,
        bound: f64,
    ) -> Result<Option<(Setting, Measured)>, V::Error> {
        let (mut lo, mut hi, mut best) = (0u32, warps, None);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let s = with(setting, k, form, mid);
            let m = self.measure(&s)?;
            if m.loss <= bound {
                lo = mid;
                best = Some((s, m));
            } else {
                hi = mid;
            }
        }
        Ok(best)
    }
}

fn with(setting: &Setting, k: usize, form: Form, lambda: u32) -> Setting {
    let mut s = setting.clone();
    s.choices[k] = Choice { form, lambda };
    s
}

/// Runs the per-site search over `sites` (warps per block `warps`) under loss ≤ `bound`.
pub fn greedy<V: SettingEvaluator>(
    ev: &mut V,
    sites: &[Site],
    warps: u32,
    bound: f64,
    guards: bool,
) -> Result<GreedyOutcome, V::Error> {
    let mut c = Counted { ev, runs: 0 };
    let acc = Setting::accurate(sites.len(), guards);
    let base = c.measure(&acc)?;
    let mut sensitivities = Vec::new();
    for site in sites {
        for &form in site.forms.iter().filter(|&&f| f != Form::Accurate) {
            let m = c.measure(&with(&acc, site.index, form, warps))?;
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
    let solo = |k: usize| -> Vec<&Sensitivity> {
        let mut v: Vec<&Sensitivity> = sensitivities.iter().filter(|x| x.site == k).collect();
        v.sort_by(|a, b| a.measured.time.total_cmp(&b.measured.time));
        v
    };
    // Sites by their least sensitive form (ties, e.g. all infinite, by the smaller loss).
    let key = |k: usize| {
        let v = solo(k);
        let per_ms = v.iter().map(|x| x.per_ms).fold(f64::INFINITY, f64::min);
        let loss = v
            .iter()
            .map(|x| x.measured.loss)
            .fold(f64::INFINITY, f64::min);
        (per_ms, loss)
    };
    let mut order: Vec<usize> = sites.iter().map(|s| s.index).collect();
    order.sort_by(|&a, &b| {
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
    // Bottom-up.
    let (mut up, mut up_m) = (acc.clone(), base);
    for &k in &order {
        let forms = solo(k);
        let mut kept = false;
        let mut fastest_breaks = false;
        for (i, x) in forms.iter().enumerate() {
            let s = with(&up, k, x.form, warps);
            let m = c.measure(&s)?;
            fastest_breaks |= i == 0 && m.loss > bound;
            if m.loss <= bound && m.time < up_m.time {
                (up, up_m, kept) = (s, m, true);
                break;
            }
        }
        if !kept && fastest_breaks {
            if let Some(x) = forms.first() {
                if let Some((s, m)) = c.bisect(&up, (k, x.form), warps, bound)? {
                    if m.time < up_m.time {
                        (up, up_m) = (s, m);
                    }
                }
            }
        }
    }
    // Top-down.
    let mut down = acc.clone();
    for site in sites {
        if let Some(x) = solo(site.index).first() {
            down = with(&down, site.index, x.form, warps);
        }
    }
    let mut down_m = c.measure(&down)?;
    let mut by_loss: Vec<usize> = sites.iter().map(|s| s.index).collect();
    by_loss.sort_by(|&a, &b| {
        let l = |k| solo(k).first().map_or(0.0, |x| x.measured.loss);
        l(b).total_cmp(&l(a))
    });
    for &k in &by_loss {
        if down_m.loss <= bound {
            break;
        }
        let form = down.choices[k].form;
        if form == Form::Accurate {
            continue;
        }
        match c.bisect(&down, (k, form), warps, bound)? {
            Some((s, m)) => (down, down_m) = (s, m),
            None => {
                down = with(&down, k, Form::Accurate, 0);
                down_m = c.measure(&down)?;
            }
        }
    }
    let (setting, measured) = if down_m.loss <= bound && down_m.time < up_m.time {
        (down, down_m)
    } else {
        (up, up_m)
    };
    Ok(GreedyOutcome {
        setting,
        measured,
        base,
        sensitivities,
        runs: c.runs,
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
        // 7 alone; bottom-up 1 + 2 + (2 + 3 bisecting); top-down 1 + (3 + 1) + 3.
        assert_eq!(o.runs, 7 + 8 + 8, "{} runs", o.runs);
    }

    /// Two sites that are each slower alone but faster together (as two `cosf` calls were on
    /// the H200): the top-down walk finds them.
    #[test]
    fn sites_faster_only_together_are_found_top_down() {
        struct Pair;
        impl SettingEvaluator for Pair {
            type Error = Infallible;
            fn measure(&mut self, s: &Setting) -> Result<Measured, Infallible> {
                let on: Vec<bool> = s
                    .choices
                    .iter()
                    .map(|c| c.form != Form::Accurate && c.lambda > 0)
                    .collect();
                let time = 10.0 + 0.2 * on.iter().filter(|&&b| b).count() as f64
                    - if on.iter().all(|&b| b) { 4.0 } else { 0.0 };
                Ok(Measured { time, loss: 1e-9 })
            }
        }
        let sites = [site(0, "cosf", false), site(1, "cosf", false)];
        let o = greedy(&mut Pair, &sites, 8, 1e-6, true).unwrap();
        assert!((o.measured.time - 6.4).abs() < 1e-12, "{o:?}");
        assert!(o
            .setting
            .choices
            .iter()
            .all(|c| c.form == Form::Sfu && c.lambda == 8));
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

//! The per-call-site search ([`crate::user::greedy`]) on a suite app whose kernel mixes
//! functions, against the study's best single λ, timed back to back at equal confidence.
//!
//! The single λ is OMG's pick at equal confidence (or OMG's when that was not settled); the
//! per-site setting keeps the same bound, E ≤ ratio · E(λ_max). Per-site λs count warps within
//! the block (each group one copy of the body), whatever index the study's λ used; range
//! guards are on, as in the user tune.

use super::{Session, Variant};
use crate::error::{ApproxError, Result};
use crate::noise::{compare, Comparison, Confidence, Timer, Verdict};
use crate::sites::{Plan, Setting};
use crate::user::greedy::{greedy, Measured, SettingEvaluator};
use serde::Serialize;
use sigpu_runtime::cuda::{time_gpu, Kernel, KernelSource};
use std::collections::BTreeMap;

/// What the per-site search found for one app, against the best single λ.
#[derive(Clone, Debug, Serialize)]
pub struct AppPerSite {
    /// The kernel's call sites, `function@line`, in source order.
    pub sites: Vec<String>,
    /// The setting chosen, one `form/λ` per site.
    pub setting: String,
    /// Its median time, milliseconds.
    pub time_ms: f64,
    /// Its error in the app's metric.
    pub error: f64,
    /// The bound it kept.
    pub bound: f64,
    /// Settings the greedy search measured (each one compiled).
    pub runs: usize,
    /// The best single λ it is compared with.
    pub single_lambda: u32,
    /// Per-site setting (a) against that λ (b), timed back to back until the intervals
    /// separate or are called equal.
    pub comparison: Comparison,
    /// The per-site setting is faster at confidence.
    pub beats_single: bool,
}

/// Whether `plan`'s sites call more than one function (divisions count as one).
pub fn mixes_functions(plan: &Plan) -> bool {
    let mut names: Vec<&str> = plan.sites.iter().map(|s| s.function.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names.len() > 1
}

/// The app's settings compiled once each, measured on its workload.
struct Sites<'s> {
    s: &'s mut Session,
    plan: &'s Plan,
    warps: u32,
    compiled: BTreeMap<String, Kernel>,
}

impl Sites<'_> {
    fn kernel(&mut self, setting: &Setting) -> Result<Kernel> {
        let code =
            self.plan
                .source(setting, self.warps)
                .map_err(|source| ApproxError::Transform {
                    file: self.s.app.file.to_owned(),
                    source,
                })?;
        if let Some(k) = self.compiled.get(&code) {
            return Ok(k.clone());
        }
        let src = KernelSource::generated(self.s.app.file, code.clone());
        let k = self.s.gpu.kernel(&src, self.plan.kernel())?;
        self.compiled.insert(code, k.clone());
        Ok(k)
    }
}

impl SettingEvaluator for Sites<'_> {
    type Error = ApproxError;
    fn measure(&mut self, setting: &Setting) -> Result<Measured> {
        let k = self.kernel(setting)?;
        let s = &mut *self.s;
        let loss = s.error_of(&k)?;
        let gpu = s.gpu.clone();
        let runs = s.runs;
        let mut t = time_gpu(&gpu, 1, runs, || s.launch_kernel(&k))?.samples_ms;
        Ok(Measured {
            time: sigpu_runtime::cuda::median(&mut t),
            loss,
        })
    }
}

/// Candidate 0: the per-site kernel; any other: the λ kernel at `single`.
struct Pair<'s> {
    s: &'s mut Session,
    per_site: Kernel,
    single: u32,
}

impl Timer for Pair<'_> {
    type Error = ApproxError;
    fn time(&mut self, candidate: u32, runs: usize) -> Result<Vec<f64>> {
        let gpu = self.s.gpu.clone();
        let (s, k) = (&mut *self.s, &self.per_site);
        let v = Variant::Lambda(self.single);
        Ok(if candidate == 0 {
            time_gpu(&gpu, 1, runs, || s.launch_kernel(k))?.samples_ms
        } else {
            time_gpu(&gpu, 1, runs, || s.launch(v))?.samples_ms
        })
    }
}

/// Runs the per-site search on `s`'s app under `bound` (`None` when its kernel calls one
/// function only) and compares its pick with the λ kernel at `single`.
pub fn per_site(s: &mut Session, single: u32, bound: f64) -> Result<Option<AppPerSite>> {
    let app = s.app;
    let plan = Plan::new(app.code, app.kernel).map_err(|source| ApproxError::Transform {
        file: app.file.to_owned(),
        source,
    })?;
    if !mixes_functions(&plan) {
        return Ok(None);
    }
    let (x, y, z) = s.work.config().block_dim;
    let warps = (x * y * z).div_ceil(32);
    let mut ev = Sites {
        s,
        plan: &plan,
        warps,
        compiled: BTreeMap::new(),
    };
    let g = greedy(&mut ev, &plan.sites, warps, bound, true)?;
    let per_site = ev.kernel(&g.setting)?;
    let c = Confidence::default();
    let comparison = compare(
        &mut Pair {
            s: ev.s,
            per_site,
            single,
        },
        0,
        1,
        &c,
    )?;
    Ok(Some(AppPerSite {
        sites: plan
            .sites
            .iter()
            .map(|x| format!("{}@{}", x.function, x.line))
            .collect(),
        setting: g.setting.describe(&plan.sites),
        time_ms: g.measured.time,
        error: g.measured.loss,
        bound,
        runs: g.runs,
        single_lambda: single,
        beats_single: comparison.verdict == Verdict::Faster,
        comparison,
    }))
}

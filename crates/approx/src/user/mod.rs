//! Tuning a user's own kernel: their CUDA source, their data, their quality metric and bound.
//!
//! [`tune`] transforms the kernel ([`crate::sites::Plan`], built on the λ transformation),
//! runs the accurate kernel once for the reference outputs, then
//! - measures T(λ) and the metric for every λ of the warp-in-block kernel (0 ..= warps per
//!   block) and replays the SMP / HEU / OMG searches on that curve;
//! - with a [`Confidence`], settles OMG's pick and HEU's against it by repeated timings
//!   ([`crate::noise`]);
//! - with `per_site`, runs the per-call-site search ([`greedy`]);
//! - writes the kernel at the fastest setting that keeps the bound as a drop-in source
//!   (same kernel name and parameters), measures that source again, and with NVML the energy
//!   of the accurate, all-SFU and chosen kernels;
//! - with held-out arguments, checks the chosen kernel's error on data the tuning never saw.

pub mod args;
pub mod greedy;
pub mod metric;
mod report;
pub mod request;
mod session;

pub use crate::energy::Energy;
pub use report::{Holdout, Row, UserReport};
pub use session::LaunchShape;

use crate::error::{ApproxError, Result};
use crate::noise::{self, Confidence};
use crate::search::{self, check_ratio, Bound, FnEvaluator, Method, Point};
use crate::sites::Setting;
use args::HostArg;
use greedy::{greedy, Measured, SettingEvaluator};
use metric::{Qos, UserMetric};
use session::{Runner, Session};
use sigpu_runtime::cuda::{Gpu, Kernel};

/// What to tune and how.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    /// How outputs are scored.
    pub metric: UserMetric,
    /// The bound the chosen kernel keeps.
    pub qos: Qos,
    /// The single-λ searches to run (on one measured curve).
    pub methods: Vec<Method>,
    /// Also search a form and λ per call site.
    pub per_site: bool,
    /// Range guards on the per-site SFU forms.
    pub guards: bool,
    /// Settle OMG's and HEU's picks by repeated timings.
    pub confidence: Option<Confidence>,
    /// Seconds of back-to-back runs per energy figure (0: no energy).
    pub energy_seconds: f64,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions {
            metric: UserMetric::RelL2,
            qos: Qos::Ratio(0.8),
            methods: Method::ALL.to_vec(),
            per_site: true,
            guards: true,
            confidence: Some(Confidence::default()),
            energy_seconds: 0.5,
        }
    }
}

/// The user's kernel: where it came from, its text and its name.
#[derive(Clone, Debug)]
pub struct UserKernel {
    /// The file name, for messages and the compile cache.
    pub file: String,
    /// The CUDA source.
    pub source: String,
    /// The `extern "C" __global__` kernel to tune.
    pub kernel: String,
}

/// Checks a QoS bound for `metric`: a finite value (≥ 0 except for PSNR), or a ratio in (0, 1].
pub fn check_qos(metric: &UserMetric, qos: Qos) -> Result<Qos> {
    match qos {
        Qos::Ratio(r) => check_ratio(r).map(Qos::Ratio),
        Qos::Value(v) if v.is_finite() && (metric.higher_is_better() || v >= 0.0) => Ok(qos),
        Qos::Value(v) => Err(ApproxError::User(format!(
            "--qos {v}: the bound must be a finite {} for {metric}",
            if metric.higher_is_better() {
                "number (dB)"
            } else {
                "number >= 0"
            }
        ))),
    }
}

struct Curve<'s>(&'s mut Session);

impl search::Evaluator for Curve<'_> {
    type Error = ApproxError;
    fn measure(&mut self, lambda: u32) -> Result<Point> {
        let s = &mut *self.0;
        let k = s.block.clone();
        let value = s.value(&k, Some(lambda as i32))?;
        let error = s.metric.loss(value);
        Ok(Point {
            lambda,
            time: s.median_ms(&k, Some(lambda as i32))?,
            error,
        })
    }
}

impl noise::Timer for Curve<'_> {
    type Error = ApproxError;
    fn time(&mut self, lambda: u32, runs: usize) -> Result<Vec<f64>> {
        let k = self.0.block.clone();
        self.0.runner.time(&k, Some(lambda as i32), runs)
    }
}

struct Sites<'s>(&'s mut Session);

impl SettingEvaluator for Sites<'_> {
    type Error = ApproxError;
    fn measure(&mut self, setting: &Setting) -> Result<Measured> {
        let (k, _) = self.0.kernel_for(setting)?;
        let value = self.0.value(&k, None)?;
        let loss = self.0.metric.loss(value);
        Ok(Measured {
            time: self.0.median_ms(&k, None)?,
            loss,
        })
    }
}

/// Tunes `kernel` on `args` launched as `shape`; `holdout` arguments (same kinds, other data)
/// check the chosen kernel on inputs the tuning never saw.
pub fn tune(
    gpu: &Gpu,
    kernel: &UserKernel,
    args: &[HostArg],
    shape: &LaunchShape,
    opts: &TuneOptions,
    holdout: Option<&[HostArg]>,
    progress: &dyn Fn(&str),
) -> Result<UserReport> {
    let qos = check_qos(&opts.metric, opts.qos)?;
    if opts.methods.is_empty() {
        return Err(ApproxError::User("no search method given".into()));
    }
    progress(&format!("{}: transforming and compiling", kernel.kernel));
    let mut s = Session::open(
        gpu,
        (&kernel.file, &kernel.source, &kernel.kernel),
        args,
        shape,
        opts.metric.clone(),
    )?;
    let warps = s.warps;
    // The accurate kernel against itself: nonzero means the reference is not reproducible.
    let repeat = {
        let k = s.original.clone();
        s.value(&k, None)?
    };
    progress(&format!(
        "{}: T(λ) and E(λ) for λ = 0..={warps}",
        kernel.kernel
    ));
    let mut curve = Vec::new();
    for l in 0..=warps {
        curve.push(search::Evaluator::measure(&mut Curve(&mut s), l)?);
    }
    let bound = match qos {
        Qos::Ratio(r) => Bound::Ratio(r),
        Qos::Value(v) => Bound::Absolute(opts.metric.loss(v)),
    };
    let mut searches = Vec::new();
    for &m in &opts.methods {
        let mut replay = FnEvaluator(|l: u32| Ok::<_, ApproxError>(curve[l as usize]));
        searches.push(
            search::search_within(m, &mut replay, warps, bound)
                .map_err(|e| e.for_app(&kernel.kernel))?,
        );
    }
    let loss_bound = searches[0].bound;
    let find = |m: Method| searches.iter().find(|o| o.method == m);
    let mut heu_vs_omg = None;
    let mut omg_confident = None;
    if let (Some(c), Some(heu), Some(omg)) = (opts.confidence, find(Method::Heu), find(Method::Omg))
    {
        progress(&format!(
            "{}: settling OMG and HEU by repeated timings",
            kernel.kernel
        ));
        let feasible: Vec<(u32, f64)> = omg
            .trace
            .iter()
            .filter(|p| p.error <= loss_bound)
            .map(|p| (p.lambda, p.time))
            .collect();
        let heu_l = heu.lambda;
        let (pick, _) = noise::omg_at_confidence(&mut Curve(&mut s), &feasible, 0.05, &c)?;
        omg_confident = Some(pick);
        heu_vs_omg = Some(noise::heu_vs_omg(&mut Curve(&mut s), heu_l, pick, &c)?);
    }
    let single_lambda = omg_confident
        .or_else(|| find(Method::Omg).map(|o| o.lambda))
        .or_else(|| find(Method::Heu).map(|o| o.lambda))
        .unwrap_or(searches[0].lambda);
    let nsites = s.plan.sites.len();
    let per_site = if opts.per_site {
        progress(&format!(
            "{}: per-call-site search over {nsites} sites",
            kernel.kernel
        ));
        let sites = s.plan.sites.clone();
        Some(greedy(
            &mut Sites(&mut s),
            &sites,
            warps,
            loss_bound,
            opts.guards,
        )?)
    } else {
        None
    };
    // The chosen setting: the faster of the best single λ and the per-site setting.
    let single = Setting::uniform(nsites, single_lambda, false);
    let single_ms = curve[single_lambda as usize].time;
    let chosen = match &per_site {
        Some(g) if g.measured.time < single_ms && g.measured.loss <= loss_bound => {
            g.setting.clone()
        }
        _ => single,
    };
    progress(&format!("{}: measuring the chosen source", kernel.kernel));
    let (tuned, tuned_source) = s.kernel_for(&chosen)?;
    let counter = if opts.energy_seconds > 0.0 {
        crate::energy::counter(gpu)
    } else {
        Err("energy not measured (energy seconds 0)".to_owned())
    };
    let t0 = curve[0].time;
    let mut rows = Vec::new();
    let row =
        |s: &mut Session, name: &str, what: String, k: &Kernel, lam: Option<i32>| -> Result<Row> {
            let value = s.value(k, lam)?;
            let time_ms = s.median_ms(k, lam)?;
            let energy = match &counter {
                Ok(c) => Some(s.runner.energy(c, k, lam, time_ms, opts.energy_seconds)?),
                Err(_) => None,
            };
            Ok(Row {
                variant: name.to_owned(),
                setting: what,
                time_ms,
                speedup: t0 / time_ms,
                error: value,
                meets: s.metric.loss(value) <= loss_bound,
                energy,
            })
        };
    let (orig, sfu) = (s.original.clone(), s.sfu.clone());
    rows.push(row(&mut s, "accurate", "as written".into(), &orig, None)?);
    rows.push(row(
        &mut s,
        "all-sfu",
        "every call and division on the SFU".into(),
        &sfu,
        None,
    )?);
    let what = chosen.describe(&s.plan.sites);
    let chosen_row = row(&mut s, "chosen", what, &tuned, None)?;
    rows.push(chosen_row);
    // Speedups against the kernel as written (the curve's λ = 0 carries the split's branch).
    let accurate_ms = rows[0].time_ms;
    for r in &mut rows {
        r.speedup = accurate_ms / r.time_ms;
    }
    let chosen_row = rows[2].clone();
    let holdout = match holdout {
        Some(h) => {
            progress(&format!("{}: held-out inputs", kernel.kernel));
            let mut r = Runner::open(gpu, h, shape)?;
            let reference = r.outputs(&s.original, None)?;
            let got = r.outputs(&tuned, None)?;
            let value = s.metric.evaluate(&got, &reference)?;
            Some(Holdout {
                error: value,
                meets: s.metric.loss(value) <= loss_bound,
            })
        }
        None => None,
    };
    Ok(UserReport {
        kernel: kernel.kernel.clone(),
        file: kernel.file.clone(),
        metric: opts.metric.to_string(),
        qos,
        bound: opts.metric.value(loss_bound),
        loss_bound,
        grid: shape.grid,
        block: shape.block,
        warps,
        reference_repeat_error: repeat,
        rewrites: s.plan.transformed.rewrites.clone(),
        sites: s.plan.sites.clone(),
        curve,
        searches,
        omg_confident,
        heu_vs_omg,
        per_site,
        single_lambda,
        chosen_setting: chosen,
        chosen: chosen_row,
        rows,
        energy: match &counter {
            Ok(c) => format!("NVML energy counter of {}", c.name()),
            Err(e) => e.clone(),
        },
        holdout,
        tuned_source,
    })
}

//! Tuning λ for an app on a GPU: the measured T(λ) and E(λ) and the searches of [`search`]
//! over them.
//!
//! [`search`]: crate::search

pub mod energy;
pub mod per_site;

use crate::apps::{App, Extra, Workload};
use crate::catalog::Precision;
use crate::error::{ApproxError, Result};
use crate::numeric::Values;
use crate::search::{self, check_ratio, FnEvaluator, Method, Outcome, Point};
use crate::transform::{transform, Transformed};
use serde::Serialize;
use sigpu_runtime::cuda::{time_gpu, Gpu, Kernel, KernelSource};
use sigpu_runtime::nvml::EnergyCounter;
use std::collections::BTreeMap;
use std::time::Instant;

/// Which warp index λ is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Partition {
    /// The hardware warp slot `%warpid` (the paper's choice): λ ranges over the SM's occupied
    /// slots; which warps are approximated depends on scheduling.
    Slot,
    /// The warp index within the block: reproducible, λ ranges over the block's warps.
    Block,
}

impl std::str::FromStr for Partition {
    type Err = ApproxError;
    fn from_str(s: &str) -> Result<Partition> {
        match s {
            "slot" => Ok(Partition::Slot),
            "block" => Ok(Partition::Block),
            _ => Err(ApproxError::UnknownPartition(s.to_owned())),
        }
    }
}

/// An app on the GPU with its generated kernels and its accurate output.
pub struct Session {
    gpu: Gpu,
    /// The app being tuned.
    pub app: &'static App,
    /// Its generated kernels and the rewrites made.
    pub transformed: Transformed,
    /// Which warp index λ is compared with.
    pub partition: Partition,
    work: Workload,
    original: Kernel,
    sfu: Kernel,
    lambda: Kernel,
    block: Kernel,
    reference: Values,
    /// Timed repetitions per point (after one warm-up); the median is used.
    pub runs: usize,
}

/// A kernel variant of the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The app's kernel as written (accurate functions).
    Original,
    /// `K_sfu`: every call approximated.
    Sfu,
    /// The λ kernel of the session's partition at this λ (0: all accurate).
    Lambda(u32),
}

impl Session {
    /// Transforms and compiles `app`, uploads its inputs (from `seed`) and runs the original
    /// kernel once for the reference output.
    pub fn open(gpu: &Gpu, app: &'static App, partition: Partition, seed: u64) -> Result<Self> {
        let transformed =
            transform(app.code, app.kernel).map_err(|source| ApproxError::Transform {
                file: app.file.to_owned(),
                source,
            })?;
        let src = KernelSource::generated(app.file, transformed.source.clone());
        let f = |name: &str| gpu.kernel(&src, name);
        let mut s = Session {
            gpu: gpu.clone(),
            app,
            partition,
            work: app.workload(gpu, &src, seed)?,
            original: f(&transformed.kernel)?,
            sfu: f(&transformed.sfu_kernel)?,
            lambda: f(&transformed.lambda_kernel)?,
            block: f(&transformed.block_kernel)?,
            transformed,
            reference: Values::F32(Vec::new()),
            runs: 5,
        };
        s.reference = s.output(Variant::Original)?;
        // Short kernels get more repetitions: about 20 ms of timed work per point, 5 to 50.
        let t = time_gpu(gpu, 1, 3, || s.launch(Variant::Original))?.median_ms;
        s.runs = (20.0 / t.max(1e-3)).ceil().clamp(5.0, 50.0) as usize;
        Ok(s)
    }

    fn launch(&mut self, v: Variant) -> sigpu_runtime::cuda::Result<()> {
        let (f, mut extra) = match (v, self.partition) {
            (Variant::Original, _) => (&self.original, Extra::None),
            (Variant::Sfu, _) => (&self.sfu, Extra::None),
            (Variant::Lambda(l), Partition::Slot) => (
                &self.lambda,
                Extra::Slot {
                    lambda: l as i32,
                    slots: None,
                },
            ),
            (Variant::Lambda(l), Partition::Block) => {
                (&self.block, Extra::Block { lambda: l as i32 })
            }
        };
        self.work.run(&self.gpu, f, &mut extra)
    }

    /// Enqueues one run of `k`: a kernel with the app kernel's parameters (a per-site source).
    fn launch_kernel(&mut self, k: &Kernel) -> sigpu_runtime::cuda::Result<()> {
        self.work.run(&self.gpu, k, &mut Extra::None)
    }

    /// The app's error metric of kernel `k` (the app kernel's parameters) against the
    /// accurate output, outputs poisoned first.
    fn error_of(&mut self, k: &Kernel) -> Result<f64> {
        self.work.poison(&self.gpu)?;
        self.launch_kernel(k)?;
        let got = self.work.output(&self.gpu)?;
        Ok(self.app.metric.error(&got, &self.reference))
    }

    /// The output of one run of variant `v`, outputs poisoned first.
    pub fn output(&mut self, v: Variant) -> Result<Values> {
        self.work.poison(&self.gpu)?;
        self.launch(v)?;
        Ok(self.work.output(&self.gpu)?)
    }

    /// Median milliseconds of variant `v`.
    pub fn time_ms(&mut self, v: Variant) -> Result<f64> {
        let gpu = self.gpu.clone();
        let runs = self.runs;
        Ok(time_gpu(&gpu, 1, runs, || self.launch(v))?.median_ms)
    }

    /// The app's error metric of variant `v` against the accurate output.
    pub fn error(&mut self, v: Variant) -> Result<f64> {
        let got = self.output(v)?;
        Ok(self.app.metric.error(&got, &self.reference))
    }

    /// The largest useful λ: for `%warpid`, one more than the largest slot any of the
    /// kernel's warps occupied (recorded by the λ kernel itself); for the block index, the
    /// warps per block.
    pub fn max_lambda(&mut self) -> Result<u32> {
        match self.partition {
            Partition::Block => {
                let (x, y, z) = self.work.config().block_dim;
                Ok((x * y * z).div_ceil(32))
            }
            Partition::Slot => {
                let mut slots = self.gpu.upload(&[0u32])?;
                let mut extra = Extra::Slot {
                    lambda: 0,
                    slots: Some(&mut slots),
                };
                self.work.run(&self.gpu, &self.lambda, &mut extra)?;
                Ok(self.gpu.download(&slots)?[0] + 1)
            }
        }
    }

    /// Energy of variant `v` (one run takes about `run_ms`) over at least `seconds` of
    /// back-to-back runs.
    pub fn energy(
        &mut self,
        counter: &EnergyCounter,
        v: Variant,
        run_ms: f64,
        seconds: f64,
    ) -> Result<crate::energy::Energy> {
        let gpu = self.gpu.clone();
        crate::energy::measure(&gpu, counter, run_ms, seconds, || Ok(self.launch(v)?))
    }

    /// Registers per thread of the original and the λ kernel.
    pub fn registers(&self) -> (i32, i32) {
        let regs = |k: &Kernel| k.function().num_regs().unwrap_or(-1);
        let lam = match self.partition {
            Partition::Slot => &self.lambda,
            Partition::Block => &self.block,
        };
        (regs(&self.original), regs(lam))
    }
}

impl crate::noise::Timer for Session {
    type Error = ApproxError;
    fn time(&mut self, lambda: u32, runs: usize) -> Result<Vec<f64>> {
        let gpu = self.gpu.clone();
        let v = Variant::Lambda(lambda);
        Ok(time_gpu(&gpu, 1, runs, || self.launch(v))?.samples_ms)
    }
}

impl search::Evaluator for Session {
    type Error = ApproxError;
    fn measure(&mut self, lambda: u32) -> Result<Point> {
        let v = Variant::Lambda(lambda);
        Ok(Point {
            lambda,
            time: self.time_ms(v)?,
            error: self.error(v)?,
        })
    }
}

/// The curve and each method's search: with `full_curve`, every λ measured once and each
/// search replayed on that curve; otherwise each search run live, the curve being the union
/// of the points they measured.
fn searches(
    s: &mut Session,
    (max, ratio): (u32, f64),
    methods: &[Method],
    full_curve: bool,
    progress: &dyn Fn(&str),
) -> Result<(Vec<Point>, Vec<Outcome>)> {
    let (mut curve, mut searches) = (Vec::new(), Vec::new());
    let app = s.app.name;
    if full_curve {
        for l in 0..=max {
            progress(&format!("{app}: λ = {l} of {max}"));
            curve.push(search::Evaluator::measure(s, l)?);
        }
    }
    for &m in methods {
        let outcome = if full_curve {
            let mut replay = FnEvaluator(|l: u32| Ok::<_, ApproxError>(curve[l as usize]));
            search::search(m, &mut replay, max, ratio)
        } else {
            progress(&format!("{app}: {m} search"));
            search::search(m, s, max, ratio)
        };
        searches.push(outcome.map_err(|e| e.for_app(app))?);
    }
    if !full_curve {
        curve = searches
            .iter()
            .flat_map(|o| o.trace.iter().copied())
            .collect();
        curve.sort_by_key(|p| p.lambda);
        curve.dedup_by_key(|p| p.lambda);
    }
    Ok((curve, searches))
}

/// One app tuned: its curve, its searches and the reference times.
#[derive(Clone, Debug, Serialize)]
pub struct AppReport {
    /// The app's name ([`App::name`]).
    pub app: &'static str,
    /// Its abbreviation in Li et al.'s SFU-approximation paper (Table 6).
    pub abbr: &'static str,
    /// Element type of its data.
    pub precision: Precision,
    /// Standard functions the kernel calls.
    pub functions: &'static str,
    /// How its output error is scored.
    pub metric: crate::apps::Metric,
    /// Which warp index λ was compared with.
    pub partition: Partition,
    /// Rewrites the transformation made, by original form.
    pub rewrites: BTreeMap<String, usize>,
    /// λ_max: warp slots occupied (`slot`) or warps per block (`block`).
    pub max_lambda: u32,
    /// The QoS ratio the searches kept: E(λ) ≤ ratio · E(λ_max).
    pub qos_ratio: f64,
    /// Registers per thread of the untransformed kernel (−1 when the driver does not say).
    pub registers_original: i32,
    /// Registers per thread of the λ kernel used (−1 when the driver does not say).
    pub registers_lambda: i32,
    /// The untransformed kernel and the all-SFU kernel, milliseconds.
    pub original_ms: f64,
    /// The all-SFU kernel's median time, milliseconds.
    pub sfu_ms: f64,
    /// T(0) / T(λ_max): the most the partition can give.
    pub sfu_speedup: f64,
    /// E(λ_max): the all-SFU kernel's error, in the app's metric.
    pub sfu_error: f64,
    /// Every λ measured (all of them when the curve was requested).
    pub curve: Vec<Point>,
    /// Each search's result, one per method run.
    pub searches: Vec<Outcome>,
    /// OMG's pick settled by repeated timings and HEU's against it at equal confidence (when
    /// both searches ran).
    pub confident: Option<crate::noise::HeuVsOmg>,
    /// Joules per run and watts of the λ kernel at λ = 0, λ_max and each search's pick (absent
    /// when energy was not measured: no NVML counter, or no seconds asked for).
    pub energy: Option<energy::AppEnergy>,
    /// The per-call-site search against the best single λ (when asked for and the kernel
    /// mixes functions).
    pub per_site: Option<per_site::AppPerSite>,
    /// Wall-clock seconds this app took: compiling, the curve, the confidence timings and the
    /// energy stretches.
    pub seconds: f64,
}

/// How an app is tuned.
#[derive(Clone, Copy)]
pub struct TuneOptions<'a> {
    /// The QoS ratio: E(λ) ≤ ratio · E(λ_max).
    pub ratio: f64,
    /// The searches to run.
    pub methods: &'a [Method],
    /// Which warp index λ is compared with.
    pub partition: Partition,
    /// Measure every λ once and replay each search on that curve (its `runs` count the points
    /// it asks for); otherwise each search runs live.
    pub full_curve: bool,
    /// NVML's counter and the seconds of back-to-back runs per energy figure; `None` for no
    /// energy.
    pub energy: Option<(&'a EnergyCounter, f64)>,
    /// Also run the per-call-site search when the kernel mixes functions, against the best
    /// single λ (each setting it measures is compiled: seconds per app).
    pub per_site: bool,
}

/// Tunes `app` as `opts` say: the curve, the searches, OMG and HEU at equal confidence (when
/// both ran) and the energy of the picks (when a counter is given).
pub fn tune(
    gpu: &Gpu,
    app: &'static App,
    opts: &TuneOptions,
    progress: &dyn Fn(&str),
) -> Result<AppReport> {
    let started = Instant::now();
    let TuneOptions {
        ratio,
        methods,
        partition,
        full_curve,
        ..
    } = *opts;
    check_ratio(ratio)?;
    progress(&format!("{}: compiling and preparing inputs", app.name));
    let mut s = Session::open(gpu, app, partition, 0x5eed)?;
    let max = s.max_lambda()?;
    progress(&format!("{}: reference times", app.name));
    let original_ms = s.time_ms(Variant::Original)?;
    let sfu_ms = s.time_ms(Variant::Sfu)?;
    let (curve, searches) = searches(&mut s, (max, ratio), methods, full_curve, progress)?;
    let t0 = curve.first().map_or(f64::NAN, |p| p.time);
    let top = curve.iter().find(|p| p.lambda == max).copied();
    let (registers_original, registers_lambda) = s.registers();
    let find = |m: Method| searches.iter().find(|o| o.method == m);
    let confident = match (find(Method::Heu), find(Method::Omg)) {
        (Some(heu), Some(omg)) => {
            progress(&format!("{}: OMG and HEU at equal confidence", app.name));
            let feasible: Vec<(u32, f64)> = (omg.trace.iter())
                .filter(|p| p.error <= omg.bound)
                .map(|p| (p.lambda, p.time))
                .collect();
            let c = crate::noise::Confidence::default();
            let heu = heu.lambda;
            let (pick, _) = crate::noise::omg_at_confidence(&mut s, &feasible, 0.02, &c)?;
            Some(crate::noise::heu_vs_omg(&mut s, heu, pick, &c)?)
        }
        _ => None,
    };
    // Against OMG's pick (at confidence when settled), else the one search that ran.
    let per_site = match (opts.per_site, find(Method::Omg).or(searches.first())) {
        (true, Some(best)) => {
            progress(&format!("{}: per-call-site search", app.name));
            let single = confident.map_or(best.lambda, |c| c.omg);
            per_site::per_site(&mut s, single, best.bound)?
        }
        _ => None,
    };
    let energy = match opts.energy {
        Some((counter, seconds)) if seconds > 0.0 => {
            progress(&format!("{}: energy ({seconds} s per λ)", app.name));
            let t_max = top.map_or(sfu_ms, |p| p.time);
            let t0 = if t0.is_finite() { t0 } else { original_ms };
            Some(energy::AppEnergy::measure(
                &searches,
                (max, t0, t_max),
                |l, ms| s.energy(counter, Variant::Lambda(l), ms, seconds),
            )?)
        }
        _ => None,
    };
    Ok(AppReport {
        app: app.name,
        abbr: app.abbr,
        precision: app.precision,
        functions: app.functions,
        metric: app.metric,
        partition,
        rewrites: s.transformed.rewrites.clone(),
        max_lambda: max,
        qos_ratio: ratio,
        registers_original,
        registers_lambda,
        original_ms,
        sfu_ms,
        sfu_speedup: top.map_or(f64::NAN, |p| t0 / p.time),
        sfu_error: top.map_or(f64::NAN, |p| p.error),
        curve,
        searches,
        confident,
        energy,
        per_site,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_names() {
        assert_eq!("block".parse::<Partition>().unwrap(), Partition::Block);
        assert!("warp"
            .parse::<Partition>()
            .unwrap_err()
            .to_string()
            .contains("slot or block"));
    }
}

//! What tuning a user kernel found, as JSON (serde) and as a table.

use super::greedy::GreedyOutcome;
use super::metric::Qos;
use crate::energy::Energy;
use crate::noise::HeuVsOmg;
use crate::search::{Outcome, Point};
use crate::sites::{Setting, Site};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One variant measured: time, error, energy.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// `accurate`, `all-sfu` or `chosen`.
    pub variant: String,
    /// What it computes each site with.
    pub setting: String,
    /// Median time, milliseconds.
    pub time_ms: f64,
    /// The accurate kernel's time (as written) over this one's.
    pub speedup: f64,
    /// The metric's value against the accurate outputs.
    pub error: f64,
    /// Whether it keeps the bound.
    pub meets: bool,
    /// Energy per run and average power; `None` where NVML is not available.
    pub energy: Option<Energy>,
}

/// The chosen kernel on held-out inputs.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Holdout {
    /// The metric's value against the accurate kernel on the held-out inputs.
    pub error: f64,
    /// Whether it keeps the bound.
    pub meets: bool,
}

/// Everything `tune` measured and chose.
#[derive(Clone, Debug, Serialize)]
pub struct UserReport {
    /// The kernel's name.
    pub kernel: String,
    /// Its file.
    pub file: String,
    /// The metric, as named.
    pub metric: String,
    /// The bound as given.
    pub qos: Qos,
    /// The bound in the metric's unit (for a ratio, as resolved on the all-SFU end).
    pub bound: f64,
    /// The bound as a loss (what the searches compare; equal to `bound` except for PSNR).
    pub loss_bound: f64,
    /// Blocks per grid.
    pub grid: [u32; 3],
    /// Threads per block.
    pub block: [u32; 3],
    /// Warps per block: λ runs over 0..=warps.
    pub warps: u32,
    /// The accurate kernel's metric against its own first run (nonzero: not reproducible).
    pub reference_repeat_error: f64,
    /// The transformation's rewrites, by original form.
    pub rewrites: BTreeMap<String, usize>,
    /// The call sites.
    pub sites: Vec<Site>,
    /// T(λ) (ms) and loss for every λ of the warp-in-block kernel.
    pub curve: Vec<Point>,
    /// Each single-λ search replayed on the curve (`error` and `bound` are losses).
    pub searches: Vec<Outcome>,
    /// OMG's pick at equal confidence (repeated timings), when settled.
    pub omg_confident: Option<u32>,
    /// HEU's pick against OMG's at equal confidence.
    pub heu_vs_omg: Option<HeuVsOmg>,
    /// The per-call-site search, when run.
    pub per_site: Option<GreedyOutcome>,
    /// The best single λ (OMG at confidence, else the first search's).
    pub single_lambda: u32,
    /// The setting written out.
    pub chosen_setting: Setting,
    /// The written source measured again.
    pub chosen: Row,
    /// Accurate, all-SFU and chosen kernels.
    pub rows: Vec<Row>,
    /// Where the energy figures come from, or why there are none.
    pub energy: String,
    /// The chosen kernel on held-out inputs.
    pub holdout: Option<Holdout>,
    /// The kernel's source at the chosen setting (a drop-in: same name and parameters).
    #[serde(skip)]
    pub tuned_source: String,
}

fn energy_cells(e: &Option<Energy>) -> (String, String) {
    match e {
        Some(e) => (
            format!("{:.3e}", e.joules_per_run),
            format!("{:.1}", e.watts),
        ),
        None => ("n/a".into(), "n/a".into()),
    }
}

impl UserReport {
    /// The report as a table.
    pub fn text(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{} ({}): grid {:?}, block {:?}, λ = 0..={} (warp index within the block)",
            self.kernel, self.file, self.grid, self.block, self.warps
        );
        let _ = writeln!(
            t,
            "metric {}, bound {:?} -> {} {:.4e}; accurate vs itself: {:.3e}",
            self.metric,
            self.qos,
            if self.metric == "psnr" { ">=" } else { "<=" },
            self.bound,
            self.reference_repeat_error
        );
        let _ = writeln!(t, "energy: {}", self.energy);
        let _ = writeln!(
            t,
            "{:<9} {:>10} {:>8} {:>11} {:>5} {:>10} {:>7}  setting",
            "variant", "time ms", "speedup", "error", "ok", "J/run", "W"
        );
        for r in &self.rows {
            let (j, w) = energy_cells(&r.energy);
            let _ = writeln!(
                t,
                "{:<9} {:>10.4} {:>7.3}x {:>11.4e} {:>5} {:>10} {:>7}  {}",
                r.variant,
                r.time_ms,
                r.speedup,
                r.error,
                if r.meets { "yes" } else { "NO" },
                j,
                w,
                r.setting
            );
        }
        for o in &self.searches {
            let _ = writeln!(
                t,
                "{}: λ = {} of {}, {:.3}x, loss {:.3e} (bound {:.3e}), {} runs",
                o.method, o.lambda, o.max_lambda, o.speedup, o.error, o.bound, o.runs
            );
        }
        if let Some(h) = &self.heu_vs_omg {
            let verdict = h.comparison.map_or("same λ".to_owned(), |c| {
                format!("{:?} after {} rounds", c.verdict, c.rounds)
            });
            let _ = writeln!(
                t,
                "HEU λ = {} vs OMG λ = {} at equal confidence: {verdict}; {}",
                h.heu,
                h.omg,
                if h.agree { "agree" } else { "disagree" }
            );
        }
        if let Some(g) = &self.per_site {
            let single = self.curve[self.single_lambda as usize].time;
            let _ = writeln!(
                t,
                "per call site: {:.4} ms ({:.3}x) vs best single λ = {}: {:.4} ms ({:.3}x); {} settings measured",
                g.measured.time,
                g.base.time / g.measured.time,
                self.single_lambda,
                single,
                g.base.time / single,
                g.runs
            );
        }
        if let Some(h) = &self.holdout {
            let _ = writeln!(
                t,
                "held-out inputs: error {:.4e}, {}",
                h.error,
                if h.meets {
                    "within the bound"
                } else {
                    "OUTSIDE the bound"
                }
            );
        }
        t
    }
}

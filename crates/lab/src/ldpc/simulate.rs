//! `sigpu ldpc simulate` on its ranks and devices: the sweep run over the GPUs (none: the
//! CPU) of every rank, which points this run computed and which were kept from the results
//! file (`--resume`), and how the work is spread, in words.

use anyhow::Result;
use sigpu_ldpc::plan;
use sigpu_ldpc::sim::sweep::{self, Sweep, SweepEvent, SweepSpec};
use sigpu_ldpc::sim::PointResult;
use sigpu_ldpc::Code;
use sigpu_runtime::cuda::Gpu;
use sigpu_runtime::ranks::Ranks;
use sigpu_runtime::Target;

/// A finished sweep and the points in it that this run did not compute (kept from the
/// results file).
pub struct Swept {
    /// The sweep, every point.
    pub sweep: Sweep,
    /// Indices into `sweep.points` of the points kept from the file.
    pub kept: Vec<usize>,
}

impl Swept {
    /// The points kept from the file.
    pub fn kept(&self) -> impl Iterator<Item = &PointResult> {
        self.kept.iter().map(|&i| &self.sweep.points[i])
    }
}

/// Runs `spec` of `code` on `ranks`, each on its `gpus` (none: the CPU), telling `progress`
/// of every event ([`sweep::run_ranks`]).
pub fn run(
    ranks: &dyn Ranks,
    code: &Code,
    gpus: Vec<Gpu>,
    spec: &SweepSpec,
    progress: &mut dyn FnMut(SweepEvent<'_>),
) -> Result<Swept> {
    let targets: Vec<Target> = gpus.into_iter().map(|g| plan::target(Some(g))).collect();
    // The SNRs of the points this run computed; the others came from the file (resume).
    let mut fresh: Vec<f64> = Vec::new();
    let sweep = sweep::run_ranks(ranks, code, &targets, spec, &mut |event| {
        if let SweepEvent::Point(p) = &event {
            fresh.push(spec.axis.of(p));
        }
        progress(event)
    })?;
    let kept = (0..sweep.points.len())
        .filter(|&i| !fresh.contains(&spec.axis.of(&sweep.points[i])))
        .collect();
    Ok(Swept { sweep, kept })
}

/// How the sweep is spread, for stderr: over several GPUs (every rank), over MPI ranks
/// (rank 0).
pub fn spread_notes(ranks: &dyn Ranks, gpus: &[Gpu]) -> Vec<String> {
    let mut notes = Vec::new();
    if gpus.len() > 1 {
        let names: Vec<_> = gpus.iter().map(|g| g.info().name.clone()).collect();
        let on = (ranks.size() > 1).then(|| format!("rank {}: ", ranks.rank()));
        let (on, count, names) = (on.unwrap_or_default(), gpus.len(), names.join(", "));
        notes.push(format!(
            "{on}spreading the sweep over {count} GPUs: {names}"
        ));
    }
    let size = ranks.size();
    if ranks.rank() == 0 && size > 1 {
        notes.push(format!(
            "spreading the sweep over {size} MPI ranks; rank 0 writes the results"
        ));
    }
    notes
}

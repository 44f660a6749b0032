//! Resumable SNR sweeps: one [`PointResult`] per SNR point, every point written to a JSON
//! file ([`Sweep`]) as soon as it is done, so that a long sweep can be stopped and resumed
//! (`sigpu ldpc simulate --out FILE --resume` is this module).
//!
//! ```no_run
//! use sigpu_ldpc::sim::sweep::{self, SnrAxis, SweepEvent, SweepSpec};
//! use sigpu_ldpc::sim::Link;
//! # fn main() -> sigpu_ldpc::Result<()> {
//! let code = sigpu_ldpc::Code::standard("dvbt2-short-1/2")?;
//! let config = sigpu_ldpc::DecoderConfig::default();
//! let link = Link::qpsk(1);
//! let mut spec = SweepSpec::new(link, SnrAxis::EbN0, sweep::parse_points("1.0:2.0:0.25")?, config);
//! spec.out = Some("sweep.json".into());
//! spec.resume = true;
//! // On the CPU. Each finished point is in sweep.json already.
//! let sweep = sweep::run(&code, &[sigpu_runtime::Target::cpu()], &spec, &mut |event| {
//!     if let SweepEvent::Point(p) = event {
//!         println!("{:.2} dB: BER {:.2e}", p.eb_n0_db, p.ber);
//!     }
//! })?;
//! assert_eq!(sweep.points.len(), 5);
//! # Ok(())
//! # }
//! ```

use super::file_check::{self, SAME_DB};
use super::frames::Link;
use super::header::{demapper_key, SweepDecoder};
use super::parallel::{run_point_ranks, Source};
use super::point::{PointResult, StopRule};
use crate::channel::Snr;
use crate::code::Code;
use crate::decoder::{Decoder, DecoderConfig, Precision};
use crate::error::{LdpcError, Result};
use crate::gpu::{self, BATCH};
use crate::interleave::{BitInterleaver, Interleaving};
use crate::nr::sim::{NrSweep, NrSweepKey};
use crate::plan;
use serde::{Deserialize, Serialize};
use sigpu_runtime::ranks::{One, Ranks};
use sigpu_runtime::Target;
use std::path::{Path, PathBuf};

/// The results file of a sweep: what ran, and the points done so far in SNR order.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Sweep {
    /// The code's name.
    pub code: String,
    /// The constellation.
    pub modulation: String,
    /// The demapper.
    pub demapper: String,
    /// Sweeps written before the interleaver existed ran without one.
    #[serde(default)]
    pub bit_interleaver: Interleaving,
    /// The decoder.
    pub decoder: SweepDecoder,
    /// A 5G NR sweep's block and link (k, n, base graph, Z, N_cb, rvs, Q_m, constellation,
    /// fading); absent for the other codes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nr: Option<NrSweepKey>,
    /// Seed of the information bits and the noise.
    pub seed: u64,
    /// The stop rule's frame errors.
    pub min_errors: u64,
    /// The stop rule's frames.
    pub max_frames: u64,
    /// The points done, in SNR order.
    pub points: Vec<PointResult>,
}

impl Sweep {
    /// A sweep file written by [`run`] (or `sigpu ldpc simulate --out`).
    pub fn read(path: &Path) -> Result<Sweep> {
        let text = std::fs::read_to_string(path).map_err(|source| LdpcError::Io {
            path: path.to_owned(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|e| LdpcError::Sweep {
            path: path.to_owned(),
            message: format!("not a sweep file from `sigpu ldpc simulate --out`: {e}"),
        })
    }

    /// Refuses a file whose points are not what a sweep writes (see [`file_check`]): counts
    /// that contradict each other or the code's sizes (`code`, when known), rates that are
    /// not the counts', a point listed twice or stopped before the file's rule, decoder
    /// fields that name another decoder than the description. The message names the file
    /// and the point.
    pub fn validate(&self, path: &Path, code: Option<&Code>) -> Result<()> {
        file_check::check(self, code).map_err(|why| LdpcError::Sweep {
            path: path.to_owned(),
            message: format!(
                "{why}: not what a sweep writes (the file was changed or damaged); remove \
                 that point or write another --out"
            ),
        })
    }

    /// Whether `other` ran the same code, link, decoder and seed (its points can be kept):
    /// the decoder in full where both files name it by its fields, else by its description.
    fn same_run(&self, other: &Sweep) -> bool {
        let decoders = match (&self.decoder, &other.decoder) {
            (SweepDecoder::Spec(a), SweepDecoder::Spec(b)) => a == b,
            _ => true,
        };
        decoders && self.nr == other.nr && self.run_key() == other.run_key()
    }

    /// What [`Sweep::same_run`] compares: code, link, decoder and seed.
    fn run_key(&self) -> (&str, &str, String, Interleaving, &str, u64) {
        let demapper = demapper_key(&self.demapper);
        let (code, modulation, decoder) =
            (&*self.code, &*self.modulation, self.decoder.description());
        (
            code,
            modulation,
            demapper,
            self.bit_interleaver,
            decoder,
            self.seed,
        )
    }

    /// Writes the file atomically (a stopped sweep leaves the previous version whole).
    fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(|e| LdpcError::Sweep {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        sigpu_runtime::fs::write_atomic(path, text.as_bytes()).map_err(|source| LdpcError::Io {
            path: path.to_owned(),
            source,
        })
    }
}

/// The SNR a sweep's points name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnrAxis {
    /// Es/N0: per constellation symbol.
    EsN0,
    /// Eb/N0: per information bit.
    EbN0,
}

// `es-n0 | esn0 | snr` and `eb-n0 | ebn0` (any case, `-` and `_` ignored).
crate::text::from_names!(SnrAxis, "SNR axis", crate::text::name_key,
    ["es-n0", "esn0", "snr"] => SnrAxis::EsN0,
    ["eb-n0", "ebn0"] => SnrAxis::EbN0,
);

/// The canonical spelling: `es-n0` or `eb-n0`.
impl std::fmt::Display for SnrAxis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SnrAxis::EsN0 => "es-n0",
            SnrAxis::EbN0 => "eb-n0",
        })
    }
}

impl SnrAxis {
    /// The SNR of a point `db` dB on this axis.
    pub fn snr(self, db: f64) -> Snr {
        match self {
            SnrAxis::EsN0 => Snr::EsN0(db),
            SnrAxis::EbN0 => Snr::EbN0(db),
        }
    }

    /// A point's SNR on this axis, dB.
    pub fn of(self, p: &PointResult) -> f64 {
        match self {
            SnrAxis::EsN0 => p.es_n0_db,
            SnrAxis::EbN0 => p.eb_n0_db,
        }
    }

    /// `Es/N0` or `Eb/N0`.
    pub fn label(self) -> &'static str {
        match self {
            SnrAxis::EsN0 => "Es/N0",
            SnrAxis::EbN0 => "Eb/N0",
        }
    }
}

/// No channel lies beyond ±1000 dB, and the bound keeps the 1e-9 dB rounding of
/// [`parse_points`] finite (1e308 · 1e9 would be infinite).
const LIMIT_DB: f64 = 1000.0;

/// Refuses SNR points that name no channel: not finite, beyond ±1000 dB, more than 10001 of
/// them, or none. What [`parse_points`] checks of a comma list, for points given as numbers.
pub fn check_points(points: &[f64]) -> Result<()> {
    if points.is_empty() {
        return Err(LdpcError::invalid("no SNR points"));
    }
    if let Some(x) = points
        .iter()
        .find(|x| !(x.is_finite() && x.abs() <= LIMIT_DB))
    {
        return Err(LdpcError::invalid(format!(
            "SNR {x} dB: values must be finite and lie within ±{LIMIT_DB} dB"
        )));
    }
    if points.len() > 10_001 {
        return Err(LdpcError::invalid(format!(
            "SNR list of {} points: at most 10001",
            points.len()
        )));
    }
    check_distinct(points)
}

/// Refuses a point listed twice (it would run, and be stored, once per listing).
fn check_distinct(points: &[f64]) -> Result<()> {
    let mut sorted = points.to_vec();
    sorted.sort_by(f64::total_cmp);
    for run in sorted.chunk_by(|a, b| (b - a).abs() < SAME_DB) {
        if run.len() > 1 {
            return Err(LdpcError::invalid(format!(
                "SNR point {} dB is listed {} times: list each point once",
                run[0],
                run.len()
            )));
        }
    }
    Ok(())
}

/// SNR points in dB: `START:STOP:STEP` (both ends included) or a comma list.
pub fn parse_points(spec: &str) -> Result<Vec<f64>> {
    let within = |x: f64| x.is_finite() && x.abs() <= LIMIT_DB;
    let bad = || {
        LdpcError::invalid(format!("SNR {spec:?}: expected START:STOP:STEP (e.g. 0.5:2.0:0.1) or a comma list of dB values"))
    };
    let Some((start, rest)) = spec.split_once(':') else {
        // Finite values only: "inf" and "nan" parse as f64 but name no channel.
        let points = spec
            .split(',')
            .map(|s| {
                let x = s.trim().parse::<f64>().ok().filter(|x| x.is_finite());
                match x {
                    Some(x) if within(x) => Ok(x),
                    Some(_) => Err(LdpcError::invalid(format!(
                        "SNR {spec:?}: values must lie within ±{LIMIT_DB} dB"
                    ))),
                    None => Err(bad()),
                }
            })
            .collect::<Result<Vec<f64>>>()?;
        check_points(&points)?;
        return Ok(points);
    };
    let (stop, step) = rest.split_once(':').ok_or_else(bad)?;
    let (start, stop, step): (f64, f64, f64) = (
        start.trim().parse().map_err(|_| bad())?,
        stop.trim().parse().map_err(|_| bad())?,
        step.trim().parse().map_err(|_| bad())?,
    );
    if ![start, stop, step].iter().all(|x| x.is_finite())
        || step <= 0.0
        || stop < start
        || (stop - start) / step > 10_000.0
    {
        return Err(LdpcError::invalid(format!(
            "SNR {spec:?}: need STEP > 0 and START ≤ STOP, with at most 10000 points"
        )));
    }
    if !within(start) || !within(stop) {
        return Err(LdpcError::invalid(format!(
            "SNR {spec:?}: values must lie within ±{LIMIT_DB} dB"
        )));
    }
    let count = ((stop - start) / step + 1e-9).floor() as usize + 1;
    // Rounded to 1e-9 dB so points named alike in two runs are the same point.
    let points: Vec<f64> = (0..count)
        .map(|i| ((start + step * i as f64) * 1e9).round() / 1e9)
        .collect();
    // The last point may pass STOP by the tolerance above (1e-9 steps): still within the
    // bound, so that a list of these points parses too.
    if !points.iter().all(|&x| within(x)) {
        return Err(LdpcError::invalid(format!(
            "SNR {spec:?}: values must lie within ±{LIMIT_DB} dB"
        )));
    }
    Ok(points)
}

/// Frames per decoder call unless a sweep sets its own: a GPU batch (128) on GPUs (whose
/// frames are made on the host; with frames made on the GPU, [`crate::gpu::CHAIN_BATCH`]);
/// on the CPU, 64 per thread for the 8-bit decoder (one SIMD group each) and 2 per thread for
/// float.
pub fn default_batch(on_gpus: bool, precision: Precision, threads: usize) -> usize {
    match (on_gpus, precision) {
        (true, _) => BATCH,
        (false, Precision::Fixed8 { .. }) => 64 * threads,
        (false, Precision::Float) => 2 * threads,
    }
}

/// The most LLRs one decoder call of a sweep takes (4 GiB of f32).
const MAX_BATCH_LLRS: usize = 1 << 30;

/// What a sweep runs, besides the decoders.
#[derive(Clone, Debug)]
pub struct SweepSpec {
    /// The decoders' configuration (the file names it; [`run`] builds decoders from it).
    pub config: DecoderConfig,
    /// The link the frames go over.
    pub link: Link,
    /// The SNR the points name.
    pub axis: SnrAxis,
    /// SNR points in dB on `axis`, in the order they run.
    pub points: Vec<f64>,
    /// A point stops after this many frame errors ...
    pub min_errors: u64,
    /// ... or this many frames.
    pub max_frames: u64,
    /// Frames per decoder call; `None`: [`default_batch`].
    pub batch: Option<usize>,
    /// CPU threads making frames.
    pub threads: usize,
    /// On GPUs, make the frames on the device ([`crate::gpu::ChainDecoder`], flooding
    /// schedule) rather than on the host: the same frames and counts, without the host's
    /// frame rate as the limit. Ignored on the CPU.
    pub device_frames: bool,
    /// The results file, rewritten atomically after every point.
    pub out: Option<PathBuf>,
    /// A 5G NR code block instead of the staircase code over `link`: the frames are
    /// [`NrSweep::frames`], the code the decoders run must be [`NrSweep::decoding_code`], Eb/N0
    /// counts k / n and Q_m, and `link` lends only its modulation (for Q_m and the name) and
    /// its demapper and seed, which must equal the NR link's.
    pub nr: Option<NrSweep>,
    /// Keep the points already in `out` (which must hold the same code, link, decoder and
    /// seed) instead of running them again; points that ran with another `min_errors` /
    /// `max_frames` run again ([`SweepEvent::Note`] names each). `out` is locked while the
    /// sweep runs ([`sigpu_runtime::fs::lock_exclusive`]).
    pub resume: bool,
}

impl SweepSpec {
    /// A sweep of `points` stopping at 100 frame errors or 10000 frames, on every CPU thread,
    /// writing no file.
    pub fn new(link: Link, axis: SnrAxis, points: Vec<f64>, config: DecoderConfig) -> SweepSpec {
        SweepSpec {
            config,
            link,
            axis,
            points,
            min_errors: 100,
            max_frames: 10_000,
            batch: None,
            threads: sigpu_runtime::host::threads(),
            device_frames: true,
            out: None,
            nr: None,
            resume: false,
        }
    }

    /// The sweep of `nr` over its link: `link`'s modulation is the DVB name of the same
    /// Q_m, its demapper and seed the NR link's.
    pub fn for_nr(
        nr: NrSweep,
        modulation: crate::channel::Modulation,
        axis: SnrAxis,
        points: Vec<f64>,
        config: DecoderConfig,
    ) -> SweepSpec {
        let link = Link {
            modulation,
            demapper: nr.link.demapper,
            interleaving: Interleaving::None,
            seed: nr.link.seed,
        };
        let mut spec = SweepSpec::new(link, axis, points, config);
        spec.nr = Some(nr);
        spec
    }

    /// Where the points' frames come from.
    fn source(&self) -> Source<'_> {
        match &self.nr {
            Some(nr) => Source::Nr(nr),
            None => Source::Link(&self.link),
        }
    }

    /// Whether GPUs make this sweep's frames ([`crate::gpu::simulation_decoder`]: asked for,
    /// and the flooding schedule).
    pub fn frames_on_gpu(&self) -> bool {
        self.device_frames && self.config.schedule == crate::decoder::Schedule::Flooding
    }

    /// The file's header (no points) for `code`.
    fn header(&self, code: &Code) -> Sweep {
        let nr = self.nr.as_ref().map(NrSweep::key);
        Sweep {
            code: (self.nr.as_ref()).map_or_else(|| code.name().to_owned(), |s| s.code.name()),
            modulation: (nr.as_ref())
                .map_or(self.link.modulation.name(), |k| &k.modulation)
                .to_owned(),
            demapper: self.link.demapper.name().to_owned(),
            bit_interleaver: self.link.interleaving,
            decoder: (&self.config).into(),
            nr,
            seed: self.link.seed,
            min_errors: self.min_errors,
            max_frames: self.max_frames,
            points: Vec::new(),
        }
    }

    /// Refuses, before any work, every parameter a point would fail on later: counts of
    /// zero or beyond what the counters hold, a batch of zero frames or beyond the memory
    /// limit, no points, a point listed twice, a point whose Es/N0 no channel is made for,
    /// a decoder configuration no decoder runs, a code / constellation the interleaver does
    /// not cover. [`run`] calls it first (the CLI and Python alike); callers may call it
    /// earlier.
    pub fn validate(&self, code: &Code) -> Result<()> {
        if self.min_errors == 0 || self.max_frames == 0 {
            return Err(LdpcError::invalid(
                "--min-errors and --max-frames must be at least 1",
            ));
        }
        let n = code.n() as u64;
        if self.max_frames.checked_mul(n).is_none() {
            return Err(LdpcError::invalid(format!(
                "--max-frames {}: at most {} frames of {} bits (the bit counters are 64-bit)",
                self.max_frames,
                u64::MAX / n,
                code.n()
            )));
        }
        if let Some(batch) = self.batch {
            let most = MAX_BATCH_LLRS / code.n();
            if batch == 0 || batch > most {
                return Err(LdpcError::invalid(format!(
                    "--batch {batch}: must be in 1..={most} frames for {} (N = {}: at most \
                     2^30 LLRs, 4 GiB, per decoder call)",
                    code.name(),
                    code.n()
                )));
            }
        }
        check_points(&self.points)?;
        let rate = self.nr.as_ref().map_or(code.rate(), NrSweep::rate);
        for &db in &self.points {
            let es = self.axis.snr(db).es_n0_db(self.link.modulation, rate);
            crate::channel::check_es_n0(es).map_err(|_| {
                LdpcError::invalid(format!(
                    "SNR point {} {db} dB (Es/N0 {es:.4} dB) is outside [-300, 300] dB Es/N0: \
                     no point of the sweep ran",
                    self.axis.label()
                ))
            })?;
        }
        self.config.validate()?;
        match &self.nr {
            Some(nr) => check_nr(nr, &self.link, code),
            None => {
                BitInterleaver::new(code, self.link.modulation, self.link.interleaving).map(|_| ())
            }
        }
    }

    /// The header with the points of `out` when resuming one of the same run, and what the
    /// user should be told about the points the file held.
    fn start(&self, code: &Code) -> Result<(Sweep, Vec<String>)> {
        let mut sweep = self.header(code);
        let Some(out) = self
            .out
            .as_deref()
            .filter(|out| self.resume && out.exists())
        else {
            return Ok((sweep, Vec::new()));
        };
        let old = Sweep::read(out)?;
        old.validate(out, Some(code))?;
        if !old.same_run(&sweep) {
            return Err(LdpcError::Sweep {
                path: out.to_owned(),
                message: format!(
                    "cannot resume: it holds a sweep of {} / {} / {} seed {}, not this one",
                    old.code, old.modulation, old.decoder, old.seed
                ),
            });
        }
        if (old.min_errors, old.max_frames) == (self.min_errors, self.max_frames) {
            sweep.points = old.points;
            return Ok((sweep, Vec::new()));
        }
        // The file's points stopped by another rule: their counts (and intervals) answer
        // another question, so the ones this run asks for run again. A point of the file this
        // run does not ask for would be kept under a header naming a rule it never ran with:
        // refused, before any work.
        let rule = |e: u64, f: u64| format!("--min-errors {e} --max-frames {f}");
        let (was, now) = (
            rule(old.min_errors, old.max_frames),
            rule(self.min_errors, self.max_frames),
        );
        let key = |p: &PointResult| self.axis.of(p);
        let asked = |db: f64| self.points.iter().any(|&x| (x - db).abs() < SAME_DB);
        let orphans: Vec<String> = (old.points.iter().map(key))
            .filter(|&db| !asked(db))
            .map(|db| format!("{db}"))
            .collect();
        if !orphans.is_empty() {
            return Err(LdpcError::Sweep {
                path: out.to_owned(),
                message: format!(
                    "cannot resume: its points ran with {was}, this run asks for {now}; its \
                     points at {} dB are not in this run's list, so they would be kept under \
                     the wrong rule. Resume with {was}, add those points, or write another --out",
                    orphans.join(", ")
                ),
            });
        }
        let notes = (old.points.iter())
            .map(|p| {
                format!(
                    "{} {:.2} dB: the file's point ran with {was}; running it again with {now}",
                    self.axis.label(),
                    key(p)
                )
            })
            .collect();
        Ok((sweep, notes))
    }
}

/// Refuses an NR sweep whose decoders' code, link or Q_m are not the NR block's.
fn check_nr(nr: &NrSweep, link: &Link, code: &Code) -> Result<()> {
    nr.check()?;
    let want = nr.decoding_code()?;
    if (code.n(), code.m(), code.edges()) != (want.n(), want.m(), want.edges()) {
        return Err(LdpcError::invalid(format!(
            "the sweep's decoders run {}, not {}'s decoding code for rv {:?} \
             (NrSweep::decoding_code)",
            code.name(),
            nr.code.name(),
            nr.link.rvs
        )));
    }
    let qm = nr.link.modulation.qm();
    if link.modulation.bits_per_symbol() != qm
        || link.demapper != nr.link.demapper
        || link.seed != nr.link.seed
        || link.interleaving != Interleaving::None
    {
        return Err(LdpcError::invalid(format!(
            "the sweep's link ({}, {}, seed {}) is not the NR link's ({}, {}, seed {}): make \
             the spec with SweepSpec::for_nr",
            link.modulation.name(),
            link.demapper.name(),
            link.seed,
            nr.link.modulation.name(),
            nr.link.demapper.name(),
            nr.link.seed
        )));
    }
    Ok(())
}

/// What a sweep reports while it runs.
#[derive(Clone, Copy, Debug)]
pub enum SweepEvent<'a> {
    /// A point starts: its SNR on the sweep's axis, dB (points kept from the file are skipped).
    Start(f64),
    /// The running counts of the point, after every batch.
    Batch(&'a PointResult),
    /// A point is done (and in the file).
    Point(&'a PointResult),
    /// Something the user should know before the points run: a resumed file's point that
    /// runs again because it stopped by another rule.
    Note(&'a str),
}

/// Runs a sweep of `code` over `targets` (the CPU, or GPUs: one decoder and worker thread
/// each, from [`plan::simulation_decoder`]; an empty list is the CPU); see the module
/// documentation.
pub fn run(
    code: &Code,
    targets: &[Target],
    spec: &SweepSpec,
    progress: &mut dyn FnMut(SweepEvent<'_>),
) -> Result<Sweep> {
    run_ranks(&One, code, targets, spec, progress)
}

/// [`run`] spread over `ranks` (MPI ranks: `mpirun -n R sigpu ldpc simulate …`), each rank
/// decoding on its own `gpus` (or its CPU when it has none). Collective: every rank calls it
/// with the same `spec`. Every point's frames are split across the ranks and folded in index
/// order on every rank ([`run_point_ranks`]), so the counts equal one process's for any
/// number of ranks. Rank 0 alone reads (`resume`), locks and writes `spec.out`, decides the
/// batch (`spec.batch`, or [`default_batch`] of rank 0's targets and `spec.threads`) and
/// sends `progress` events; on the other ranks the returned sweep holds only the points run
/// here. A rank's targets are the CPU or GPUs, not both. Each rank makes frames with [`Ranks::threads`] threads (the cores the launcher bound
/// it to, or the host's divided among the ranks on it), and a decoder configured for every
/// thread (`threads` 0) gets as many. Any rank's failure is every rank's error ([`LdpcError::Ranks`]), the file
/// keeping every point finished before it.
pub fn run_ranks(
    ranks: &dyn Ranks,
    code: &Code,
    targets: &[Target],
    spec: &SweepSpec,
    progress: &mut dyn FnMut(SweepEvent<'_>),
) -> Result<Sweep> {
    let cpu = [Target::cpu()];
    let targets = if targets.is_empty() {
        &cpu[..]
    } else {
        targets
    };
    let on_gpus = targets.iter().any(|t| t.gpu().is_some());
    let mut local = spec.clone();
    if ranks.size() > 1 {
        local.threads = ranks.threads();
        if local.config.threads == 0 {
            local.config.threads = local.threads;
        }
    }
    let decoders = spec.validate(code).and_then(|()| {
        if on_gpus && targets.iter().any(|t| t.gpu().is_none()) {
            return Err(LdpcError::invalid(
                "a sweep runs on the CPU or on GPUs, not on both at once",
            ));
        }
        (targets.iter())
            .map(|t| plan::simulation_decoder(code, local.config, t, spec.device_frames))
            .collect::<Result<Vec<_>>>()
    });
    let mut decoders = LdpcError::agree(ranks, decoders)?;
    // Rank 0's, as one process on its host would take it: with rank 0's thread count.
    let batch = spec.batch.unwrap_or_else(|| {
        if on_gpus && spec.frames_on_gpu() {
            gpu::CHAIN_BATCH
        } else {
            default_batch(on_gpus, spec.config.precision, spec.threads)
        }
    });
    let mut workers: Vec<_> = decoders.iter_mut().map(|d| d.as_mut()).collect();
    run_with_ranks(ranks, &mut workers, &local, batch, progress)
}

/// Runs a sweep with the given decoders (of one code, configured as `spec.config`), `batch`
/// frames per decoder call.
pub fn run_with(
    decoders: &mut [&mut (dyn Decoder + '_)],
    spec: &SweepSpec,
    batch: usize,
    progress: &mut dyn FnMut(SweepEvent<'_>),
) -> Result<Sweep> {
    run_with_ranks(&One, decoders, spec, batch, progress)
}

/// [`run_with`] over `ranks`, as [`run_ranks`] describes; `batch` counts on rank 0 only.
pub fn run_with_ranks(
    ranks: &dyn Ranks,
    decoders: &mut [&mut (dyn Decoder + '_)],
    spec: &SweepSpec,
    batch: usize,
    progress: &mut dyn FnMut(SweepEvent<'_>),
) -> Result<Sweep> {
    let code = decoders
        .first()
        .map(|d| d.code().clone())
        .ok_or_else(|| LdpcError::invalid("a sweep needs at least one decoder"));
    let code = LdpcError::agree(ranks, code.and_then(|c| spec.validate(&c).map(|()| c)))?;
    let root = ranks.rank() == 0;
    // Rank 0: the lock, the file's points and the points to run.
    let plan = if root {
        start_file(spec, &code)
    } else {
        Ok((None, spec.header(&code), Vec::new()))
    };
    let (_lock, mut sweep, notes) = LdpcError::agree(ranks, plan)?;
    for note in &notes {
        progress(SweepEvent::Note(note));
    }
    let key = |p: &PointResult| spec.axis.of(p);
    let todo: Vec<f64> = (spec.points.iter().copied())
        .filter(|&db| !sweep.points.iter().any(|p| (key(p) - db).abs() < SAME_DB))
        .collect();
    // What rank 0 decided, on every rank: the batch and the points to run.
    let mut decided = (batch as u64).to_le_bytes().to_vec();
    decided.extend(todo.iter().flat_map(|db| db.to_le_bytes()));
    let decided = ranks.broadcast(0, &decided);
    let word = |c: &[u8]| <[u8; 8]>::try_from(c).map_or(0, u64::from_le_bytes);
    let mut words = decided.chunks(8).map(word);
    let batch = words.next().unwrap_or(1) as usize;
    let todo: Vec<f64> = words.map(f64::from_bits).collect();
    let stop = StopRule {
        min_errors: spec.min_errors,
        max_frames: spec.max_frames,
        batch,
    };
    for db in todo {
        if root {
            progress(SweepEvent::Start(db));
        }
        let snr = spec.axis.snr(db);
        let point = run_point_ranks(
            ranks,
            decoders,
            spec.source(),
            snr,
            stop,
            spec.threads,
            &mut |p| {
                if root {
                    progress(SweepEvent::Batch(p))
                }
            },
        )?;
        sweep.points.push(point.clone());
        sweep.points.sort_by(|x, y| key(x).total_cmp(&key(y)));
        let written = match &spec.out {
            Some(out) if root => sweep.write(out),
            _ => Ok(()),
        };
        LdpcError::agree(ranks, written)?;
        if root {
            progress(SweepEvent::Point(&point));
        }
    }
    Ok(sweep)
}

/// The lock on `spec.out` (held to the end: a second process on the same file would overwrite
/// these points with its own; taken before the file is read, so the points resumed are the
/// file's last), the sweep with the points kept from the file, and the notes for the user.
fn start_file(
    spec: &SweepSpec,
    code: &Code,
) -> Result<(Option<sigpu_runtime::fs::OutputLock>, Sweep, Vec<String>)> {
    let lock = match &spec.out {
        Some(out) => {
            let io = |source| LdpcError::Io {
                path: out.clone(),
                source,
            };
            sigpu_runtime::fs::check_output(out).map_err(io)?;
            Some(sigpu_runtime::fs::lock_exclusive(out).map_err(io)?)
        }
        None => None,
    };
    let (sweep, notes) = spec.start(code)?;
    Ok((lock, sweep, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_parse_as_ranges_and_lists() {
        assert_eq!(parse_points("1:2:0.5").unwrap(), [1.0, 1.5, 2.0]);
        assert_eq!(parse_points("0.1, -2").unwrap(), [0.1, -2.0]);
        // Steps that do not add up exactly still name the same points as a list would.
        assert_eq!(parse_points("0.5:0.8:0.1").unwrap(), [0.5, 0.6, 0.7, 0.8]);
        for bad in [
            "2:1:0.1",
            "1:2",
            "1:2:0",
            "x",
            "1:2:-1",
            "inf",
            "1,nan",
            "-inf:1:1",
            "64:1e308:1e308",
            "2000",
            "-1e4:0:1",
            "01e-9:1e3:08",
        ] {
            assert!(parse_points(bad).is_err(), "{bad}");
        }
        let e = parse_points("2:1:0.1").unwrap_err().to_string();
        assert!(e.contains("START ≤ STOP"), "{e}");
    }

    fn spec(out: &Path, points: &[f64]) -> SweepSpec {
        let config = DecoderConfig {
            iterations: 10,
            threads: 1,
            ..DecoderConfig::default()
        };
        let mut spec = SweepSpec::new(Link::qpsk(3), SnrAxis::EsN0, points.to_vec(), config);
        (spec.min_errors, spec.max_frames, spec.threads) = (5, 16, 1);
        spec.batch = Some(8);
        spec.out = Some(out.to_owned());
        spec.resume = true;
        spec
    }

    #[test]
    fn a_resumed_sweep_keeps_its_points_and_refuses_another_run() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sweep.json");
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        let first = run(&code, &[], &spec(&out, &[4.0]), &mut |_| {}).unwrap();
        // JSON keeps the counts exactly (tiny floats may lose their last bit).
        let counts = |s: &Sweep| -> Vec<_> {
            let c = |p: &PointResult| (p.es_n0_db, p.frames, p.frame_errors, p.bit_errors);
            s.points.iter().map(c).collect()
        };
        let read = Sweep::read(&out).unwrap();
        assert_eq!(counts(&read), counts(&first));
        assert_eq!(read.decoder, first.decoder);
        let mut started = Vec::new();
        let both = run(&code, &[], &spec(&out, &[-1.0, 4.0]), &mut |e| {
            if let SweepEvent::Start(db) = e {
                started.push(db)
            }
        })
        .unwrap();
        assert_eq!(started, [-1.0], "the point in the file is not run again");
        assert_eq!(both.points.len(), 2);
        assert_eq!(counts(&both)[1], counts(&first)[0]);
        assert!(both.points[0].fer > 0.5);
        let mut other = spec(&out, &[1.0]);
        other.link.seed = 4;
        let e = run(&code, &[], &other, &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("seed 3, not this one"), "{e}");
        std::fs::write(&out, "{}").unwrap();
        let e = run(&code, &[], &spec(&out, &[1.0]), &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a sweep file"), "{e}");
    }

    #[test]
    fn a_resume_with_another_stopping_rule_runs_the_points_again_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sweep.json");
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        run(&code, &[], &spec(&out, &[4.0]), &mut |_| {}).unwrap();
        let mut longer = spec(&out, &[4.0]);
        longer.max_frames = 32;
        let (mut notes, mut started) = (Vec::new(), Vec::new());
        let sweep = run(&code, &[], &longer, &mut |e| match e {
            SweepEvent::Note(n) => notes.push(n.to_owned()),
            SweepEvent::Start(db) => started.push(db),
            _ => {}
        })
        .unwrap();
        assert_eq!(started, [4.0], "the point runs again");
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("--max-frames 16") && notes[0].contains("--max-frames 32"));
        assert_eq!(sweep.points[0].frames, 32);
        assert_eq!(Sweep::read(&out).unwrap().max_frames, 32);
        // A file point this run does not ask for cannot be kept under the new rule.
        let mut other = spec(&out, &[3.0]);
        other.min_errors = 7;
        let e = run(&code, &[], &other, &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("at 4 dB are not in this run's list"), "{e}");
        assert_eq!(
            Sweep::read(&out).unwrap().points.len(),
            1,
            "the file is untouched"
        );
    }

    #[test]
    fn a_sweep_over_ranks_writes_one_file_equal_to_one_process() {
        let dir = tempfile::tempdir().unwrap();
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        let zero = |s: Sweep| -> Vec<PointResult> {
            let zero = |p: PointResult| p.untimed();
            s.points.into_iter().map(zero).collect()
        };
        let one = dir.path().join("one.json");
        let single = zero(run(&code, &[], &spec(&one, &[0.0, 4.0]), &mut |_| {}).unwrap());
        let out = dir.path().join("ranks.json");
        // The file holds the first point; the ranks resume it.
        run(&code, &[], &spec(&out, &[0.0]), &mut |_| {}).unwrap();
        let events = std::sync::Mutex::new(Vec::new());
        let sweeps = sigpu_runtime::ranks::on_threads(3, |ranks| {
            let mut mine = Vec::new();
            let s = run_ranks(ranks, &code, &[], &spec(&out, &[0.0, 4.0]), &mut |e| {
                if let SweepEvent::Start(db) = e {
                    mine.push(db)
                }
            });
            events.lock().unwrap().push((ranks.rank(), mine));
            s.unwrap()
        });
        assert_eq!(zero(Sweep::read(&out).unwrap()), single);
        assert_eq!(zero(sweeps[0].clone()), single);
        assert_eq!(
            sweeps[1].points.len(),
            1,
            "the other ranks hold the points they ran"
        );
        let mut events = events.into_inner().unwrap();
        events.sort_by_key(|e| e.0);
        assert_eq!(events, [(0, vec![4.0]), (1, vec![]), (2, vec![])]);
        // A rank that cannot start (here: no decoder) fails the sweep on every rank.
        let errors = sigpu_runtime::ranks::on_threads(2, |ranks| {
            let mut d = crate::decoder::cpu_decoder(&code, spec(&out, &[1.0]).config).unwrap();
            let mut decoders: Vec<&mut dyn Decoder> = vec![d.as_mut()];
            if ranks.rank() == 1 {
                decoders.clear();
            }
            let spec = spec(&out, &[1.0]);
            run_with_ranks(ranks, &mut decoders, &spec, 8, &mut |_| {})
                .unwrap_err()
                .to_string()
        });
        for e in errors {
            assert_eq!(e, "rank 1 of 2: a sweep needs at least one decoder");
        }
        assert_eq!(Sweep::read(&out).unwrap().points.len(), 2, "untouched");
    }

    #[test]
    fn an_old_file_reads_and_resumes_with_worst_case_ber_intervals() {
        use crate::sim::{ber_interval_worst_case, BerCiMethod};
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sweep.json");
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        run(&code, &[], &spec(&out, &[-1.0]), &mut |_| {}).unwrap();
        // As written before Σ e² was kept: no `bit_errors_sq`, no `ber_ci_method`, and the
        // bit-independent BER interval.
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let obj = v["points"][0].as_object_mut().unwrap();
        obj.remove("bit_errors_sq");
        obj.remove("ber_ci_method");
        let count = |key: &str| obj[key].as_u64().unwrap();
        let (f, m, e) = (count("frames"), count("frame_errors"), count("bit_errors"));
        let k = code.k() as u64;
        let narrow = crate::sim::wilson(e, f * k);
        obj.insert("ber_ci".into(), serde_json::json!(narrow));
        std::fs::write(&out, serde_json::to_string_pretty(&v).unwrap()).unwrap();
        let old = Sweep::read(&out).unwrap();
        let p = &old.points[0];
        assert!(
            e > m && m > 1,
            "several failed frames, many bit errors: {m} {e}"
        );
        assert_eq!(p.ber_ci_method, BerCiMethod::FramesWorstCase);
        assert_eq!(p.ber_ci, ber_interval_worst_case(f, k, m, e));
        assert!(p.ber_ci[0] < narrow[0] && p.ber_ci[1] > narrow[1]);
        // Resumed, the old point keeps its counts and the worst case; the new one has Σ e².
        let both = run(&code, &[], &spec(&out, &[-1.0, 4.0]), &mut |_| {}).unwrap();
        let methods = |s: &Sweep| s.points.iter().map(|p| p.ber_ci_method).collect::<Vec<_>>();
        assert_eq!(
            methods(&both),
            [BerCiMethod::FramesWorstCase, BerCiMethod::FramesT]
        );
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            text.contains("\"ber_ci_method\": \"frames-worst-case\""),
            "{text}"
        );
        assert!(text.contains("\"ber_ci_method\": \"frames-t\""), "{text}");
        // (The timings compared apart: serde_json may read a float 1 ulp off.)
        let untimed = |s: Sweep| Sweep {
            points: s.points.iter().map(PointResult::untimed).collect(),
            ..s
        };
        assert_eq!(
            untimed(Sweep::read(&out).unwrap()),
            untimed(both),
            "the file reads back as written"
        );
    }

    #[test]
    fn committed_sweeps_read_with_the_interval_their_counts_allow() {
        use crate::sim::BerCiMethod;
        let read = |file: &str| {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../bench/results")
                .join(file);
            let written: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            (written, Sweep::read(&path).unwrap())
        };
        // Written with Σ e²: the interval as written (the same formula on the same counts).
        let (written, sweep) = read("2026-11-27-h200x2-multigpu/sim-qpsk-cuda0.json");
        for (p, w) in sweep
            .points
            .iter()
            .zip(written["points"].as_array().unwrap())
        {
            assert_eq!(p.ber_ci_method, BerCiMethod::FramesT);
            for (a, b) in p.ber_ci.iter().zip(w["ber_ci"].as_array().unwrap()) {
                let b = b.as_f64().unwrap();
                assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
            }
        }
        // Written before Σ e² was kept (as every sweep drawn in docs/ldpc/): the worst case.
        let (written, sweep) =
            read("2026-11-21-h100-ldpc-sim/2026-11-21-h100-sim-16qam-n12-ms8-50.json");
        for (p, w) in sweep
            .points
            .iter()
            .zip(written["points"].as_array().unwrap())
        {
            assert!(w.get("bit_errors_sq").is_none());
            let old = [
                w["ber_ci"][0].as_f64().unwrap(),
                w["ber_ci"][1].as_f64().unwrap(),
            ];
            if p.bit_errors == 0 {
                assert_eq!(p.ber_ci[0], 0.0);
                continue;
            }
            assert_eq!(p.ber_ci_method, BerCiMethod::FramesWorstCase);
            assert!(
                p.ber_ci[0] <= old[0] && p.ber_ci[1] >= old[1],
                "{:?} vs {old:?}",
                p.ber_ci
            );
        }
    }

    /// Every parameter is checked before the first point runs: a grid whose last points
    /// name no channel (`0:1000:0.1`: Es/N0 past 300 dB) used to run 3,001 points first.
    #[test]
    fn parameters_are_refused_before_any_point_runs() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sweep.json");
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        let refused = |spec: &SweepSpec| {
            let mut started = 0;
            let e = run(&code, &[], spec, &mut |e| {
                if let SweepEvent::Start(_) = e {
                    started += 1
                }
            })
            .unwrap_err()
            .to_string();
            assert_eq!(started, 0, "{e}");
            assert!(!out.exists(), "{e}");
            e
        };
        let grid = spec(&out, &parse_points("0:1000:0.1").unwrap());
        let e = refused(&grid);
        assert!(
            e.contains("300.1 dB") && e.contains("no point of the sweep ran"),
            "{e}"
        );
        let mut eb = spec(&out, &[-299.9]);
        eb.axis = SnrAxis::EbN0;
        let e = refused(&eb);
        assert!(e.contains("Eb/N0 -299.9 dB (Es/N0 -300.4115 dB)"), "{e}");
        let mut zero = spec(&out, &[1.0]);
        zero.batch = Some(0);
        assert!(refused(&zero).contains("--batch 0"));
        let mut huge = spec(&out, &[1.0]);
        huge.batch = Some(1 << 40);
        assert!(refused(&huge).contains("at most 2^30 LLRs"));
        let mut frames = spec(&out, &[1.0]);
        frames.max_frames = u64::MAX;
        assert!(refused(&frames).contains("the bit counters are 64-bit"));
        let mut decoder = spec(&out, &[1.0]);
        decoder.config.iterations = 0;
        assert!(refused(&decoder).contains("--iterations 0"));
        // The same point three times would run, and be stored, three times.
        let e = refused(&spec(&out, &[0.0, 1.0, 0.0, 0.0]));
        assert!(e.contains("0 dB is listed 3 times"), "{e}");
        let e = parse_points("0,0,0").unwrap_err().to_string();
        assert!(e.contains("0 dB is listed 3 times"), "{e}");
        assert!(check_points(&[1.0, 1.0 + 1e-9]).is_err());
    }

    /// A file changed by hand: each tampered point is refused on resume, naming the file and
    /// the point, before any work; the file is left as it was.
    #[test]
    fn a_resume_refuses_points_the_file_cannot_hold() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sweep.json");
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        run(&code, &[], &spec(&out, &[-1.0, 4.0]), &mut |_| {}).unwrap();
        let good = std::fs::read_to_string(&out).unwrap();
        let v: serde_json::Value = serde_json::from_str(&good).unwrap();
        assert!(Sweep::read(&out)
            .unwrap()
            .validate(&out, Some(&code))
            .is_ok());
        let tamper = |edit: &dyn Fn(&mut serde_json::Value), want: &str| {
            let mut t = v.clone();
            edit(&mut t);
            std::fs::write(&out, serde_json::to_string_pretty(&t).unwrap()).unwrap();
            let mut started = 0;
            let e = run(&code, &[], &spec(&out, &[-1.0, 4.0, 5.0]), &mut |e| {
                if let SweepEvent::Start(_) = e {
                    started += 1
                }
            })
            .unwrap_err()
            .to_string();
            assert_eq!(started, 0, "{e}");
            assert!(e.contains("sweep.json") && e.contains(want), "{want}: {e}");
            assert!(e.contains("Es/N0") || e.contains("decoder"), "{e}");
        };
        tamper(&|t| t["points"][0]["ber"] = 5.0.into(), "BER 5");
        tamper(
            &|t| {
                let k = code.k() as u64;
                let p = &mut t["points"][0];
                let e = p["frame_errors"].as_u64().unwrap() * k + 1;
                p["bit_errors"] = e.into();
                p["ber"] = (e as f64 / p["info_bits"].as_f64().unwrap()).into();
            },
            "bit errors in",
        );
        tamper(
            &|t| {
                let p = &mut t["points"][0];
                (p["frames"], p["frame_errors"]) = (0.into(), 64.into());
            },
            "0 frames (with 64 frame errors)",
        );
        tamper(
            &|t| {
                let p = t["points"][0].clone();
                t["points"].as_array_mut().unwrap().push(p);
            },
            "listed twice",
        );
        tamper(
            &|t| {
                t["points"][1]["info_bits"] =
                    (t["points"][1]["frames"].as_u64().unwrap() * 100).into()
            },
            "100 information bits per frame, where the code has 7200",
        );
        tamper(
            &|t| {
                let p = &mut t["points"][1];
                (p["frames"], p["info_bits"]) = (17.into(), (17 * code.k()).into());
            },
            "17 frames, beyond the file's max_frames 16",
        );
        tamper(&|t| t["points"][0]["eb_n0_db"] = 7.into(), "Eb/N0 7 dB");
        // Another decoder under the same description.
        tamper(&|t| t["decoder"]["kind"] = "spa".into(), "decoder");
        tamper(
            &|t| {
                t["decoder"]["kind"] = "nms".into();
                t["decoder"]["alpha"] = 0.75.into();
                t["decoder"].as_object_mut().unwrap().remove("beta");
            },
            "its fields name",
        );
        tamper(&|t| t["decoder"]["beta"] = 0.25.into(), "its fields name");
        assert!(Sweep::read(&out).is_ok(), "the file is left for the user");
    }

    #[test]
    fn every_committed_sweep_file_passes_the_resume_checks() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/results");
        let mut checked = 0;
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "json") {
                    continue;
                }
                let Ok(sweep) = Sweep::read(&path) else {
                    continue;
                };
                let code = Code::standard(&sweep.code).ok();
                sweep.validate(&path, code.as_ref()).unwrap();
                checked += 1;
            }
        }
        assert!(checked >= 40, "{checked} sweep files");
    }

    #[test]
    fn a_second_sweep_on_the_same_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sweep.json");
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        let _held = sigpu_runtime::fs::lock_exclusive(&out).unwrap();
        let e = run(&code, &[], &spec(&out, &[4.0]), &mut |_| {}).unwrap_err();
        // The path is the error's text; what happened is its source (printed after it).
        let source = std::error::Error::source(&e).map(ToString::to_string);
        let e = format!("{e}: {}", source.unwrap_or_default());
        assert!(e.contains("being written by another process"), "{e}");
        assert!(!out.exists());
    }

    #[test]
    fn default_batches_fill_the_device() {
        let fixed = Precision::Fixed8 { scale: 4.0 };
        assert_eq!(default_batch(true, Precision::Float, 8), BATCH);
        assert_eq!(default_batch(false, fixed, 8), 512);
        assert_eq!(default_batch(false, Precision::Float, 8), 16);
    }
}

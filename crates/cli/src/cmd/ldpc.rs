//! `sigpu ldpc ...` and `sigpu bench ldpc`: DVB-T2/S2 LDPC codes, decoding a user's LLRs,
//! error-rate simulation and decoder throughput, over the `sigpu-ldpc` library.

use crate::cli::DeviceChoice;
use crate::table;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use sigpu_ldpc::bench::{bench_llrs, cpu_throughput, Throughput};
use sigpu_ldpc::channel::{Demapper, Modulation, Snr};
use sigpu_ldpc::decoder::{cpu_decoder, Fixed8Decoder};
use sigpu_ldpc::gpu::{GpuDecoder, GpuOptions, LayeredGpuDecoder, BATCH};
use sigpu_ldpc::interleave::Interleaving;
use sigpu_ldpc::npy::{read_llrs, write_u8, NpyLlrs};
use sigpu_ldpc::plot::{error_rate_svg, Series};
use sigpu_ldpc::sim::{run_point_parallel, Link, PointResult, StopRule};
use sigpu_ldpc::{Algorithm, Code, Decoder, DecoderConfig, Llrs, Precision, Schedule};
use sigpu_runtime::cuda::Gpu;
use sigpu_runtime::Device;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum LdpcCommand {
    /// List the built-in DVB-T2 / DVB-S2 codes with their parameters.
    Codes,
    /// Write a code's parity-check matrix as an alist file.
    Export(ExportArgs),
    /// Decode LLRs from a .npy file (f32 or i8, codewords × N) into hard decisions.
    Decode(DecodeArgs),
    /// BER / FER over an SNR sweep, with confidence intervals.
    Simulate(SimulateArgs),
    /// Draw the BER of several sweep files (from `simulate --out`) in one SVG.
    Plot(PlotArgs),
}

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// Sweep files; each becomes one BER curve labelled with its decoder.
    #[arg(long = "input", value_name = "FILE", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Plot against Eb/N0 instead of Es/N0.
    #[arg(long)]
    pub eb_n0: bool,
    /// Also draw each file's FER, dashed.
    #[arg(long)]
    pub fer: bool,
    #[arg(long)]
    pub title: Option<String>,
    #[arg(long, value_name = "FILE.svg")]
    pub output: PathBuf,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A built-in code name (`sigpu ldpc codes`) or an alist file.
    #[arg(long)]
    pub code: String,
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
}

/// The decoder choice shared by every LDPC command.
#[derive(Args, Debug, Clone)]
pub struct DecoderArgs {
    /// spa | minsum | nms[:alpha] | oms[:beta]
    #[arg(long, default_value = "minsum")]
    pub decoder: String,
    /// float | 8bit (the GPU decoder is 8-bit; sum-product is float only).
    #[arg(long, default_value = "8bit")]
    pub precision: String,
    /// flooding | layered.
    #[arg(long, default_value = "flooding")]
    pub schedule: String,
    #[arg(long, default_value_t = 50)]
    pub iterations: usize,
    /// Stop each batch once all its codewords satisfy every check.
    #[arg(long)]
    pub early_termination: bool,
    /// 8-bit LLR scale: quantised = round(LLR · scale), saturated to ±127.
    #[arg(long, default_value_t = 4.0)]
    pub scale: f32,
    /// CPU threads (0 = all).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

impl DecoderArgs {
    fn config(&self) -> Result<DecoderConfig> {
        let precision = match self.precision.to_ascii_lowercase().as_str() {
            "float" | "f32" => Precision::Float,
            "8bit" | "8" | "i8" | "fixed8" => Precision::Fixed8 { scale: self.scale },
            other => bail!("--precision {other:?}: expected float or 8bit"),
        };
        let config = DecoderConfig {
            algorithm: Algorithm::parse(&self.decoder)?,
            schedule: self.schedule.parse()?,
            precision,
            iterations: self.iterations,
            early_termination: self.early_termination,
            threads: self.threads,
        };
        config.validate()?;
        Ok(config)
    }
}

#[derive(Args, Debug)]
pub struct DecodeArgs {
    #[arg(long)]
    pub code: String,
    /// LLRs, ln P(0)/P(1), as float32 or int8 (int8 is taken at --scale steps per unit).
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// Hard decisions, uint8 0/1, codewords × N.
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
    #[command(flatten)]
    pub decoder: DecoderArgs,
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[arg(long)]
    pub code: String,
    /// bpsk | qpsk | 16qam | 64qam | 256qam (DVB-T2 Gray mapping, unrotated).
    #[arg(long, default_value = "qpsk")]
    pub modulation: String,
    /// exact | max-log
    #[arg(long, default_value = "exact")]
    pub demapper: String,
    /// auto | dvbt2 | none: the bit interleaver and bit-to-cell demultiplexer between encoder
    /// and mapper (auto: DVB-T2's, EN 302 755 §6.1, for DVB-T2 codes; none for other codes).
    #[arg(long, default_value = "auto")]
    pub bit_interleaver: String,
    /// Es/N0 points in dB: START:STOP:STEP or a comma list.
    #[arg(
        long,
        alias = "es-n0",
        value_name = "DB",
        conflicts_with = "eb_n0",
        allow_hyphen_values = true
    )]
    pub snr: Option<String>,
    /// Eb/N0 points in dB instead (Eb = Es / (R · bits per symbol)).
    #[arg(long, value_name = "DB", allow_hyphen_values = true)]
    pub eb_n0: Option<String>,
    #[command(flatten)]
    pub decoder: DecoderArgs,
    /// A point stops after this many frame errors ...
    #[arg(long, default_value_t = 100)]
    pub min_errors: u64,
    /// ... or this many frames.
    #[arg(long, default_value_t = 10_000)]
    pub max_frames: u64,
    /// Frames per decoder call (default 128 on a GPU, 64 per CPU thread for 8-bit, 2 per
    /// thread for float).
    #[arg(long)]
    pub batch: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Results file (JSON), rewritten atomically after every point.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Skip the points already in --out (same code, link, decoder and seed).
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// Draw BER and FER against SNR as SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Codes to time (comma list).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "dvbt2-normal-1/2,dvbt2-normal-3/4,dvbt2-normal-5/6,dvbt2-short-1/2,dvbt2-short-3/4,dvbt2-short-5/6"
    )]
    pub codes: Vec<String>,
    /// Iteration counts (comma list).
    #[arg(long, value_delimiter = ',', default_value = "20,30,50")]
    pub iterations: Vec<usize>,
    /// Timed batches per configuration (default 20 on a GPU, 3 on the CPU).
    #[arg(long)]
    pub runs: Option<usize>,
    /// spa | minsum | nms[:alpha] | oms[:beta] (8-bit).
    #[arg(long, default_value = "minsum")]
    pub decoder: String,
    /// flooding | layered (comma list to compare).
    #[arg(long, value_delimiter = ',', default_value = "flooding")]
    pub schedule: Vec<Schedule>,
    #[arg(long, default_value_t = 4.0)]
    pub scale: f32,
    /// CPU: codewords per timed call (default 128, the seed's batch).
    #[arg(long, default_value_t = 128)]
    pub codewords: usize,
    /// GPU: decode each 128-codeword batch as sub-batches of this many codewords (128, 64 or
    /// 32; comma list to compare).
    #[arg(long, value_delimiter = ',', default_value = "128")]
    pub sub_batch: Vec<usize>,
    /// GPU: also time the seed's one-word-per-thread CN / VN kernels (default: the 16-byte
    /// ones only).
    #[arg(long)]
    pub word_kernels: bool,
    /// Also write the JSON result here (atomically).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// `device` may be `all` (every GPU), which only `simulate` takes.
pub fn run(device: Option<DeviceChoice>, json: bool, command: &LdpcCommand) -> Result<ExitCode> {
    match command {
        LdpcCommand::Codes => codes(json),
        LdpcCommand::Export(a) => {
            let code = Code::resolve(&a.code)?;
            sigpu_ldpc::write_alist(&code, &a.output)?;
            if !json {
                println!(
                    "wrote {} ({} × {}, {} ones) to {}",
                    code.name(),
                    code.m(),
                    code.n(),
                    code.edges(),
                    a.output.display()
                );
            } else {
                super::print_json(&code.info())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        LdpcCommand::Decode(a) => decode(DeviceChoice::one(device)?, json, a),
        LdpcCommand::Simulate(a) => simulate(device, json, a),
        LdpcCommand::Plot(a) => plot(json, a),
    }
}

fn plot(json: bool, a: &PlotArgs) -> Result<ExitCode> {
    let mut series = Vec::new();
    let mut title = None;
    for path in &a.inputs {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("--input {}", path.display()))?;
        let sweep: Sweep = serde_json::from_str(&text).with_context(|| {
            format!(
                "--input {}: not a sweep file from `sigpu ldpc simulate --out`",
                path.display()
            )
        })?;
        title.get_or_insert_with(|| format!("{}, {}", sweep.code, sweep.modulation));
        let x = |p: &PointResult| if a.eb_n0 { p.eb_n0_db } else { p.es_n0_db };
        // Curves of one decoder with and without the bit interleaver must be told apart.
        let label = match sweep.bit_interleaver {
            Interleaving::None if sweep.modulation.ends_with("qam") => {
                format!("no bit interleaver, {}", sweep.decoder)
            }
            _ => sweep.decoder.clone(),
        };
        series.push(Series {
            label: format!("BER {label}"),
            points: sweep.points.iter().map(|p| (x(p), p.ber)).collect(),
            dashed: false,
        });
        if a.fer {
            series.push(Series {
                label: format!("FER {label}"),
                points: sweep.points.iter().map(|p| (x(p), p.fer)).collect(),
                dashed: true,
            });
        }
    }
    let svg = error_rate_svg(
        a.title.as_deref().or(title.as_deref()).unwrap_or(""),
        if a.eb_n0 { "Eb/N0 (dB)" } else { "Es/N0 (dB)" },
        &series,
        if a.fer { 2 } else { 1 },
    );
    sigpu_runtime::fs::write_atomic(&a.output, svg.as_bytes())
        .with_context(|| format!("--output {}", a.output.display()))?;
    if json {
        // The curves as drawn: label, dashed (FER) or not, and the (SNR, rate) points.
        let curves: Vec<_> = series
            .iter()
            .map(|s| serde_json::json!({"label": s.label, "dashed": s.dashed, "points": s.points}))
            .collect();
        super::print_json(&serde_json::json!({
            "output": a.output.display().to_string(),
            "x": if a.eb_n0 { "eb_n0_db" } else { "es_n0_db" },
            "series": curves,
        }))?;
    } else {
        println!("wrote {}", a.output.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn codes(json: bool) -> Result<ExitCode> {
    let infos = Code::standard_names()
        .into_iter()
        .map(|n| Code::standard(n).map(|c| c.info()))
        .collect::<sigpu_ldpc::Result<Vec<_>>>()?;
    if json {
        return super::print_json(&infos).map(|_| ExitCode::SUCCESS);
    }
    let rows: Vec<Vec<String>> = infos
        .iter()
        .map(|i| {
            let degrees = |d: &[(usize, usize)]| {
                d.iter()
                    .map(|(d, c)| format!("{d}:{c}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            vec![
                i.name.clone(),
                i.n.to_string(),
                i.k.to_string(),
                format!("{:.4}", i.rate),
                i.edges.to_string(),
                degrees(&i.column_degrees),
                degrees(&i.row_degrees),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(
            &[
                "code",
                "N",
                "K",
                "K/N",
                "edges",
                "column degrees",
                "check degrees"
            ],
            &rows
        )
    );
    Ok(ExitCode::SUCCESS)
}

/// A decoder on the chosen device: the GPU when one is asked for, else the CPU.
fn make_decoder<'g>(
    gpu: Option<&'g Gpu>,
    code: &Code,
    config: DecoderConfig,
) -> Result<Box<dyn Decoder + 'g>> {
    Ok(match gpu {
        Some(gpu) => sigpu_ldpc::gpu::decoder(gpu, code, config)?,
        None => cpu_decoder(code, config)?,
    })
}

/// LDPC commands run on the CPU unless `--device cuda[:N]` is given: unlike commands that
/// take the GPU when there is one ([`super::cpu_or_gpu`]), since an 8-bit GPU run and a float
/// CPU run of the same command are different decoders. An explicit device goes through
/// `cpu_or_gpu`, so `--device cpu|cuda[:N]` means the same everywhere.
fn open_device(device: Option<Device>) -> Result<Option<Gpu>> {
    match device {
        None => Ok(None),
        explicit => {
            super::resolve(explicit, super::Need::Either, "ldpc").map(super::Target::into_gpu)
        }
    }
}

/// The GPUs a simulation spreads over: none (the CPU), the one `--device cuda[:N]` names, or
/// with `--device all` every GPU of the host (an error naming what is missing when there is
/// none).
fn open_devices(device: Option<DeviceChoice>) -> Result<Vec<Gpu>> {
    match device {
        Some(DeviceChoice::AllGpus) => {
            Gpu::open_all().context("--device all: no GPU can run kernels on this host")
        }
        one => Ok(open_device(DeviceChoice::one(one)?)?.into_iter().collect()),
    }
}

fn decode(device: Option<Device>, json: bool, a: &DecodeArgs) -> Result<ExitCode> {
    let code = Code::resolve(&a.code)?;
    let config = a.decoder.config()?;
    let (llrs, shape) = read_llrs(&a.input)?;
    let n = code.n();
    if llrs.is_empty() || llrs.len() % n != 0 || (shape.len() == 2 && shape[1] != n) {
        bail!(
            "{}: shape {shape:?} does not hold whole codewords of {} (N = {n})",
            a.input.display(),
            code.name()
        );
    }
    let gpu = open_device(device)?;
    let mut decoder = make_decoder(gpu.as_ref(), &code, config)?;
    let mut bits = vec![0u8; llrs.len()];
    let start = std::time::Instant::now();
    let input = match &llrs {
        NpyLlrs::F32(v) => Llrs::F32(v),
        NpyLlrs::I8(v) => Llrs::I8 {
            values: v,
            scale: a.decoder.scale,
        },
    };
    let stats = decoder.decode(input, &mut bits)?;
    let seconds = start.elapsed().as_secs_f64();
    write_u8(&a.output, &bits, bits.len() / n, n)?;
    let report = serde_json::json!({
        "code": code.name(), "decoder": decoder.describe(), "codewords": stats.codewords,
        "valid": stats.valid, "iterations": stats.iterations, "seconds": seconds,
        "output": a.output.display().to_string(),
    });
    if json {
        super::print_json(&report)?;
    } else {
        println!(
            "{}: decoded {} codewords with {} in {seconds:.3} s; {} satisfy every check; wrote {}",
            code.name(),
            stats.codewords,
            decoder.describe(),
            stats.valid,
            a.output.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The results file of a sweep.
#[derive(Serialize, Deserialize)]
struct Sweep {
    code: String,
    modulation: String,
    demapper: String,
    /// Sweeps written before the interleaver existed ran without one.
    #[serde(default)]
    bit_interleaver: Interleaving,
    decoder: String,
    seed: u64,
    min_errors: u64,
    max_frames: u64,
    points: Vec<PointResult>,
}

fn parse_points(spec: &str) -> Result<Vec<f64>> {
    let bad = || {
        anyhow::anyhow!("SNR {spec:?}: expected START:STOP:STEP (e.g. 0.5:2.0:0.1) or a comma list of dB values")
    };
    if let Some((start, rest)) = spec.split_once(':') {
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
            bail!("SNR {spec:?}: need STEP > 0 and START ≤ STOP, with at most 10000 points");
        }
        let count = ((stop - start) / step + 1e-9).floor() as usize + 1;
        // Rounded to 1e-9 dB so points named alike in two runs are the same point.
        Ok((0..count)
            .map(|i| ((start + step * i as f64) * 1e9).round() / 1e9)
            .collect())
    } else {
        spec.split(',')
            .map(|s| s.trim().parse::<f64>().map_err(|_| bad()))
            .collect()
    }
}

fn simulate(device: Option<DeviceChoice>, json: bool, a: &SimulateArgs) -> Result<ExitCode> {
    let code = Code::resolve(&a.code)?;
    let config = a.decoder.config()?;
    let modulation: Modulation = a.modulation.parse()?;
    let demapper: Demapper = a.demapper.parse()?;
    let interleaving = match a.bit_interleaver.trim() {
        "auto" => Interleaving::default_for(&code),
        other => other.parse()?,
    };
    // Refuse a code / constellation the interleaver does not cover before any work.
    sigpu_ldpc::interleave::BitInterleaver::new(&code, modulation, interleaving)?;
    let (points, eb) = match (&a.snr, &a.eb_n0) {
        (Some(s), None) => (parse_points(s)?, false),
        (None, Some(s)) => (parse_points(s)?, true),
        _ => bail!("give the SNR points with --snr (Es/N0) or --eb-n0"),
    };
    if a.min_errors == 0 || a.max_frames == 0 {
        bail!("--min-errors and --max-frames must be at least 1");
    }
    let gpus = open_devices(device)?;
    // One decoder per GPU, each driven by its own worker thread; one CPU decoder without a GPU.
    let mut decoders = if gpus.is_empty() {
        vec![make_decoder(None, &code, config)?]
    } else {
        gpus.iter()
            .map(|gpu| make_decoder(Some(gpu), &code, config))
            .collect::<Result<Vec<_>>>()?
    };
    if gpus.len() > 1 && !json {
        let names: Vec<_> = gpus.iter().map(|g| g.info().name.clone()).collect();
        eprintln!(
            "spreading the sweep over {} GPUs: {}",
            gpus.len(),
            names.join(", ")
        );
    }
    let threads = sigpu_runtime::host::threads();
    let batch = a
        .batch
        .unwrap_or(match (gpus.is_empty(), config.precision) {
            (false, _) => BATCH,
            (true, Precision::Fixed8 { .. }) => 64 * threads,
            (true, Precision::Float) => 2 * threads,
        });
    let mut sweep = Sweep {
        code: code.name().to_owned(),
        modulation: modulation.name().to_owned(),
        demapper: format!("{demapper:?}"),
        bit_interleaver: interleaving,
        decoder: config.describe(),
        seed: a.seed,
        min_errors: a.min_errors,
        max_frames: a.max_frames,
        points: Vec::new(),
    };
    if a.resume {
        let out = a.out.as_ref().expect("clap requires --out with --resume");
        if out.exists() {
            let text = std::fs::read_to_string(out)
                .with_context(|| format!("--resume: reading {}", out.display()))?;
            let old: Sweep = serde_json::from_str(&text)
                .with_context(|| format!("--resume: {} is not a sweep file", out.display()))?;
            if (
                &old.code,
                &old.modulation,
                &old.demapper,
                old.bit_interleaver,
                &old.decoder,
                old.seed,
            ) != (
                &sweep.code,
                &sweep.modulation,
                &sweep.demapper,
                sweep.bit_interleaver,
                &sweep.decoder,
                sweep.seed,
            ) {
                bail!(
                    "--resume: {} holds a sweep of {} / {} / {} seed {}, not this one",
                    out.display(),
                    old.code,
                    old.modulation,
                    old.decoder,
                    old.seed
                );
            }
            sweep.points = old.points;
        }
    }
    let snr_of = |db: f64| if eb { Snr::EbN0(db) } else { Snr::EsN0(db) };
    let key = |p: &PointResult| if eb { p.eb_n0_db } else { p.es_n0_db };
    let link = Link {
        modulation,
        demapper,
        interleaving,
        seed: a.seed,
    };
    let stop = StopRule {
        min_errors: a.min_errors,
        max_frames: a.max_frames,
        batch,
    };
    for &db in &points {
        if sweep.points.iter().any(|p| (key(p) - db).abs() < 1e-6) {
            continue;
        }
        let bar = ProgressBar::new(a.max_frames);
        bar.set_style(
            ProgressStyle::with_template("{spinner} {prefix} [{bar:30}] {pos}/{len} frames {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(format!("{} {db:.2} dB", if eb { "Eb/N0" } else { "Es/N0" }));
        let mut workers: Vec<_> = decoders.iter_mut().map(|d| d.as_mut()).collect();
        let point = run_point_parallel(&mut workers, &link, snr_of(db), stop, threads, &mut |p| {
            bar.set_position(p.frames);
            bar.set_message(format!(
                "{} frame errors, BER {:.2e}, FER {:.2e}",
                p.frame_errors, p.ber, p.fer
            ));
        })?;
        bar.finish_and_clear();
        if !json {
            println!("{}", point_line(&point));
        }
        sweep.points.push(point);
        sweep.points.sort_by(|x, y| key(x).total_cmp(&key(y)));
        if let Some(out) = &a.out {
            sigpu_runtime::fs::write_atomic(out, serde_json::to_string_pretty(&sweep)?.as_bytes())
                .with_context(|| format!("--out {}", out.display()))?;
        }
    }
    if let Some(path) = &a.plot {
        let xs = |f: fn(&PointResult) -> f64| sweep.points.iter().map(|p| (key(p), f(p))).collect();
        let svg = error_rate_svg(
            &format!("{}, {}, {}", sweep.code, sweep.modulation, sweep.decoder),
            if eb { "Eb/N0 (dB)" } else { "Es/N0 (dB)" },
            &[
                Series {
                    label: "BER".into(),
                    points: xs(|p| p.ber),
                    dashed: false,
                },
                Series {
                    label: "FER".into(),
                    points: xs(|p| p.fer),
                    dashed: true,
                },
            ],
            2,
        );
        sigpu_runtime::fs::write_atomic(path, svg.as_bytes())
            .with_context(|| format!("--plot {}", path.display()))?;
    }
    if json {
        super::print_json(&sweep)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn point_line(p: &PointResult) -> String {
    format!(
        "Es/N0 {:.2} dB (Eb/N0 {:.2}): {} frames, {} frame errors, BER {:.3e} [{:.2e}, {:.2e}], FER {:.3e} [{:.2e}, {:.2e}], {:.1} iterations/frame, {:.1} s",
        p.es_n0_db, p.eb_n0_db, p.frames, p.frame_errors, p.ber, p.ber_ci[0], p.ber_ci[1], p.fer, p.fer_ci[0], p.fer_ci[1], p.mean_iterations, p.seconds
    )
}

/// `sigpu bench ldpc`: the seed's throughput tables.
pub fn bench(device: Option<Device>, json: bool, a: &BenchArgs) -> Result<ExitCode> {
    let gpu = open_device(device)?;
    let runs = a.runs.unwrap_or(if gpu.is_some() { 20 } else { 3 });
    let mut results: Vec<Throughput> = Vec::new();
    let subs: &[usize] = if gpu.is_some() {
        &a.sub_batch
    } else {
        &[BATCH]
    };
    let vectors: &[bool] = if gpu.is_some() && a.word_kernels {
        &[true, false]
    } else {
        &[true]
    };
    // Sub-batches and kernel widths are flooding options; layered runs once per iteration count.
    let mut variants: Vec<(Schedule, usize, usize, bool)> = Vec::new();
    for &sched in &a.schedule {
        for &i in &a.iterations {
            let (subs, vectors) = if sched == Schedule::Layered {
                (&[BATCH][..], &[true][..])
            } else {
                (subs, vectors)
            };
            for &s in subs {
                for &v in vectors {
                    variants.push((sched, i, s, v));
                }
            }
        }
    }
    let bar = ProgressBar::new((a.codes.len() * variants.len()) as u64);
    for name in &a.codes {
        let code = Code::resolve(name)?;
        for &(schedule, iterations, sub, vector) in &variants {
            bar.set_message(format!("{name} {iterations} it"));
            let config = DecoderConfig {
                algorithm: Algorithm::parse(&a.decoder)?,
                schedule,
                precision: Precision::Fixed8 { scale: a.scale },
                iterations,
                early_termination: false,
                threads: 0,
            };
            let result = match &gpu {
                Some(gpu) if schedule == Schedule::Layered => {
                    let mut d = LayeredGpuDecoder::new(gpu, code.clone(), config)?;
                    let llr = bench_llrs(&code, BATCH, a.scale)?;
                    let timing = d.time_batch(&llr, true, 3, runs)?;
                    let samples = timing.samples_ms.iter().map(|ms| ms * 1e-3).collect();
                    let mut t = Throughput::new(&code, d.describe(), iterations, BATCH, samples);
                    let device_only = d.time_batch(&llr, false, 3, runs)?;
                    t.device_only_s = Some(device_only.median_ms * 1e-3);
                    t
                }
                Some(gpu) => {
                    let options = GpuOptions {
                        sub_batch: sub,
                        vector,
                    };
                    let mut d = GpuDecoder::with_options(gpu, code.clone(), config, options)?;
                    let llr = bench_llrs(&code, BATCH, a.scale)?;
                    let timing = d.time_batch(&llr, true, 3, runs)?;
                    let samples = timing.samples_ms.iter().map(|ms| ms * 1e-3).collect();
                    let mut t = Throughput::new(&code, d.describe(), iterations, BATCH, samples);
                    let device_only = d.time_batch(&llr, false, 3, runs)?;
                    t.device_only_s = Some(device_only.median_ms * 1e-3);
                    t
                }
                None => {
                    let mut d = Fixed8Decoder::new(code.clone(), config)?;
                    cpu_throughput(&mut d, iterations, a.codewords, a.scale, runs)?
                }
            };
            bar.inc(1);
            results.push(result);
        }
    }
    bar.finish_and_clear();
    let report = serde_json::json!({
        "device": match &gpu { Some(g) => format!("{} ({})", g.info().name, g.arch()), None => sigpu_runtime::host::HostInfo::detect().cpu_model },
        "timing": if gpu.is_some() { "CUDA events around LLR upload (pinned), kernels and hard-decision download; median" } else { "wall clock of decode() on 8-bit LLRs; median" },
        "results": results,
    });
    if let Some(path) = &a.out {
        sigpu_runtime::fs::write_atomic(path, serde_json::to_string_pretty(&report)?.as_bytes())
            .with_context(|| format!("--out {}", path.display()))?;
    }
    if json {
        super::print_json(&report)?;
    } else {
        println!("{}", report["device"].as_str().unwrap_or(""));
        let rows: Vec<Vec<String>> = results
            .iter()
            .map(|r| {
                vec![
                    r.code.clone(),
                    r.iterations.to_string(),
                    format!("{:.1}", r.coded_mbps),
                    format!("{:.1}", r.min_coded_mbps),
                    format!("{:.1}", r.info_mbps),
                    format!("{:.3}", r.median_s * 1e3),
                    r.device_only_s
                        .map_or("-".into(), |s| format!("{:.3}", s * 1e3)),
                    // The GPU variant (sub-batch, access width) from the description's tail.
                    // CPU: the instruction set.
                    r.decoder
                        .rsplit_once(" codewords per batch")
                        .or_else(|| r.decoder.rsplit_once("(cpu"))
                        .map_or("-", |(_, tail)| {
                            tail.trim_start_matches([',', ' ']).trim_end_matches(')')
                        })
                        .to_owned(),
                ]
            })
            .collect();
        print!(
            "{}",
            table::render(
                &[
                    "code",
                    "iterations",
                    "coded Mbps",
                    "(min)",
                    "info Mbps",
                    "batch ms",
                    "device-only ms",
                    "kernels",
                ],
                &rows
            )
        );
    }
    Ok(ExitCode::SUCCESS)
}

//! `sigpu ldpc ...` and `sigpu bench ldpc`: DVB-T2/S2 LDPC codes, decoding a user's LLRs,
//! error-rate sweeps (`sigpu_ldpc::sim::sweep`) and decoder throughput (`sigpu_lab::ldpc`).

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::ProgressBar;
use sigpu_lab::ldpc::bench::{self as lab_bench, BenchSpec};
use sigpu_lab::ldpc::plot::{self as ldpc_plot, sweep_curves};
use sigpu_lab::table;
use sigpu_ldpc::decode_file::decode_npy;
use sigpu_ldpc::interleave::Interleaving;
use sigpu_ldpc::sim::sweep::{self, SnrAxis, Sweep, SweepEvent, SweepSpec};
use sigpu_ldpc::sim::{BerCiMethod, Link, PointResult};
use sigpu_ldpc::{Algorithm, Code, DecoderConfig, Precision, Schedule};
use sigpu_runtime::cuda::Gpu;
use sigpu_runtime::ranks::Ranks;
use sigpu_runtime::Device;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum LdpcCommand {
    /// List the built-in DVB-T2 / DVB-S2 codes with their parameters.
    Codes,
    /// Write a code's parity-check matrix as an alist file.
    Export(ExportArgs),
    /// Encode information bits from a .npy file (uint8, … × K) into codewords (… × N).
    Encode(EncodeArgs),
    /// Decode LLRs from a .npy file (f32 or i8, codewords × N) into hard decisions.
    Decode(DecodeArgs),
    /// BER / FER over an SNR sweep, with confidence intervals (`--device all`: spread over
    /// every GPU of the host).
    Simulate(SimulateArgs),
    /// Draw the BER of several sweep files (from `simulate --out`) in one PNG or SVG.
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
    /// The chart's title (default: the first file's code and modulation).
    #[arg(long)]
    pub title: Option<String>,
    /// The picture to write: PNG or SVG, by the extension.
    #[arg(long, value_name = "FILE.png|FILE.svg")]
    pub output: PathBuf,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A built-in code name (`sigpu ldpc codes`) or an alist file.
    #[arg(long)]
    pub code: String,
    /// The alist file to write.
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
}

#[derive(Args, Debug)]
pub struct EncodeArgs {
    /// A built-in code name (`sigpu ldpc codes`) or an alist file of a code with the DVB
    /// accumulator staircase as its parity part.
    #[arg(long)]
    pub code: String,
    /// Information bits: uint8 (or bool) 0/1, shape … × K (K from `sigpu ldpc codes`).
    #[arg(long, value_name = "FILE.npy")]
    pub input: PathBuf,
    /// Codewords: uint8 0/1, shape … × N, information bits first (systematic).
    #[arg(long, value_name = "FILE.npy")]
    pub output: PathBuf,
}

/// The decoder choice shared by every LDPC command.
#[derive(Args, Debug, Clone)]
pub struct DecoderArgs {
    /// spa | minsum | nms[:alpha] | oms[:beta]; α in [0.0625, 1] (default 0.875), β in [0, 8]
    /// LLR units (default 0.5).
    #[arg(long, default_value = "minsum")]
    pub decoder: String,
    /// float | 8bit (the GPU decoder is 8-bit; sum-product is float only).
    #[arg(long, default_value = "8bit")]
    pub precision: String,
    /// flooding | layered | layered-compact (8-bit, compressed check state; CPU or GPU, the GPU one
    /// for codes with at most 8 circulants per layer and without early termination).
    #[arg(long, default_value = "flooding")]
    pub schedule: String,
    /// Most decoding iterations per codeword.
    #[arg(long, default_value_t = 50)]
    pub iterations: usize,
    /// Stop each batch once all its codewords satisfy every check.
    #[arg(long)]
    pub early_termination: bool,
    /// 8-bit LLR scale, in [0.25, 32]: quantised = round(LLR · scale), saturated to ±127.
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
    /// A built-in code name (`sigpu ldpc codes`) or an alist file.
    #[arg(long)]
    pub code: String,
    /// LLRs, ln P(0)/P(1), as float32, float64 (converted to float32) or int8 (int8 is taken
    /// at --scale steps per unit).
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// Hard decisions, uint8 0/1, codewords × N.
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
    /// Also write the information bits alone (the first K of each codeword), uint8,
    /// codewords × K.
    #[arg(long, value_name = "FILE.npy")]
    pub output_info: Option<PathBuf>,
    /// Also write each bit's posterior LLR (ln P(0)/P(1) after the last iteration), float32,
    /// codewords × N. Needs the f32 CPU decoder: --precision float, no --device cuda.
    #[arg(long, value_name = "FILE.npy")]
    pub soft: Option<PathBuf>,
    #[command(flatten)]
    pub decoder: DecoderArgs,
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// A built-in code name (`sigpu ldpc codes`) or an alist file.
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
    /// Frames per decoder call (default 1024 on a GPU making the frames, 128 on a GPU fed
    /// from the host, 64 per CPU thread for 8-bit, 2 per thread for float).
    #[arg(long)]
    pub batch: Option<usize>,
    /// On GPUs, make the frames (bits, encoder, mapper, noise, demapper) on the host instead
    /// of on the GPU (the GPU frame chain, used with the flooding schedule): the same frames
    /// and counts, for comparing the two.
    #[arg(long)]
    pub host_frames: bool,
    /// Seed of the random information bits and noise: the same seed gives the same frames.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Results file (JSON), rewritten atomically after every point.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Skip the points already in --out (same code, link, decoder and seed). Points the file
    /// ran with another --min-errors / --max-frames run again (each one is named on stderr).
    /// --out is locked while the sweep runs: a second sweep on the same file is refused.
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// Draw BER and FER against SNR, with confidence intervals: PNG or SVG, by the extension.
    #[arg(long, value_name = "FILE.png|FILE.svg")]
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
    /// flooding | layered | layered-compact (comma list to compare).
    #[arg(long, value_delimiter = ',', default_value = "flooding")]
    pub schedule: Vec<Schedule>,
    /// 8-bit LLR scale: quantised = round(LLR · scale), saturated to ±127.
    #[arg(long, default_value_t = 4.0)]
    pub scale: f32,
    /// CPU: codewords per timed call (default 128, the batch of the GPU LDPC decoder paper).
    #[arg(long, default_value_t = 128)]
    pub codewords: usize,
    /// GPU: decode each 128-codeword batch as sub-batches of this many codewords (128, 64 or
    /// 32; comma list to compare).
    #[arg(long, value_delimiter = ',', default_value = "128")]
    pub sub_batch: Vec<usize>,
    /// GPU: also time the one-word-per-thread check- and variable-node kernels of the GPU
    /// LDPC decoder paper (default: the 16-byte ones only).
    #[arg(long)]
    pub word_kernels: bool,
    /// GPU, layered-compact: codewords per batch (multiples of 4; comma list to compare).
    /// 528 fills an H100 once (one block of 4 codewords per SM); fewer lower the latency.
    #[arg(long, value_delimiter = ',', default_value = "528")]
    pub compact_batch: Vec<usize>,
    #[command(flatten)]
    pub out: crate::cmd::JsonOut,
}

/// Every LDPC command but `simulate`, on one device.
pub fn run(device: Option<Device>, json: bool, command: &LdpcCommand) -> Result<ExitCode> {
    match command {
        LdpcCommand::Codes => codes(json),
        LdpcCommand::Export(a) => export(json, a),
        LdpcCommand::Encode(a) => encode(json, a),
        LdpcCommand::Decode(a) => decode(device, json, a),
        LdpcCommand::Simulate(a) => simulate(device, false, json, a),
        LdpcCommand::Plot(a) => plot(json, a),
    }
}

fn export(json: bool, a: &ExportArgs) -> Result<ExitCode> {
    super::check_files(&[("--output", &a.output)], &[])?;
    let code = Code::resolve(&a.code)?;
    sigpu_ldpc::write_alist(&code, &a.output)?;
    super::report(json, &code.info(), |_| {
        let (m, n, ones) = (code.m(), code.n(), code.edges());
        let name = code.name();
        println!(
            "wrote {name} ({m} × {n}, {ones} ones) to {}",
            a.output.display()
        );
    })
}

fn encode(json: bool, a: &EncodeArgs) -> Result<ExitCode> {
    super::check_files(&[("--output", &a.output)], &[("--input", &a.input)])?;
    let code = Code::resolve(&a.code)?;
    let words = sigpu_ldpc::encode_npy(&code, &a.input, &a.output)?;
    let report = serde_json::json!({
        "code": code.name(), "n": code.n(), "k": code.k(), "codewords": words,
        "output": a.output.display().to_string(),
    });
    super::report(json, &report, |_| {
        println!(
            "{}: encoded {words} codewords (K = {} → N = {}); wrote {}",
            code.name(),
            code.k(),
            code.n(),
            a.output.display()
        );
    })
}

fn plot(json: bool, a: &PlotArgs) -> Result<ExitCode> {
    let inputs: Vec<_> = a.inputs.iter().map(|p| ("--input", p.as_path())).collect();
    super::check_files(&[("--output", &a.output)], &inputs)?;
    sigpu_plot::Format::of(&a.output).context("--output")?;
    let sweeps = a
        .inputs
        .iter()
        .map(|path| Sweep::read(path).with_context(|| format!("--input {}", path.display())))
        .collect::<Result<Vec<_>>>()?;
    let axis = if a.eb_n0 {
        SnrAxis::EbN0
    } else {
        SnrAxis::EsN0
    };
    let curves = sweep_curves(&sweeps, axis, a.fer);
    let title = (a.title.clone())
        .unwrap_or_else(|| format!("{}, {}", sweeps[0].code, sweeps[0].modulation));
    ldpc_plot::save(&a.output, &title, axis, &curves, if a.fer { 2 } else { 1 })
        .with_context(|| format!("--output {}", a.output.display()))?;
    if json {
        // The curves as drawn: label, dashed (FER) or not, and the (SNR, rate) points.
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
    let degrees = |d: &[(usize, usize)]| {
        let pairs: Vec<_> = d.iter().map(|(d, c)| format!("{d}:{c}")).collect();
        pairs.join(" ")
    };
    let header = [
        "code",
        "N",
        "K",
        "K/N",
        "edges",
        "column degrees",
        "check degrees",
    ];
    table::print(&header, &infos, |i| {
        vec![
            i.name.clone(),
            i.n.to_string(),
            i.k.to_string(),
            format!("{:.4}", i.rate),
            i.edges.to_string(),
            degrees(&i.column_degrees),
            degrees(&i.row_degrees),
        ]
    });
    Ok(ExitCode::SUCCESS)
}

/// LDPC commands run on the CPU unless `--device cuda[:N]` is given: unlike commands that
/// take the GPU when there is one, since an 8-bit GPU run and a float CPU run of the same
/// command are different decoders. An explicit device goes through the one policy
/// ([`super::resolve`]), so `--device cpu|cuda[:N]` means the same everywhere.
fn open_device(device: Option<Device>) -> Result<Option<Gpu>> {
    match device {
        None => Ok(None),
        explicit => {
            super::resolve(explicit, super::Need::Either, "ldpc").map(super::Target::into_gpu)
        }
    }
}

fn decode(device: Option<Device>, json: bool, a: &DecodeArgs) -> Result<ExitCode> {
    let mut outputs = vec![("--output", a.output.as_path())];
    outputs.extend(a.output_info.as_deref().map(|p| ("--output-info", p)));
    outputs.extend(a.soft.as_deref().map(|p| ("--soft", p)));
    super::check_files(&outputs, &[("--input", &a.input)])?;
    let gpu = open_device(device)?;
    let code = Code::resolve(&a.code)?;
    let config = a.decoder.config()?;
    let scale = a.decoder.scale;
    if let Some(soft) = &a.soft {
        return decode_soft(json, a, &code, gpu.is_some(), soft);
    }
    let done = decode_npy(&code, gpu.as_ref(), config, scale, &a.input, &a.output)?;
    if let Some(info) = &a.output_info {
        sigpu_ldpc::info_bits_npy(&code, &a.output, info)
            .with_context(|| format!("--output-info {}", info.display()))?;
    }
    let (stats, seconds) = (&done.stats, done.seconds);
    let mut report = serde_json::json!({
        "code": code.name(), "decoder": done.decoder, "codewords": stats.codewords,
        "valid": stats.valid, "iterations": stats.iterations, "seconds": seconds,
        "output": a.output.display().to_string(), "input_dtype": done.input_dtype,
    });
    if let Some(info) = &a.output_info {
        report["output_info"] = info.display().to_string().into();
    }
    float64_note(json, done.input_dtype);
    super::report(json, &report, |_| {
        println!(
            "{}: decoded {} codewords with {} in {seconds:.3} s; {} satisfy every check; wrote {}{}",
            code.name(),
            stats.codewords,
            done.decoder,
            stats.valid,
            a.output.display(),
            info_written(a)
        );
    })
}

/// `ldpc decode --soft`: the f32 CPU decoder, with posterior LLRs.
fn decode_soft(
    json: bool,
    a: &DecodeArgs,
    code: &Code,
    on_gpu: bool,
    soft: &std::path::Path,
) -> Result<ExitCode> {
    let config = a.decoder.config()?;
    if on_gpu || !matches!(config.precision, Precision::Float) {
        bail!(
            "--soft: posterior LLRs come from the f32 CPU decoder only; add --precision float \
             (and leave out --device cuda)"
        );
    }
    let done = sigpu_ldpc::decode_file::decode_npy_soft(
        code,
        config,
        a.decoder.scale,
        &a.input,
        &a.output,
        soft,
    )?;
    if let Some(info) = &a.output_info {
        sigpu_ldpc::info_bits_npy(code, &a.output, info)
            .with_context(|| format!("--output-info {}", info.display()))?;
    }
    let stats = &done.stats;
    let mut report = serde_json::json!({
        "code": code.name(), "decoder": done.decoder, "codewords": stats.codewords,
        "valid": stats.valid, "iterations": stats.iterations, "seconds": done.seconds,
        "output": a.output.display().to_string(), "soft": soft.display().to_string(),
        "input_dtype": done.input_dtype,
    });
    if let Some(info) = &a.output_info {
        report["output_info"] = info.display().to_string().into();
    }
    float64_note(json, done.input_dtype);
    super::report(json, &report, |_| {
        println!(
            "{}: decoded {} codewords with {} in {:.3} s; {} satisfy every check; wrote {}{}, the posterior LLRs to {}",
            code.name(),
            stats.codewords,
            done.decoder,
            done.seconds,
            stats.valid,
            a.output.display(),
            info_written(a),
            soft.display()
        );
    })
}

/// Says (on stderr, in text mode) that float64 LLRs were converted to float32.
fn float64_note(json: bool, input_dtype: &str) {
    if input_dtype == "float64" && !json {
        eprintln!("note: --input holds float64 LLRs; decoded after conversion to float32");
    }
}

/// ", the information bits to FILE" when `--output-info` was given: every file written is
/// named.
fn info_written(a: &DecodeArgs) -> String {
    (a.output_info.as_deref())
        .map(|info| format!(", the information bits to {}", info.display()))
        .unwrap_or_default()
}

impl SimulateArgs {
    /// The sweep these flags ask for.
    fn spec(&self, code: &Code) -> Result<SweepSpec> {
        let interleaving = match self.bit_interleaver.trim() {
            "auto" => Interleaving::default_for(code),
            other => other.parse()?,
        };
        let link = Link {
            modulation: self.modulation.parse()?,
            demapper: self.demapper.parse()?,
            interleaving,
            seed: self.seed,
        };
        let (axis, points) = match (&self.snr, &self.eb_n0) {
            (Some(s), None) => (SnrAxis::EsN0, sweep::parse_points(s)?),
            (None, Some(s)) => (SnrAxis::EbN0, sweep::parse_points(s)?),
            _ => bail!("give the SNR points with --snr (Es/N0) or --eb-n0"),
        };
        let mut spec = SweepSpec::new(link, axis, points, self.decoder.config()?);
        spec.min_errors = self.min_errors;
        spec.max_frames = self.max_frames;
        spec.batch = self.batch;
        spec.device_frames = !self.host_frames;
        spec.out = self.out.clone();
        spec.resume = self.resume;
        Ok(spec)
    }
}

/// `sigpu ldpc simulate`: on the CPU, one GPU, or with `all_gpus` every GPU of the host; under
/// an MPI launcher (built with `--features mpi`) on every rank, each with its own device(s),
/// rank 0 alone writing the file and printing.
pub fn simulate(
    device: Option<Device>,
    all_gpus: bool,
    json: bool,
    a: &SimulateArgs,
) -> Result<ExitCode> {
    super::ranks::run("ldpc simulate", |ranks| {
        simulate_on(ranks, device, all_gpus, json, a)
    })
}

fn simulate_on(
    ranks: &dyn Ranks,
    device: Option<Device>,
    all_gpus: bool,
    json: bool,
    a: &SimulateArgs,
) -> Result<ExitCode> {
    let root = ranks.rank() == 0;
    let prepared = (|| -> Result<_> {
        if root {
            // Rank 0 alone writes the files: they are checked where they are written.
            let outputs = [("--out", a.out.as_deref()), ("--plot", a.plot.as_deref())];
            let outputs: Vec<_> = outputs
                .into_iter()
                .filter_map(|(f, p)| Some((f, p?)))
                .collect();
            super::check_files(&outputs, &[])?;
            if let Some(path) = &a.plot {
                // Before the sweep, not after hours of it.
                sigpu_plot::Format::of(path).context("--plot")?;
            }
        }
        let gpus = if all_gpus {
            Gpu::open_all().context("--device all: no GPU can run kernels on this host")?
        } else {
            open_device(device)?.into_iter().collect()
        };
        let code = Code::resolve(&a.code)?;
        let spec = a.spec(&code)?;
        Ok((gpus, code, spec))
    })();
    let (gpus, code, spec) = sigpu_runtime::ranks::agree(ranks, prepared, |e| format!("{e:#}"))
        .map_err(|e| e.unwrap_or_else(anyhow::Error::new))?;
    if gpus.len() > 1 && !json {
        let names: Vec<_> = gpus.iter().map(|g| g.info().name.clone()).collect();
        let on = if ranks.size() > 1 {
            format!("rank {}: ", ranks.rank())
        } else {
            String::new()
        };
        eprintln!(
            "{on}spreading the sweep over {} GPUs: {}",
            gpus.len(),
            names.join(", ")
        );
    }
    if root && ranks.size() > 1 && !json {
        eprintln!(
            "spreading the sweep over {} MPI ranks; rank 0 writes the results",
            ranks.size()
        );
    }
    // One bar per point, gone once the point's line is printed (rank 0 only).
    let mut bar: Option<ProgressBar> = None;
    // The SNRs of the points this run computed; the others came from --out (--resume).
    let mut fresh: Vec<f64> = Vec::new();
    let style = super::bar_style("{spinner} {prefix} [{bar:30}] {pos}/{len} frames {msg}");
    let result = sweep::run_ranks(ranks, &code, &gpus, &spec, &mut |event| match event {
        SweepEvent::Start(db) => {
            let b = ProgressBar::new(a.max_frames).with_style(style.clone());
            b.set_prefix(format!("{} {db:.2} dB", spec.axis.label()));
            bar = Some(b);
        }
        SweepEvent::Batch(p) => {
            let Some(b) = &bar else { return };
            b.set_position(p.frames);
            let (errors, ber, fer) = (p.frame_errors, p.ber, p.fer);
            b.set_message(format!(
                "{errors} frame errors, BER {ber:.2e}, FER {fer:.2e}"
            ));
        }
        SweepEvent::Note(note) => eprintln!("{note}"),
        SweepEvent::Point(p) => {
            bar.take().inspect(ProgressBar::finish_and_clear);
            fresh.push(spec.axis.of(p));
            if !json {
                println!("{}", point_line(p));
            }
        }
    });
    bar.take().inspect(ProgressBar::finish_and_clear);
    let sweep = result?;
    if !root {
        return Ok(ExitCode::SUCCESS);
    }
    if let (false, Some(out)) = (json, &a.out) {
        // Points resumed from the file are part of the result: shown too, marked as such.
        for p in (sweep.points.iter()).filter(|p| !fresh.contains(&spec.axis.of(p))) {
            println!("{} (kept from {})", point_line(p), out.display());
        }
    }
    if let Some(path) = &a.plot {
        ldpc_plot::save_sweep(path, &sweep, spec.axis)
            .with_context(|| format!("--plot {}", path.display()))?;
    }
    if json {
        super::print_json(&sweep)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn point_line(p: &PointResult) -> String {
    // A point of an old file (no Σ e²) has the worst case over spreads: said beside it.
    let worst = match p.ber_ci_method {
        BerCiMethod::FramesWorstCase => " (worst case over spreads)",
        BerCiMethod::FramesT => "",
    };
    format!(
        "Es/N0 {:.2} dB (Eb/N0 {:.2}): {} frames, {} frame errors, BER {:.3e} [{:.2e}, {:.2e}]{worst}, FER {:.3e} [{:.2e}, {:.2e}], {:.1} iterations/frame, {:.1} s ({:.0} frames/s, {:.1} Mbps information, {:.1} Mbps coded)",
        p.es_n0_db, p.eb_n0_db, p.frames, p.frame_errors, p.ber, p.ber_ci[0], p.ber_ci[1], p.fer, p.fer_ci[0], p.fer_ci[1], p.mean_iterations, p.seconds,
        p.frames_per_s, p.info_mbps, p.coded_mbps
    )
}

/// `sigpu bench ldpc`: the decoder throughput tables.
pub fn bench(device: Option<Device>, json: bool, a: &BenchArgs) -> Result<ExitCode> {
    super::check_files(&Vec::from_iter(a.out.output()), &[])?;
    let gpu = open_device(device)?;
    let spec = BenchSpec {
        codes: a.codes.clone(),
        iterations: a.iterations.clone(),
        runs: a.runs,
        algorithm: Algorithm::parse(&a.decoder)?,
        schedules: a.schedule.clone(),
        scale: a.scale,
        codewords: a.codewords,
        sub_batches: a.sub_batch.clone(),
        word_kernels: a.word_kernels,
        compact_batches: a.compact_batch.clone(),
    };
    let bar = ProgressBar::new(0);
    let report = lab_bench::run(gpu.as_ref(), &spec, &mut |done, total, what| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(what.to_owned());
    })?;
    bar.finish_and_clear();
    super::write_json_out(&a.out, &report)?;
    super::report(json, &report, |r| print!("{}", r.text()))
}

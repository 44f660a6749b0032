//! `sigpu filter`: an IIR filter — SciPy's `(b, a)`, second-order sections or the seed's
//! signature — over a signal file (.npy of any shape with `--axis`, raw, or WAV; `-` for
//! stdin/stdout), on the CPU or a GPU, with SciPy's zi / zf shapes and zero-phase
//! `--filtfilt`. The filtering, the method choice and the file formats are the library's
//! ([`sigpu_recurrence`]); this file checks the flags and prints.

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Serialize;
use sigpu_recurrence::gpu::{generate, GpuConfig};
use sigpu_recurrence::io as signal_io;
use sigpu_recurrence::planner::Timing;
use sigpu_recurrence::signal;
use sigpu_recurrence::{
    check_finite, from_le_bytes, parse_values, plan, short, to_le_bytes, with_dtype, DType,
    Element, Filter, FilterOptions, FilterSpec, Signature,
};
use sigpu_runtime::{Device, GpuTarget, Target};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Accuracy contract and numbers, shown in `--help`.
const CONTRACT: &str = "\
Accuracy contract: for every stable filter the output is within 4x the error of \
scipy.signal.lfilter / sosfilt at the same dtype, against the exact output of the coefficients \
as given. Before running, the error of each method is predicted from the filter (growth of the \
block correction factors, impulse-response norms); a (b, a) filter runs blocked (plr), as its \
FIR part followed by all-pole second-order sections from its poles (pole-cascade), or serially \
(serial) - whichever keeps the contract fastest. --json reports \"method\" and \"error_bound\" \
(predicted max|error| / max|x|). Unstable filters (exact step-down test) are refused unless \
--allow-unstable. Integer element types (i32, i64, --signature only) wrap on overflow like \
two's-complement C integers, with no error: exact modulo 2^32 / 2^64.";

#[derive(Args, Debug)]
#[command(after_help = CONTRACT)]
pub struct FilterArgs {
    /// The recurrence in the signature notation of Maleki & Burtscher's PLR paper, e.g. "(0.2 : 0.8)" or
    /// "(0.81, -1.62, 0.81 : 1.6, -0.64)" (non-recursive : recursive coefficients).
    #[arg(long, value_name = "\"(a0, … : b1, …)\"", conflicts_with_all = ["b", "a", "sos"])]
    pub signature: Option<String>,
    /// SciPy lfilter numerator, comma-separated (with --a).
    #[arg(
        long,
        value_name = "B0,B1,…",
        requires = "a",
        allow_hyphen_values = true,
        conflicts_with = "sos"
    )]
    pub b: Option<String>,
    /// SciPy lfilter denominator, comma-separated; a[0] normalises.
    #[arg(
        long,
        value_name = "A0,A1,…",
        requires = "b",
        allow_hyphen_values = true
    )]
    pub a: Option<String>,
    /// Second-order sections in SciPy's (n_sections, 6) layout, rows [b0, b1, b2, 1, a1, a2]:
    /// a .npy file, or inline values (rows separated by ';' or all 6·n values by commas).
    #[arg(long, value_name = "FILE|VALUES", allow_hyphen_values = true)]
    pub sos: Option<String>,
    /// Element type everything runs in: f32, f64, i32 or i64 (default: the input's; integer
    /// input with --b/--a or --sos runs in f64, as SciPy promotes it; required for raw input).
    #[arg(long)]
    pub dtype: Option<String>,
    /// Input signal: .npy (any shape; filtered along --axis), .wav (PCM 8/16/24/32-bit or
    /// 32-bit float, any channels; read as frames × channels scaled to [-1, 1)), or raw
    /// little-endian values; `-` reads stdin (.npy unless --format says otherwise).
    #[arg(long, value_name = "FILE", required_unless_present = "emit_cuda")]
    pub input: Option<PathBuf>,
    /// Where the output goes, in the input's format and shape (written atomically); `-` writes
    /// stdout (the summary then goes to stderr). WAV output keeps the input's sample format
    /// (integer PCM rounds and clips to its range; clipped samples are counted).
    #[arg(long, value_name = "FILE", required_unless_present = "emit_cuda")]
    pub output: Option<PathBuf>,
    /// File format of input and output: by extension (.npy, .wav, else raw) unless given.
    #[arg(long, value_parser = ["npy", "raw", "wav"])]
    pub format: Option<String>,
    /// Channels in a raw input (stored one after another: channels × samples).
    #[arg(long, default_value_t = 1)]
    pub channels: usize,
    /// The axis along which to filter, as SciPy (negative counts from the end). Default: the
    /// last (-1) for .npy and raw (channels × samples); 0 (time) for WAV (frames × channels).
    #[arg(long, allow_hyphen_values = true)]
    pub axis: Option<isize>,
    /// Initial state, in SciPy's shape: (b, a): the input's shape with the axis replaced by
    /// max(len(a), len(b)) - 1 (size-1 dimensions broadcast); --sos: (n_sections, …input
    /// shape with the axis replaced by 2…). A .npy / raw file, or comma-separated values in
    /// that shape's C order.
    #[arg(long, value_name = "VALUES|FILE", allow_hyphen_values = true)]
    pub zi: Option<String>,
    /// Also write the final state zf (same shape as zi) to this file (the output's format).
    #[arg(long, value_name = "FILE")]
    pub zf: Option<PathBuf>,
    /// Zero-phase filtering, as scipy.signal.filtfilt / sosfiltfilt: odd extension by
    /// --padlen samples at both ends, forward and backward passes started from lfilter_zi /
    /// sosfilt_zi times the first sample.
    #[arg(long, conflicts_with_all = ["zi", "zf", "signature"])]
    pub filtfilt: bool,
    /// Padding for --filtfilt (default SciPy's: 3·max(len(a), len(b)); sections:
    /// 3·(2·n_sections + 1 − min(#b2 = 0, #a2 = 0))).
    #[arg(long, requires = "filtfilt")]
    pub padlen: Option<usize>,
    /// Turn off the factor optimisations (truncation, zero suppression, 0/1 specialisation).
    #[arg(long)]
    pub no_optimize: bool,
    /// Run a filter with a pole outside the unit circle instead of refusing it.
    #[arg(long)]
    pub allow_unstable: bool,
    /// Print the generated CUDA source (for --dtype, default f32) instead of filtering; needs
    /// no GPU.
    #[arg(long)]
    pub emit_cuda: bool,
}

#[derive(Serialize)]
struct Summary {
    /// The filter as given.
    filter: String,
    dtype: DType,
    device: String,
    /// How it ran (plr, pole-cascade, serial, sos, sos-serial, fir) and the predicted bound on
    /// max|error| / max|x|; `reference_bound` is the same bound for SciPy's algorithm.
    method: String,
    error_bound: f64,
    reference_bound: f64,
    shape: Vec<usize>,
    axis: usize,
    channels: usize,
    samples_per_channel: usize,
    filtfilt: bool,
    /// Building the filter: stability, method, factors; on a GPU also the kernel.
    setup_seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    transfer_seconds: Option<f64>,
    /// The filtering itself.
    compute_seconds: f64,
    msamples_per_s: f64,
    output: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    zf: Option<String>,
    /// WAV output: samples clipped to the integer PCM range.
    #[serde(skip_serializing_if = "Option::is_none")]
    clipped: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// The filter as the user gave it, with the flag to name in errors.
enum Spec {
    Signature(Signature),
    Ba(Vec<f64>, Vec<f64>),
    Sos(Vec<[f64; 6]>),
}

impl Spec {
    /// The planner's spec.
    fn planned(&self) -> FilterSpec {
        match self {
            Spec::Signature(s) => FilterSpec::Signature(s.clone()),
            Spec::Ba(b, a) => FilterSpec::ba(b, a),
            Spec::Sos(rows) => FilterSpec::Sos(rows.clone()),
        }
    }

    fn flag(&self) -> &'static str {
        match self {
            Spec::Signature(_) => "--signature",
            Spec::Ba(..) => "--b/--a",
            Spec::Sos(_) => "--sos",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Npy,
    Raw,
    Wav,
}

/// The input as read: values as f64 or integers, its shape and format.
struct Input {
    shown: String,
    format: Format,
    dtype: DType,
    shape: Vec<usize>,
    bytes: Vec<u8>,
    wav: Option<hound::WavSpec>,
}

pub fn run(device: Option<Device>, json: bool, args: &FilterArgs) -> Result<ExitCode> {
    let spec = spec(args)?;
    let dtype = (args.dtype.as_deref())
        .map(|d| {
            d.parse::<DType>()
                .map_err(|e| anyhow::anyhow!("--dtype: {e}"))
        })
        .transpose()?;
    let options = FilterOptions {
        optimize: !args.no_optimize,
        allow_unstable: args.allow_unstable,
        ..FilterOptions::default()
    };
    if args.emit_cuda {
        let signature = match &spec {
            Spec::Signature(s) => s.clone(),
            Spec::Ba(b, a) => Signature::from_lfilter(b, a).context("--b/--a")?,
            Spec::Sos(_) => bail!(
                "--emit-cuda shows the (b, a) / signature kernel; give --signature or --b/--a"
            ),
        };
        let source = with_dtype!(dtype.unwrap_or(DType::F32), T => {
            let filter = Filter::<T>::new(&signature, options).context(spec.flag())?;
            generate(&filter, GpuConfig::default())?.source
        });
        print!("{source}");
        return Ok(ExitCode::SUCCESS);
    }
    // Before reading anything: --output and --zf must be two writable files, neither an input
    // ("-" is stdin / stdout, not a file).
    fn file(p: Option<&Path>) -> Option<&Path> {
        p.filter(|p| *p != Path::new("-"))
    }
    let zi_file = (args.zi.as_deref()).map(Path::new).filter(|p| p.exists());
    super::check(
        &[
            super::Output::File("--output", file(args.output.as_deref())),
            super::Output::File("--zf", file(args.zf.as_deref())),
        ],
        &[("--input", file(args.input.as_deref())), ("--zi", zi_file)],
    )?;
    let input = read_input(args, dtype)?;
    let compute = compute_dtype(&spec, &input, dtype)?;
    let target = match super::resolve(device, super::Need::Either, "filter")?.into_gpu() {
        Some(gpu) => Target::Gpu(GpuTarget::new(gpu)),
        None => Target::cpu(),
    };
    let summary =
        with_dtype!(compute, T => filter_typed::<T>(&spec, options, &target, &input, args)?);
    let to_stdout = args.output.as_deref() == Some(Path::new("-"));
    if json {
        let text = serde_json::to_string_pretty(&summary)?;
        if to_stdout {
            eprintln!("{text}");
        } else {
            println!("{text}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let s = &summary;
    let line = format!(
        "{} {} on {}: {} channel(s) × {} samples{}; method {} (error bound {:.1e}, scipy's {:.1e}); \
         setup {:.3} s{}, filtering {:.6} s ({:.1} M samples/s) → {}{}{}",
        s.filter,
        s.dtype,
        s.device,
        s.channels,
        s.samples_per_channel,
        if s.filtfilt { ", zero-phase" } else { "" },
        s.method,
        s.error_bound,
        s.reference_bound,
        s.setup_seconds,
        (s.transfer_seconds.map(|t| format!(", transfers {t:.3} s"))).unwrap_or_default(),
        s.compute_seconds,
        s.msamples_per_s,
        s.output,
        (s.zf.as_deref().map(|z| format!(", zf → {z}"))).unwrap_or_default(),
        (s.note.as_deref().map(|n| format!(" ({n})"))).unwrap_or_default(),
    );
    if to_stdout {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The filter from --signature, --b/--a or --sos, with errors naming the flag.
fn spec(args: &FilterArgs) -> Result<Spec> {
    match (&args.signature, &args.b, &args.a, &args.sos) {
        (Some(s), ..) => Ok(Spec::Signature(Signature::parse(s).context("--signature")?)),
        (None, Some(b), Some(a), _) => {
            let b = parse_values::<f64>(b).context("--b")?;
            let a = parse_values::<f64>(a).context("--a")?;
            // Checks a[0], finiteness and emptiness now, naming the flags.
            Signature::from_lfilter(&b, &a).context("--b/--a")?;
            Ok(Spec::Ba(b, a))
        }
        (None, None, None, Some(text)) => Ok(Spec::Sos(read_sos(text).context("--sos")?)),
        _ => bail!(
            "give the filter as --b … --a …, --sos FILE|VALUES or --signature \"(a0, … : b1, …)\""
        ),
    }
}

/// --sos as a .npy file of shape (n_sections, 6) or inline values.
fn read_sos(text: &str) -> Result<Vec<[f64; 6]>> {
    let path = Path::new(text);
    if path.is_file() {
        let array = signal_io::read(path, None).with_context(|| text.to_string())?;
        let values: Vec<f64> = match array.dtype {
            DType::F64 => array.values::<f64>().unwrap_or_default(),
            DType::F32 => (array.values::<f32>().unwrap_or_default())
                .iter()
                .map(|&v| v as f64)
                .collect(),
            other => bail!("{text} holds {other} values; sections are float32 or float64"),
        };
        return signal::sos_rows(&values, &array.shape).with_context(|| text.to_owned());
    }
    let rows: Vec<&str> = text.split(';').filter(|r| !r.trim().is_empty()).collect();
    let mut values = Vec::new();
    let mut shape = vec![0, 6];
    for r in &rows {
        let v = parse_list(r).with_context(|| format!("{text:?}: no such file, and"))?;
        if rows.len() > 1 && v.len() != 6 {
            bail!(
                "row {r:?} has {} values; each section row is [b0, b1, b2, 1, a1, a2]",
                v.len()
            );
        }
        values.extend(v);
    }
    if values.len() % 6 != 0 || values.is_empty() {
        shape = vec![values.len()];
    } else {
        shape[0] = values.len() / 6;
    }
    Ok(signal::sos_rows(&values, &shape)?)
}

/// Comma-separated numbers (NaN and infinities are read, so that they can be refused by
/// name rather than taken for a file name).
fn parse_list(text: &str) -> Result<Vec<f64>> {
    text.split(',')
        .map(|t| {
            let t = t.trim();
            t.parse::<f64>()
                .map_err(|_| anyhow::anyhow!("{t:?} is not a number"))
        })
        .collect()
}

fn format_of(args: &FilterArgs, path: &Path) -> Format {
    match args.format.as_deref() {
        Some("raw") => Format::Raw,
        Some("wav") => Format::Wav,
        Some(_) => Format::Npy,
        None if path == Path::new("-") => Format::Npy,
        None => match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("npy") => Format::Npy,
            Some(e) if e.eq_ignore_ascii_case("wav") => Format::Wav,
            _ => Format::Raw,
        },
    }
}

fn read_bytes(path: &Path, flag: &str) -> Result<Vec<u8>> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .with_context(|| format!("{flag} -: reading stdin"))?;
        return Ok(bytes);
    }
    std::fs::read(path).with_context(|| format!("{flag} {}: cannot read", path.display()))
}

/// Reads --input (.npy, WAV or raw) with its shape.
fn read_input(args: &FilterArgs, dtype: Option<DType>) -> Result<Input> {
    let (Some(input), Some(_)) = (&args.input, &args.output) else {
        bail!("--input and --output are required");
    };
    let shown = input.display().to_string();
    let format = format_of(args, input);
    let bytes = read_bytes(input, "--input")?;
    match format {
        Format::Raw => {
            let dtype = dtype.with_context(|| {
                format!("--input {shown} is read as raw little-endian values: --dtype must say their type")
            })?;
            if bytes.len() % dtype.size() != 0 {
                bail!(
                    "--input {shown}: {} bytes is not a whole number of {dtype} values",
                    bytes.len()
                );
            }
            let len = bytes.len() / dtype.size();
            if args.channels == 0 || len % args.channels != 0 {
                bail!(
                    "--input {shown}: {len} values do not split into --channels {} channels",
                    args.channels
                );
            }
            let shape = if args.channels > 1 {
                vec![args.channels, len / args.channels]
            } else {
                vec![len]
            };
            Ok(Input {
                shown,
                format,
                dtype,
                shape,
                bytes,
                wav: None,
            })
        }
        Format::Npy => {
            let array = signal_io::parse(&bytes).with_context(|| format!("--input {shown}"))?;
            if let Some(d) = dtype.filter(|&d| d != array.dtype && array.dtype.is_float()) {
                bail!(
                    "--input {shown} holds {} values but --dtype says {d}",
                    array.dtype
                );
            }
            Ok(Input {
                shown,
                format,
                dtype: array.dtype,
                shape: array.shape,
                bytes: array.bytes,
                wav: None,
            })
        }
        Format::Wav => {
            let mut reader = hound::WavReader::new(std::io::Cursor::new(bytes))
                .with_context(|| format!("--input {shown}: not a WAV file hound can read"))?;
            let spec = reader.spec();
            let values: Vec<f64> = match spec.sample_format {
                hound::SampleFormat::Float => reader
                    .samples::<f32>()
                    .map(|s| s.map(f64::from))
                    .collect::<Result<_, _>>()
                    .with_context(|| format!("--input {shown}"))?,
                hound::SampleFormat::Int => {
                    let scale = 2f64.powi(spec.bits_per_sample as i32 - 1);
                    reader
                        .samples::<i32>()
                        .map(|s| s.map(|v| v as f64 / scale))
                        .collect::<Result<_, _>>()
                        .with_context(|| format!("--input {shown}"))?
                }
            };
            let channels = spec.channels as usize;
            let shape = vec![values.len() / channels.max(1), channels];
            Ok(Input {
                shown,
                format,
                dtype: DType::F64,
                shape,
                bytes: to_le_bytes(&values),
                wav: Some(spec),
            })
        }
    }
}

/// The dtype the filter runs in: --dtype, else the input's; integer input with (b, a) or
/// sections runs in f64 (SciPy's promotion); integer signatures need integer coefficients.
fn compute_dtype(spec: &Spec, input: &Input, dtype: Option<DType>) -> Result<DType> {
    let d = dtype.unwrap_or(input.dtype);
    if d.is_float() {
        if input.wav.is_some() && dtype.is_none() {
            let float32 = input
                .wav
                .is_some_and(|w| w.sample_format == hound::SampleFormat::Float);
            return Ok(if float32 { DType::F32 } else { DType::F64 });
        }
        return Ok(d);
    }
    match spec {
        Spec::Signature(s) => {
            if let Some(c) = s
                .feedforward
                .iter()
                .chain(&s.feedback)
                .find(|c| c.int.is_none())
            {
                bail!(
                    "--input {} holds {d} values, so --signature runs as an exact integer \
                     recurrence, but its coefficient {} is not an integer: pass --dtype f64 \
                     (or f32) to filter in floating point",
                    input.shown,
                    c.text
                );
            }
            Ok(d)
        }
        Spec::Ba(..) | Spec::Sos(_) if dtype.is_none() => Ok(DType::F64),
        _ => bail!(
            "{} filters run in f32 or f64 (SciPy promotes integer input to f64), not {d}: drop \
             --dtype {d} or give f32/f64",
            spec.flag()
        ),
    }
}

/// The input's values as T (integers converted to floats when T is a float).
fn input_values<T: Element>(input: &Input) -> Vec<T> {
    if input.dtype == T::DTYPE {
        return from_le_bytes(&input.bytes);
    }
    with_dtype!(input.dtype, S => {
        from_le_bytes::<S>(&input.bytes).iter().map(|v| T::from_f64(v.to_f64())).collect()
    })
}

fn filter_typed<T: Element>(
    spec: &Spec,
    options: FilterOptions,
    target: &Target,
    input: &Input,
    args: &FilterArgs,
) -> Result<Summary> {
    let flag = spec.flag();
    let x: Vec<T> = input_values(input);
    check_finite(&x, &input.shown).with_context(|| format!("--input {}", input.shown))?;
    let shape = input.shape.clone();
    let axis = args
        .axis
        .unwrap_or(if input.format == Format::Wav { 0 } else { -1 });
    let nd = shape.len() as isize;
    if axis >= nd || axis < -nd {
        bail!(
            "--axis {axis} is out of range for the {nd}-D input {} of shape {shape:?}",
            input.shown
        );
    }
    let ax = if axis < 0 {
        (nd + axis) as usize
    } else {
        axis as usize
    };
    let n = shape[ax];
    let channels = x.len() / n.max(1);
    // Plan once: the contract's method and the engine for the target (errors name the flag).
    let start = Instant::now();
    let filter = plan::<T>(&spec.planned(), options, target).context(flag)?;
    let setup_seconds = start.elapsed().as_secs_f64();
    let report = filter.report().clone();
    let (sections, state) = (filter.sections(), filter.state_len());
    let zf_shape = signal::zi_shape(&shape, axis, sections, state)?;
    let zi = match &args.zi {
        Some(text) => Some(read_zi::<T>(text, input.format == Format::Raw, &zf_shape)?),
        None => None,
    };
    let start = Instant::now();
    let mut timing = Timing::default();
    let (y, zf, device, note) = if args.filtfilt {
        let out = match spec {
            Spec::Ba(b, a) => signal::filtfilt(b, a, &x, &shape, axis, args.padlen, &options),
            Spec::Sos(rows) => signal::sosfiltfilt(rows, &x, &shape, axis, args.padlen, &options),
            Spec::Signature(_) => unreachable!("clap refuses --filtfilt with --signature"),
        }
        .context(flag)?;
        let on_cpu = plan::<T>(&spec.planned(), options, &Target::cpu()).context(flag)?;
        let note = target.gpu().map(|_| "filtfilt runs on the CPU".to_string());
        (out.y, Vec::new(), on_cpu.device(), note)
    } else {
        let (rows, channels, _) = signal::to_channels(&x, &shape, axis)?;
        let zi_rows = match (&zi, sections) {
            (Some((z, zs)), Some(ns)) => Some(signal::sos_state(z, zs, &shape, axis, ns)?),
            (Some((z, zs)), None) => Some(signal::lfilter_state(z, zs, &shape, axis, state)?),
            (None, _) => None,
        };
        let mut y_rows = vec![T::ZERO; rows.len()];
        let mut zf_rows = zi_rows
            .clone()
            .unwrap_or_else(|| vec![T::ZERO; channels * state]);
        if !rows.is_empty() {
            timing = filter
                .apply_batch_timed(
                    &rows,
                    channels,
                    &mut y_rows,
                    zi_rows.as_deref(),
                    Some(&mut zf_rows),
                )
                .context(flag)?;
        }
        let y = signal::from_channels(&y_rows, &shape, axis, n)?;
        let zf = match sections {
            Some(ns) => signal::sos_state_out(&zf_rows, &shape, axis, ns)?,
            None => signal::from_channels(&zf_rows, &shape, axis, state)?,
        };
        (y, zf, filter.device(), filter.note())
    };
    let compute_seconds = match timing.transfer_seconds {
        Some(_) => timing.compute_seconds,
        None => start.elapsed().as_secs_f64(),
    };
    let output = args.output.as_deref().expect("checked in read_input");
    let clipped = write_output(output, input, &shape, &y)?;
    let zf_written = match &args.zf {
        Some(path) => {
            write_plain(path, input.format == Format::Raw, &zf_shape, &zf, "--zf")?;
            Some(path.display().to_string())
        }
        None => None,
    };
    Ok(Summary {
        filter: describe(spec),
        dtype: T::DTYPE,
        device,
        method: report.method.name().into(),
        error_bound: report.error_bound,
        reference_bound: report.reference_bound,
        shape: shape.clone(),
        axis: ax,
        channels,
        samples_per_channel: n,
        filtfilt: args.filtfilt,
        setup_seconds,
        transfer_seconds: timing.transfer_seconds,
        compute_seconds,
        msamples_per_s: x.len() as f64 / compute_seconds.max(1e-12) / 1e6,
        output: output.display().to_string(),
        zf: zf_written,
        clipped,
        note,
    })
}

fn describe(spec: &Spec) -> String {
    let list = |v: &[f64]| v.iter().map(|&x| short(x)).collect::<Vec<_>>().join(", ");
    match spec {
        Spec::Signature(s) => s.to_string(),
        Spec::Ba(b, a) => format!("b = [{}], a = [{}]", list(b), list(a)),
        Spec::Sos(rows) => format!("{} second-order section(s)", rows.len()),
    }
}

/// --zi: an existing file (.npy with its shape, or raw values), else comma-separated values
/// (read in `want`'s C order). NaN and infinities are refused by index.
fn read_zi<T: Element>(text: &str, raw: bool, want: &[usize]) -> Result<(Vec<T>, Vec<usize>)> {
    let path = Path::new(text);
    let (values, shape): (Vec<T>, Option<Vec<usize>>) = if path.is_file() {
        let array = signal_io::read(path, raw.then_some(T::DTYPE))
            .with_context(|| format!("--zi {text}"))?;
        let Some(values) = array.values::<T>() else {
            bail!(
                "--zi {text} holds {} values but the filter runs in {}",
                array.dtype,
                T::DTYPE
            );
        };
        (values, (!raw).then_some(array.shape))
    } else if T::DTYPE.is_float() {
        let v = parse_list(text).with_context(|| {
            format!("--zi {text:?}: no such file, and not a comma-separated list of numbers")
        })?;
        (v.iter().map(|&x| T::from_f64(x)).collect(), None)
    } else {
        (parse_values::<T>(text).context("--zi")?, None)
    };
    check_finite(&values, "--zi").context("--zi")?;
    let want_len: usize = want.iter().product();
    let shape = match shape {
        Some(s) => s,
        None if values.len() == want_len => want.to_vec(),
        None => bail!(
            "--zi has {} values; this filter and input need shape {want:?} ({want_len} values, C order)",
            values.len()
        ),
    };
    Ok((values, shape))
}

/// Writes y in the input's format: .npy / raw in the compute dtype, WAV in the input's sample
/// format. Returns the number of clipped samples for integer WAV.
fn write_output<T: Element>(
    path: &Path,
    input: &Input,
    shape: &[usize],
    y: &[T],
) -> Result<Option<usize>> {
    let shown = path.display();
    match (input.format, input.wav) {
        (Format::Wav, Some(spec)) => {
            let mut bytes = Vec::new();
            let mut clipped = 0;
            {
                let mut w = hound::WavWriter::new(std::io::Cursor::new(&mut bytes), spec)
                    .with_context(|| format!("--output {shown}"))?;
                match spec.sample_format {
                    hound::SampleFormat::Float => {
                        for v in y {
                            w.write_sample(v.to_f64() as f32)?;
                        }
                    }
                    hound::SampleFormat::Int => {
                        let scale = 2f64.powi(spec.bits_per_sample as i32 - 1);
                        let (lo, hi) = (-scale, scale - 1.0);
                        for v in y {
                            let s = (v.to_f64() * scale).round();
                            if s < lo || s > hi {
                                clipped += 1;
                            }
                            w.write_sample(s.clamp(lo, hi) as i32)?;
                        }
                    }
                }
                w.finalize().with_context(|| format!("--output {shown}"))?;
            }
            put(path, &bytes, "--output")?;
            Ok(Some(clipped))
        }
        _ => {
            write_plain(path, input.format == Format::Raw, shape, y, "--output")?;
            Ok(None)
        }
    }
}

/// Writes `values` as .npy (or raw) to `path` for `flag`, which errors name.
fn write_plain<T: Element>(
    path: &Path,
    raw: bool,
    shape: &[usize],
    values: &[T],
    flag: &str,
) -> Result<()> {
    let bytes = to_le_bytes(values);
    let data = if raw {
        bytes
    } else {
        signal_io::encode(T::DTYPE, shape, &bytes)
    };
    put(path, &data, flag)
}

fn put(path: &Path, data: &[u8], flag: &str) -> Result<()> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        out.write_all(data)
            .and_then(|()| out.flush())
            .with_context(|| format!("{flag} -: writing stdout"))?;
        return Ok(());
    }
    sigpu_runtime::fs::write_atomic(path, data)
        .with_context(|| format!("{flag} {}: cannot write", path.display()))
}

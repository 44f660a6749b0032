//! `sigpu filter`: a linear recurrence / IIR filter over a signal file (.npy or raw), on the
//! CPU or a GPU, with SciPy's zi / zf state. The filtering and the file I/O are the library's
//! ([`sigpu_recurrence::io`]); this file checks the flags and prints.

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Serialize;
use sigpu_recurrence::gpu::{generate, GpuConfig};
use sigpu_recurrence::io as signal;
use sigpu_recurrence::{
    check_finite, from_le_bytes, parse_values, with_dtype, DType, Element, Filter, FilterOptions,
    Signature,
};
use sigpu_runtime::cuda::Gpu;
use sigpu_runtime::Device;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct FilterArgs {
    /// The recurrence in the signature notation of Maleki & Burtscher's PLR paper, e.g. "(0.2 : 0.8)" or
    /// "(0.81, -1.62, 0.81 : 1.6, -0.64)" (non-recursive : recursive coefficients).
    #[arg(long, value_name = "\"(a0, … : b1, …)\"", conflicts_with_all = ["b", "a"])]
    pub signature: Option<String>,
    /// SciPy lfilter numerator, comma-separated (with --a instead of --signature).
    #[arg(
        long,
        value_name = "B0,B1,…",
        requires = "a",
        allow_hyphen_values = true
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
    /// Element type: f32, f64, i32 or i64 (default: the .npy file's; required for raw input).
    #[arg(long)]
    pub dtype: Option<String>,
    /// Input signal: .npy (1-D, or 2-D channels × samples) or raw little-endian values.
    #[arg(long, value_name = "FILE", required_unless_present = "emit_cuda")]
    pub input: Option<PathBuf>,
    /// Where the output goes, in the input's format (written atomically).
    #[arg(long, value_name = "FILE", required_unless_present = "emit_cuda")]
    pub output: Option<PathBuf>,
    /// File format of input and output: by extension (.npy, else raw) unless given.
    #[arg(long, value_parser = ["npy", "raw"])]
    pub format: Option<String>,
    /// Channels in a raw input (a .npy input's first dimension says it).
    #[arg(long, default_value_t = 1)]
    pub channels: usize,
    /// Initial state: comma-separated values (state length × channels), or a .npy / raw file.
    #[arg(long, value_name = "VALUES|FILE", allow_hyphen_values = true)]
    pub zi: Option<String>,
    /// Also write the final state zf to this file (same format as the output).
    #[arg(long, value_name = "FILE")]
    pub zf: Option<PathBuf>,
    /// Turn off the factor optimisations (truncation, zero suppression, 0/1 specialisation).
    #[arg(long)]
    pub no_optimize: bool,
    /// Run a recurrence with a pole outside the unit circle instead of refusing it.
    #[arg(long)]
    pub allow_unstable: bool,
    /// Print the generated CUDA source (for --dtype, default f32) instead of filtering; needs
    /// no GPU.
    #[arg(long)]
    pub emit_cuda: bool,
}

#[derive(Serialize)]
struct Summary {
    signature: String,
    dtype: DType,
    device: String,
    channels: usize,
    samples_per_channel: usize,
    /// Building the filter: factors, and on a GPU generating, compiling (or taking from the
    /// kernel cache) and loading the kernel.
    setup_seconds: f64,
    /// GPU: host → device and device → host copies of the signal and state.
    #[serde(skip_serializing_if = "Option::is_none")]
    transfer_seconds: Option<f64>,
    /// The filtering itself: the kernel (CUDA events, one cold run) or the CPU pass.
    compute_seconds: f64,
    /// Samples per second of `compute_seconds`.
    msamples_per_s: f64,
    output: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    zf: Option<String>,
}

/// The signal file and how to write results next to it.
struct Io<'a> {
    args: &'a FilterArgs,
    input: &'a Path,
    output: &'a Path,
    raw: bool,
    array: signal::Array,
    channels: usize,
}

pub fn run(device: Option<Device>, json: bool, args: &FilterArgs) -> Result<ExitCode> {
    let signature = signature(args)?;
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
        let source = with_dtype!(dtype.unwrap_or(DType::F32), T => {
            let filter = Filter::<T>::new(&signature, options).context("--signature")?;
            generate(&filter, GpuConfig::default())?.source
        });
        print!("{source}");
        return Ok(ExitCode::SUCCESS);
    }
    // Before reading anything: --output and --zf must be two writable files, neither an input.
    let zi_file = (args.zi.as_deref()).map(Path::new).filter(|p| p.exists());
    super::check(
        &[
            super::Output::File("--output", args.output.as_deref()),
            super::Output::File("--zf", args.zf.as_deref()),
        ],
        &[("--input", args.input.as_deref()), ("--zi", zi_file)],
    )?;
    let io = read_input(args, dtype)?;
    let gpu = super::resolve(device, super::Need::Either, "filter")?.into_gpu();
    let summary = with_dtype!(io.array.dtype, T => {
        filter_typed::<T>(&signature, options, gpu.as_ref(), &io)?
    });
    if json {
        return super::print_json(&summary).map(|()| ExitCode::SUCCESS);
    }
    let s = &summary;
    println!(
        "{} {} on {}: {} channel(s) × {} samples; setup {:.3} s{}, filtering {:.6} s \
         ({:.1} M samples/s) → {}{}",
        s.signature,
        s.dtype,
        s.device,
        s.channels,
        s.samples_per_channel,
        s.setup_seconds,
        (s.transfer_seconds.map(|t| format!(", transfers {t:.3} s"))).unwrap_or_default(),
        s.compute_seconds,
        s.msamples_per_s,
        s.output,
        (s.zf.as_deref().map(|z| format!(", zf → {z}"))).unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}

/// The filter from --signature or --b/--a, with errors naming the flag.
fn signature(args: &FilterArgs) -> Result<Signature> {
    match (&args.signature, &args.b, &args.a) {
        (Some(s), _, _) => Signature::parse(s).context("--signature"),
        (None, Some(b), Some(a)) => {
            let b = parse_values::<f64>(b).context("--b")?;
            let a = parse_values::<f64>(a).context("--a")?;
            Signature::from_lfilter(&b, &a).context("--b/--a")
        }
        _ => bail!("give the filter as --signature \"(a0, … : b1, …)\" or as --b … --a …"),
    }
}

/// Reads --input (.npy or raw) and works out its channels.
fn read_input(args: &FilterArgs, dtype: Option<DType>) -> Result<Io<'_>> {
    let (Some(input), Some(output)) = (&args.input, &args.output) else {
        bail!("--input and --output are required");
    };
    let shown = input.display();
    let raw = match args.format.as_deref() {
        Some(f) => f == "raw",
        None => input.extension().is_none_or(|e| e != "npy"),
    };
    let raw_dtype = raw
        .then(|| {
            dtype.with_context(|| {
                format!("--input {shown} is read as raw little-endian values: --dtype must say their type")
            })
        })
        .transpose()?;
    let array = signal::read(input, raw_dtype).with_context(|| format!("--input {shown}"))?;
    if let Some(d) = dtype.filter(|&d| d != array.dtype) {
        bail!(
            "--input {shown} holds {} values but --dtype says {d}",
            array.dtype
        );
    }
    let channels = match (raw, array.shape.as_slice()) {
        (true, [len]) => {
            if args.channels == 0 || len % args.channels != 0 {
                bail!(
                    "--input {shown}: {len} values do not split into --channels {} channels",
                    args.channels
                );
            }
            args.channels
        }
        (false, [_]) => 1,
        (false, [c, _]) => *c,
        (_, shape) => bail!(
            "--input {shown}: shape {shape:?}; expected 1-D (one channel) or 2-D (channels × samples)"
        ),
    };
    Ok(Io {
        args,
        input,
        output,
        raw,
        array,
        channels,
    })
}

fn filter_typed<T: Element>(
    signature: &Signature,
    options: FilterOptions,
    gpu: Option<&Gpu>,
    io: &Io<'_>,
) -> Result<Summary> {
    let start = Instant::now();
    let filter = Filter::<T>::new(signature, options).context("--signature")?;
    let setup_seconds = start.elapsed().as_secs_f64();
    let x: Vec<T> = from_le_bytes(&io.array.bytes);
    let channels = io.channels;
    check_finite(&x, &io.input.display().to_string())
        .with_context(|| format!("--input {}", io.input.display()))?;
    let zi = io
        .args
        .zi
        .as_deref()
        .map(|z| read_zi::<T>(z, io.raw))
        .transpose()?;
    if let Some(zi) = &zi {
        let want = channels * filter.state_len();
        if zi.len() != want {
            bail!(
                "--zi has {} values; {channels} channel(s) of this filter's state ({} each, \
                 SciPy's max(len(b), len(a)) - 1) need {want}",
                zi.len(),
                filter.state_len()
            );
        }
    }
    let run = signal::run(&filter, gpu, &x, channels, zi.as_deref())?;
    signal::write(io.output, io.raw, &io.array.shape, &run.y)?;
    let zf = match &io.args.zf {
        Some(path) => {
            let shape = if channels > 1 && io.array.shape.len() == 2 {
                vec![channels, filter.state_len()]
            } else {
                vec![run.zf.len()]
            };
            signal::write(path, io.raw, &shape, &run.zf).context("--zf")?;
            Some(path.display().to_string())
        }
        None => None,
    };
    Ok(Summary {
        signature: filter.signature().to_string(),
        dtype: T::DTYPE,
        device: run.device,
        channels,
        samples_per_channel: x.len() / channels,
        setup_seconds: run.setup_seconds + setup_seconds,
        transfer_seconds: run.transfer_seconds,
        compute_seconds: run.compute_seconds,
        msamples_per_s: x.len() as f64 / run.compute_seconds.max(1e-12) / 1e6,
        output: io.output.display().to_string(),
        zf,
    })
}

/// --zi as a comma-separated list, or a file when it does not read as one.
fn read_zi<T: Element>(text: &str, raw: bool) -> Result<Vec<T>> {
    let looks_like_list = text
        .chars()
        .all(|c| c.is_ascii_digit() || " ,.-+eE".contains(c));
    if looks_like_list {
        return parse_values(text).context("--zi");
    }
    let array = signal::read(Path::new(text), raw.then_some(T::DTYPE))
        .with_context(|| format!("--zi {text}"))?;
    let Some(zi) = array.values::<T>() else {
        bail!(
            "--zi {text} holds {} values but the signal is {}",
            array.dtype,
            T::DTYPE
        );
    };
    check_finite(&zi, text).context("--zi")?;
    Ok(zi)
}

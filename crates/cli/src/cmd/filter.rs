//! `sigpu filter`: an IIR filter — SciPy's `(b, a)`, second-order sections or the PLR paper's
//! signature — over a signal file (.npy of any shape with `--axis`, raw, or WAV; `-` for
//! stdin/stdout), on the CPU or a GPU, with SciPy's zi / zf shapes and zero-phase
//! `--filtfilt`. The filtering, the method choice and the file formats are the library's
//! ([`sigpu_recurrence`]), the run over files the lab's
//! ([`sigpu_lab::recurrence::filter_run`]); this file checks the flags and prints.

use anyhow::{bail, Context, Result};
use clap::Args;
use sigpu_lab::recurrence::filter_run::real::{compute_dtype, flag, RealRun};
use sigpu_lab::recurrence::filter_run::{check_streams, FilterFiles, FilterSummary};
use sigpu_recurrence::io::read_sos;
use sigpu_recurrence::{parse_values, with_dtype, DType, FilterOptions, FilterSpec, Signature};
use sigpu_runtime::{Device, GpuTarget, Target};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
#[command(after_help = sigpu_recurrence::planner::CONTRACT)]
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
    /// Input signal: .npy (any shape, either byte order; filtered along --axis), .wav (PCM
    /// 8/16/24/32-bit or 32-bit float, any channels; read as frames × channels scaled to
    /// [-1, 1), or as the integer sample values with --dtype i32 / i64), or raw
    /// little-endian values; `-` reads stdin (.npy unless --format says otherwise).
    #[arg(long, value_name = "FILE", required_unless_present = "emit_cuda")]
    pub input: Option<PathBuf>,
    /// Where the output goes, in the input's shape (written atomically): .npy when the name ends
    /// in .npy, WAV for .wav (from a WAV input only), else the input's format; text names
    /// (.txt, .csv) are refused. `-` writes stdout (the summary then goes to stderr). WAV
    /// output keeps the input's sample format (integer PCM rounds and clips to its range;
    /// clipped samples are counted and warned about).
    #[arg(long, value_name = "FILE", required_unless_present = "emit_cuda")]
    pub output: Option<PathBuf>,
    /// File format of input and output: by extension (.npy, .wav, else raw) unless given.
    #[arg(long, value_parser = ["npy", "raw", "wav"])]
    pub format: Option<String>,
    /// The input is raw interleaved I/Q as SDR front ends write it: i8 (signed 8-bit pairs)
    /// or i16 (signed 16-bit little-endian pairs, cs16), read as complex samples scaled to
    /// [-1, 1) (÷128, ÷32768) and filtered as complex128 (complex64 with --dtype f32); the
    /// output is complex (.npy, or raw interleaved float parts). Complex .npy inputs
    /// (complex64 / complex128) and complex coefficients (--b/--a or --sos values written
    /// 0.5-0.25j) need no flag.
    #[arg(long, value_name = "i8|i16", conflicts_with = "signature")]
    pub iq: Option<String>,
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
    /// Also write the final state zf (same shape as zi) to this file: .npy (raw values beside
    /// a raw output, unless the name ends in .npy).
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

pub fn run(device: Option<Device>, json: bool, args: &FilterArgs) -> Result<ExitCode> {
    let files = files(args);
    // Complex data or coefficients run in their own module; it hands back what it read.
    let read = match super::filter_complex::run_if_complex(device, json, args, files.as_ref())? {
        Ok(code) => return Ok(code),
        Err(read) => read,
    };
    let spec = spec(args)?;
    let dtype = (args.dtype.as_deref())
        .map(|d| {
            d.parse::<DType>()
                .map_err(|e| anyhow::anyhow!("--dtype: {e}"))
        })
        .transpose()?;
    let options = options(args);
    if args.emit_cuda {
        let dtype = dtype.unwrap_or(DType::F32);
        print!("{}", spec.cuda_source(dtype, options).context(flag(&spec))?);
        return Ok(ExitCode::SUCCESS);
    }
    check_streams(args.output.as_deref(), args.zf.as_deref())?;
    // A --zi that exists is a file to check (the complex path checks only regular files).
    check_files(
        args,
        (args.zi.as_deref()).map(Path::new).filter(|p| p.exists()),
    )?;
    let files = files.context("--input and --output are required")?;
    let input = files.read_real(dtype, read)?;
    let compute = compute_dtype(&spec, &input, &files.shown(), dtype)?;
    let formats = files.formats()?;
    let target = match super::resolve(device, super::Need::Either, "filter")?.into_gpu() {
        Some(gpu) => Target::Gpu(GpuTarget::new(gpu)),
        None => Target::cpu(),
    };
    let run = RealRun {
        files: &files,
        spec: &spec,
        options,
        target: &target,
        input: &input,
        formats,
    };
    let summary = with_dtype!(compute, T => run.filter::<T>()?);
    if let Some(warning) = summary.clip_warning() {
        // On stderr in every mode: with --json the count is in the summary as well.
        eprintln!("{warning}");
    }
    print_summary(&summary, json, files.output_to_stdout())
}

/// The files and along-axis flags, when --input and --output are given (clap requires them
/// unless --emit-cuda).
pub(super) fn files(args: &FilterArgs) -> Option<FilterFiles> {
    Some(FilterFiles {
        input: args.input.clone()?,
        output: args.output.clone()?,
        format: args.format.clone(),
        channels: args.channels,
        axis: args.axis,
        zi: args.zi.clone(),
        zf: args.zf.clone(),
        filtfilt: args.filtfilt,
        padlen: args.padlen,
    })
}

/// --no-optimize and --allow-unstable as the planner's options.
pub(super) fn options(args: &FilterArgs) -> FilterOptions {
    FilterOptions {
        optimize: !args.no_optimize,
        allow_unstable: args.allow_unstable,
        ..FilterOptions::default()
    }
}

/// Before reading anything: --output and --zf must be two writable files, neither an input
/// (`-` is stdin / stdout, not a file); `zi_file` is --zi when it names a file.
pub(super) fn check_files(args: &FilterArgs, zi_file: Option<&Path>) -> Result<()> {
    fn file(p: Option<&Path>) -> Option<&Path> {
        p.filter(|p| *p != Path::new("-"))
    }
    let sos_file = (args.sos.as_deref()).map(Path::new).filter(|p| p.is_file());
    super::check(
        &[
            super::Output::File("--output", file(args.output.as_deref())),
            super::Output::File("--zf", file(args.zf.as_deref())),
        ],
        &[
            ("--input", file(args.input.as_deref())),
            ("--zi", zi_file),
            ("--sos", sos_file),
        ],
    )?;
    Ok(())
}

/// The summary on stdout (on stderr when the output went to stdout): JSON or one line.
pub(super) fn print_summary(s: &FilterSummary, json: bool, to_stdout: bool) -> Result<ExitCode> {
    let text = s.render(json)?;
    match to_stdout {
        true => eprintln!("{text}"),
        false => println!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The filter from --signature, --b/--a or --sos, with errors naming the flag.
fn spec(args: &FilterArgs) -> Result<FilterSpec> {
    match (&args.signature, &args.b, &args.a, &args.sos) {
        (Some(s), ..) => Ok(FilterSpec::Signature(
            Signature::parse(s).context("--signature")?,
        )),
        (None, Some(b), Some(a), _) => {
            let b = parse_values::<f64>(b).context("--b")?;
            let a = parse_values::<f64>(a).context("--a")?;
            // Checks a[0], finiteness and emptiness now, naming the flags.
            Signature::from_lfilter(&b, &a).context("--b/--a")?;
            Ok(FilterSpec::Ba { b, a })
        }
        (None, None, None, Some(text)) => Ok(FilterSpec::Sos(read_sos(text).context("--sos")?)),
        _ => bail!(
            "give the filter as --b … --a …, --sos FILE|VALUES or --signature \"(a0, … : b1, …)\""
        ),
    }
}

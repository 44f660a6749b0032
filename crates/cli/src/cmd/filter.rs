//! `sigpu filter`: an IIR filter — SciPy's `(b, a)`, second-order sections or the PLR paper's
//! signature — over a signal file (.npy of any shape with `--axis`, raw, or WAV; `-` for
//! stdin/stdout), on the CPU or a GPU, with SciPy's zi / zf shapes and zero-phase
//! `--filtfilt`. The filtering, the method choice and the file formats are the library's
//! ([`sigpu_recurrence`]); this file checks the flags and prints.

use anyhow::{bail, Context, Result};
use clap::Args;
use sigpu_lab::recurrence::summary::FilterSummary;
use sigpu_recurrence::io::{encode_values, read_sos, read_values, Format, SignalFile};
use sigpu_recurrence::{
    check_finite, parse_values, plan, signal, with_dtype, DType, Element, FilterOptions,
    FilterSpec, Recurrence, Signature, Timing,
};
use sigpu_runtime::{Device, GpuTarget, Target};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

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

/// The flag that gave the filter, for errors.
fn flag(spec: &FilterSpec) -> &'static str {
    match spec {
        FilterSpec::Signature(_) => "--signature",
        FilterSpec::Ba { .. } => "--b/--a",
        FilterSpec::Sos(_) => "--sos",
    }
}

pub fn run(device: Option<Device>, json: bool, args: &FilterArgs) -> Result<ExitCode> {
    // Complex data or coefficients run in their own module; it hands back what it read.
    let read = match super::filter_complex::run_if_complex(device, json, args)? {
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
    let options = FilterOptions {
        optimize: !args.no_optimize,
        allow_unstable: args.allow_unstable,
        ..FilterOptions::default()
    };
    if args.emit_cuda {
        let dtype = dtype.unwrap_or(DType::F32);
        print!("{}", spec.cuda_source(dtype, options).context(flag(&spec))?);
        return Ok(ExitCode::SUCCESS);
    }
    // Before reading anything: --output and --zf must be two writable files, neither an input
    // ("-" is stdin / stdout, not a file).
    fn file(p: Option<&Path>) -> Option<&Path> {
        p.filter(|p| *p != Path::new("-"))
    }
    // Every input that is a file: --sos and --zi take values or a file.
    let zi_file = (args.zi.as_deref()).map(Path::new).filter(|p| p.exists());
    let sos_file = (args.sos.as_deref()).map(Path::new).filter(|p| p.is_file());
    if args.output.as_deref() == Some(Path::new("-")) && args.zf.as_deref() == Some(Path::new("-"))
    {
        bail!(
            "--output - and --zf - would both go to stdout, one array after the other, which \
             no reader can take apart: give --zf a file"
        );
    }
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
    let (shown, input) = read_input(args, dtype, read)?;
    let compute = (spec.dtype_for(input.dtype, input.natural_dtype(), dtype))
        .with_context(|| format!("{} with --input {shown}", flag(&spec)))?;
    let formats = formats(args)?;
    let target = match super::resolve(device, super::Need::Either, "filter")?.into_gpu() {
        Some(gpu) => Target::Gpu(GpuTarget::new(gpu)),
        None => Target::cpu(),
    };
    let run = Run {
        formats,
        spec: &spec,
        options,
        target: &target,
        input: &input,
        shown: &shown,
        args,
    };
    let summary = with_dtype!(compute, T => run.filter::<T>()?);
    print_summary(
        &summary,
        json,
        args.output.as_deref() == Some(Path::new("-")),
    )
}

/// The summary on stdout (on stderr when the output went to stdout): JSON or one line.
fn print_summary(s: &FilterSummary, json: bool, to_stdout: bool) -> Result<ExitCode> {
    let text = if json {
        serde_json::to_string_pretty(s)?
    } else {
        s.line()
    };
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

/// The formats --output and --zf are written in (the input's unless their names say
/// otherwise; see `Format::of_output`), refused before any work when they cannot be.
fn formats(args: &FilterArgs) -> Result<(Format, Format)> {
    let (Some(input), Some(output)) = (&args.input, &args.output) else {
        bail!("--input and --output are required");
    };
    let given = args.format.as_deref();
    let output = Format::of_output(output, given, Format::of(input, given))
        .map_err(|e| anyhow::anyhow!("--output: {e}"))?;
    let zf = (args.zf.as_deref())
        .map(|p| Format::of_state(p, output))
        .transpose()
        .map_err(|e| anyhow::anyhow!("--zf: {e}"))?;
    Ok((output, zf.unwrap_or(output)))
}

/// Reads --input (.npy, WAV or raw; `-` is stdin) with its shape (`read`: its bytes, when
/// they were read already).
fn read_input(
    args: &FilterArgs,
    dtype: Option<DType>,
    read: Option<Vec<u8>>,
) -> Result<(String, SignalFile)> {
    let (Some(input), Some(_)) = (&args.input, &args.output) else {
        bail!("--input and --output are required");
    };
    let shown = input.display().to_string();
    let bytes = if let Some(bytes) = read {
        bytes
    } else if input == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("--input -: reading stdin")?;
        bytes
    } else {
        std::fs::read(input).with_context(|| format!("--input {shown}: cannot read"))?
    };
    let format = Format::of(input, args.format.as_deref());
    let file = SignalFile::parse(bytes, format, dtype, args.channels)
        .with_context(|| format!("--input {shown}"))?;
    Ok((shown, file))
}

/// One `sigpu filter` call, parsed: what `filter` runs in the element type chosen.
struct Run<'a> {
    /// The formats of --output and --zf.
    formats: (Format, Format),
    spec: &'a FilterSpec,
    options: FilterOptions,
    target: &'a Target,
    input: &'a SignalFile,
    shown: &'a str,
    args: &'a FilterArgs,
}

/// A filtered signal: y, zf, where it ran, a note, and the filtering's times.
struct Filtered<T> {
    y: Vec<T>,
    zf: Vec<T>,
    device: String,
    note: Option<String>,
    timing: Timing,
}

impl Run<'_> {
    /// Plans the filter for the target, runs it over the input along the axis (or zero-phase)
    /// and writes the output (and zf).
    fn filter<T: Element>(&self) -> Result<FilterSummary> {
        let (args, shown) = (self.args, self.shown);
        let x: Vec<T> = self.input.values();
        check_finite(&x, shown).with_context(|| format!("--input {shown}"))?;
        let shape = &self.input.shape;
        let axis = args.axis.unwrap_or(self.input.default_axis());
        let nd = shape.len() as isize;
        if axis >= nd || axis < -nd {
            bail!("--axis {axis} is out of range for the {nd}-D input {shown} of shape {shape:?}");
        }
        let ax = axis.rem_euclid(nd) as usize;
        let start = Instant::now();
        // Zero-phase filtering runs on the CPU: plan it there, not a kernel it never launches.
        let cpu = Target::cpu();
        let target = if args.filtfilt { &cpu } else { self.target };
        let filter = plan::<T>(self.spec, self.options, target).context(flag(self.spec))?;
        let setup_seconds = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let (out, zf_shape) = self.compute(&*filter, &x, axis)?;
        let compute_seconds = match out.timing.transfer_seconds {
            Some(_) => out.timing.compute_seconds,
            None => start.elapsed().as_secs_f64(),
        };
        let output = args.output.as_deref().expect("checked in read_input");
        let (out_format, zf_format) = self.formats;
        let (bytes, clipped) = (self.input)
            .encode(out_format, shape, &out.y)
            .context("--output")?;
        put(output, &bytes, "--output")?;
        if let Some(path) = &args.zf {
            let raw = zf_format == Format::Raw;
            put(path, &encode_values(raw, &zf_shape, &out.zf), "--zf")?;
        }
        if let Some(c) = clipped.filter(|&c| c > 0) {
            // On stderr in every mode: with --json the count is in the summary as well.
            eprintln!(
                "warning: {c} of {} samples ({:.1}%) were clipped to the WAV sample range in {}; \
                 lower the filter's gain, or write .npy to keep the values",
                out.y.len(),
                100.0 * c as f64 / out.y.len().max(1) as f64,
                output.display()
            );
        }
        let report = filter.report();
        Ok(FilterSummary {
            filter: self.spec.to_string(),
            dtype: T::DTYPE,
            device: out.device,
            method: report.method.name().into(),
            error_bound: report.error_bound,
            reference_bound: report.reference_bound,
            shape: shape.clone(),
            axis: ax,
            channels: x.len() / shape[ax].max(1),
            samples_per_channel: shape[ax],
            filtfilt: args.filtfilt,
            setup_seconds,
            transfer_seconds: out.timing.transfer_seconds,
            compute_seconds,
            msamples_per_s: x.len() as f64 / compute_seconds.max(1e-12) / 1e6,
            output: output.display().to_string(),
            zf: args.zf.as_ref().map(|p| p.display().to_string()),
            clipped,
            note: out.note,
        })
    }

    /// The filtering: along the axis from --zi (or a zero state), or zero-phase on the CPU.
    /// Returns the result and zf's shape.
    fn compute<T: Element>(
        &self,
        filter: &dyn Recurrence<T>,
        x: &[T],
        axis: isize,
    ) -> Result<(Filtered<T>, Vec<usize>)> {
        let (args, shape, flag) = (self.args, &self.input.shape, flag(self.spec));
        let zf_shape = signal::zi_shape(shape, axis, filter.sections(), filter.state_len())?;
        if args.filtfilt {
            let out = signal::filtfilt_spec(self.spec, x, shape, axis, args.padlen, &self.options);
            let filtered = Filtered {
                y: out.context(flag)?.y,
                zf: Vec::new(),
                device: filter.device(),
                note: self.target.gpu().map(|_| "filtfilt runs on the CPU".into()),
                timing: Timing::default(),
            };
            return Ok((filtered, zf_shape));
        }
        let raw = self.input.format == Format::Raw;
        let zi = (args.zi.as_deref())
            .map(|text| read_values::<T>(text, raw, &zf_shape).context("--zi"))
            .transpose()?;
        let zi = zi.as_ref().map(|(z, s)| (z.as_slice(), s.as_slice()));
        let (out, timing) = signal::along_axis(filter, x, shape, axis, zi).context(flag)?;
        let filtered = Filtered {
            y: out.y,
            zf: out.zf.unwrap_or_default(),
            device: filter.device(),
            note: filter.note(),
            timing,
        };
        Ok((filtered, zf_shape))
    }
}

/// Writes `data` to `path` (atomically), or to stdout for `-`; errors name `flag`.
pub(super) fn put(path: &Path, data: &[u8], flag: &str) -> Result<()> {
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

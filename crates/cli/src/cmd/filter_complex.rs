//! `sigpu filter` on complex data: a complex64 / complex128 `.npy` input, interleaved int8 /
//! int16 I/Q (`--iq`), or complex coefficients (`--b/--a` or `--sos` values with `j`, or a
//! complex `.npy` of sections). The library plans and runs it
//! (`sigpu_recurrence::complex`): real coefficients filter the real and imaginary parts with
//! the real filter, complex ones run SciPy's serial loop in complex f64. This file reads the
//! flags, calls and writes; the output is complex (`.npy` complex64 / complex128, or raw
//! interleaved parts).

use super::filter::{put, FilterArgs};
use anyhow::{bail, Context, Result};
use sigpu_lab::recurrence::summary::FilterSummary;
use sigpu_recurrence::complex::{plan_complex, signal, ComplexSpec};
use sigpu_recurrence::io::complex::{
    encode_npy, encode_output, has_imaginary, is_complex_npy, parse_complex_list, parse_npy,
    read_complex_sos, read_complex_values, read_iq, ComplexArray, Iq,
};
use sigpu_recurrence::io::{Format, SignalFile};
use sigpu_recurrence::{to_le_bytes, with_dtype, DType, Element, FilterOptions};
use sigpu_runtime::{Device, GpuTarget, Target};
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// What the real path gets back when the call is not complex: the input's bytes when they
/// were read to look at them (stdin can be read once).
pub(super) type NotComplex = Option<Vec<u8>>;

/// Runs the call when it is complex; otherwise hands back what it read.
pub(super) fn run_if_complex(
    device: Option<Device>,
    json: bool,
    args: &FilterArgs,
) -> Result<std::result::Result<ExitCode, NotComplex>> {
    let coefs = [&args.b, &args.a, &args.sos]
        .iter()
        .any(|t| t.as_deref().is_some_and(has_imaginary))
        || args.sos.as_deref().is_some_and(|s| {
            Path::new(s).is_file() && std::fs::read(s).is_ok_and(|b| is_complex_npy(&b))
        });
    let mut bytes = None;
    let mut complex_input = false;
    if let (None, Some(input)) = (&args.iq, &args.input) {
        if Format::of(input, args.format.as_deref()) == Format::Npy && !args.emit_cuda {
            // A file that cannot be read is the real path's to report, in its order.
            if let Ok(b) = read_bytes(input) {
                complex_input = is_complex_npy(&b);
                bytes = Some(b);
            }
        }
    }
    if !(coefs || complex_input || args.iq.is_some()) {
        return Ok(Err(bytes));
    }
    if args.signature.is_some() || args.emit_cuda {
        bail!(
            "complex data or coefficients take --b/--a or --sos; --signature and --emit-cuda are \
             for real filters"
        );
    }
    let file = |p: Option<&Path>| p.filter(|p| *p != Path::new("-")).map(Path::to_path_buf);
    let (output, zf) = (file(args.output.as_deref()), file(args.zf.as_deref()));
    let zi_file = (args.zi.as_deref()).map(Path::new).filter(|p| p.is_file());
    let sos_file = (args.sos.as_deref()).map(Path::new).filter(|p| p.is_file());
    super::check(
        &[
            super::Output::File("--output", output.as_deref()),
            super::Output::File("--zf", zf.as_deref()),
        ],
        &[
            ("--input", file(args.input.as_deref()).as_deref()),
            ("--zi", zi_file),
            ("--sos", sos_file),
        ],
    )?;
    let spec = spec(args)?;
    let bytes = match bytes {
        Some(b) => b,
        None => read_bytes(args.input.as_deref().context("--input is required")?)?,
    };
    let input = read_input(args, bytes)?;
    let part = match args.dtype.as_deref() {
        None => input.part,
        Some(d) => {
            let d: DType = d.parse().map_err(|e| anyhow::anyhow!("--dtype: {e}"))?;
            if !d.is_float() {
                bail!("--dtype {d}: complex data runs in f32 (complex64) or f64 (complex128)");
            }
            d
        }
    };
    let options = FilterOptions {
        optimize: !args.no_optimize,
        allow_unstable: args.allow_unstable,
        ..FilterOptions::default()
    };
    let target = match super::resolve(device, super::Need::Either, "filter")?.into_gpu() {
        Some(gpu) if !args.filtfilt => Target::Gpu(GpuTarget::new(gpu)),
        _ => Target::cpu(),
    };
    let summary = with_dtype!(part, T => filter::<T>(args, &spec, options, &target, &input)?);
    let text = match json {
        true => serde_json::to_string_pretty(&summary)?,
        false => summary.line(),
    };
    match args.output.as_deref() == Some(Path::new("-")) {
        true => eprintln!("{text}"),
        false => println!("{text}"),
    }
    Ok(Ok(ExitCode::SUCCESS))
}

fn read_bytes(input: &Path) -> Result<Vec<u8>> {
    let shown = input.display();
    if input == Path::new("-") {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .context("--input -: reading stdin")?;
        return Ok(b);
    }
    std::fs::read(input).with_context(|| format!("--input {shown}: cannot read"))
}

/// The filter from --b/--a or --sos, complex values allowed.
fn spec(args: &FilterArgs) -> Result<ComplexSpec> {
    match (&args.b, &args.a, &args.sos) {
        (Some(b), Some(a), _) => Ok(ComplexSpec::Ba {
            b: parse_complex_list(b).context("--b")?,
            a: parse_complex_list(a).context("--a")?,
        }),
        (None, None, Some(s)) => Ok(ComplexSpec::Sos(read_complex_sos(s).context("--sos")?)),
        _ => bail!("give the filter as --b … --a … or --sos FILE|VALUES"),
    }
}

/// The input as a complex array: complex .npy, --iq raw pairs, or a real signal (any of the
/// real formats) with zero imaginary parts.
fn read_input(args: &FilterArgs, bytes: Vec<u8>) -> Result<ComplexArray> {
    let input = args.input.as_deref().context("--input is required")?;
    let shown = input.display().to_string();
    if let Some(iq) = &args.iq {
        let iq: Iq = iq
            .parse()
            .map_err(|e: String| anyhow::anyhow!("--iq: {e}"))?;
        return read_iq(&bytes, iq, args.channels)
            .map_err(|e| anyhow::anyhow!("--input {shown} (--iq): {e}"));
    }
    if is_complex_npy(&bytes) {
        return parse_npy(&bytes).map_err(|e| anyhow::anyhow!("--input {shown}: {e}"));
    }
    let format = Format::of(input, args.format.as_deref());
    let dtype = args
        .dtype
        .as_deref()
        .map(str::parse)
        .transpose()
        .ok()
        .flatten();
    let file = SignalFile::parse(bytes, format, dtype, args.channels)
        .with_context(|| format!("--input {shown}"))?;
    Ok(ComplexArray::from_real(&file))
}

fn filter<T: Element>(
    args: &FilterArgs,
    spec: &ComplexSpec,
    options: FilterOptions,
    target: &Target,
    input: &ComplexArray,
) -> Result<FilterSummary> {
    let output = args.output.as_deref().context("--output is required")?;
    let x: Vec<T> = input.values_as();
    if let Some(i) = x.iter().position(|v| !v.is_finite()) {
        bail!(
            "--input: complex sample {} has a non-finite {} part",
            i / 2,
            if i % 2 == 0 { "real" } else { "imaginary" }
        );
    }
    let shape = &input.shape;
    let axis = args.axis.unwrap_or(-1);
    let nd = shape.len() as isize;
    if axis >= nd || axis < -nd {
        bail!("--axis {axis} is out of range for the {nd}-D input of shape {shape:?}");
    }
    let ax = axis.rem_euclid(nd) as usize;
    let start = Instant::now();
    let filter = plan_complex::<T>(spec, options, target).context("--b/--a or --sos")?;
    let setup_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let (y, zf, zf_shape) = if args.filtfilt {
        let y =
            signal::filtfilt(spec, &x, shape, axis, args.padlen, &options).context("--filtfilt")?;
        (y, None, Vec::new())
    } else {
        let want =
            sigpu_recurrence::signal::zi_shape(shape, axis, filter.sections(), filter.state_len())?;
        let zi = (args.zi.as_deref())
            .map(|t| read_complex_values(t, &want).context("--zi"))
            .transpose()?
            .map(|(v, s)| {
                let flat: Vec<T> = v
                    .iter()
                    .flat_map(|c| [T::from_f64(c.re), T::from_f64(c.im)])
                    .collect();
                (flat, s)
            });
        let zi = zi.as_ref().map(|(v, s)| (v.as_slice(), s.as_slice()));
        let (out, _) =
            signal::along_axis(&filter, &x, shape, axis, zi).context("--b/--a or --sos")?;
        (out.y, Some(out.zf), out.zf_shape)
    };
    let compute_seconds = start.elapsed().as_secs_f64();
    let bytes = encode_output(output, args.format.as_deref(), shape, &y).context("--output")?;
    put(output, &bytes, "--output")?;
    if let (Some(path), Some(zf)) = (&args.zf, &zf) {
        let raw = path.extension().is_none_or(|e| e != "npy")
            && Format::of(output, args.format.as_deref()) == Format::Raw;
        let zbytes = if raw {
            to_le_bytes(zf)
        } else {
            encode_npy(&zf_shape, zf)
        };
        put(path, &zbytes, "--zf")?;
    }
    let report = filter.report();
    let kind = if T::DTYPE == DType::F32 {
        "complex64"
    } else {
        "complex128"
    };
    Ok(FilterSummary {
        filter: spec.to_string(),
        dtype: T::DTYPE,
        device: filter.device(),
        method: report.method.clone(),
        error_bound: report.error_bound,
        reference_bound: report.reference_bound,
        shape: shape.clone(),
        axis: ax,
        channels: x.len() / 2 / shape[ax].max(1),
        samples_per_channel: shape[ax],
        filtfilt: args.filtfilt,
        setup_seconds,
        transfer_seconds: None,
        compute_seconds,
        msamples_per_s: x.len() as f64 / 2.0 / compute_seconds.max(1e-12) / 1e6,
        output: output.display().to_string(),
        zf: args.zf.as_ref().map(|p| p.display().to_string()),
        clipped: None,
        note: Some(match filter.note() {
            Some(n) => format!("{kind}, {} coefficients; {n}", report.coefficients),
            None => format!("{kind}, {} coefficients", report.coefficients),
        }),
    })
}

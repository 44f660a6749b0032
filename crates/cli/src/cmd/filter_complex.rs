//! `sigpu filter` on complex data: a complex64 / complex128 `.npy` input, interleaved int8 /
//! int16 I/Q (`--iq`), or complex coefficients (`--b/--a` or `--sos` values with `j`, or a
//! complex `.npy` of sections). The library plans and runs it
//! (`sigpu_recurrence::complex`), the lab reads, filters and writes the files
//! (`sigpu_lab::recurrence::filter_run::complex`); this file reads the flags and prints.

use super::filter::{check_files, options, print_summary, FilterArgs};
use anyhow::{bail, Context, Result};
use sigpu_lab::recurrence::filter_run::complex::{complex_coefficients, part_dtype, ComplexRun};
use sigpu_lab::recurrence::filter_run::FilterFiles;
use sigpu_recurrence::complex::ComplexSpec;
use sigpu_recurrence::io::complex::{parse_complex_list, read_complex_sos};
use sigpu_recurrence::with_dtype;
use sigpu_runtime::{Device, GpuTarget, Target};
use std::path::Path;
use std::process::ExitCode;

/// What the real path gets back when the call is not complex: the input's bytes when they
/// were read to look at them (stdin can be read once).
pub(super) type NotComplex = Option<Vec<u8>>;

/// Runs the call when it is complex; otherwise hands back what it read.
pub(super) fn run_if_complex(
    device: Option<Device>,
    json: bool,
    args: &FilterArgs,
    files: Option<&FilterFiles>,
) -> Result<std::result::Result<ExitCode, NotComplex>> {
    let coefs = complex_coefficients(args.b.as_deref(), args.a.as_deref(), args.sos.as_deref());
    let (complex_input, bytes) = match files {
        Some(files) if args.iq.is_none() && !args.emit_cuda => files.peek_complex(),
        _ => (false, None),
    };
    if !(coefs || complex_input || args.iq.is_some()) {
        return Ok(Err(bytes));
    }
    if args.signature.is_some() || args.emit_cuda {
        bail!(
            "complex data or coefficients take --b/--a or --sos; --signature and --emit-cuda are \
             for real filters"
        );
    }
    check_files(
        args,
        (args.zi.as_deref()).map(Path::new).filter(|p| p.is_file()),
    )?;
    let spec = spec(args)?;
    let files = files.context("--input is required")?;
    let bytes = match bytes {
        Some(b) => b,
        None => files.read_bytes()?,
    };
    let input = files.read_complex(args.iq.as_deref(), args.dtype.as_deref(), bytes)?;
    let part = part_dtype(args.dtype.as_deref(), &input)?;
    let target = match super::resolve(device, super::Need::Either, "filter")?.into_gpu() {
        Some(gpu) if !args.filtfilt => Target::Gpu(GpuTarget::new(gpu)),
        _ => Target::cpu(),
    };
    let run = ComplexRun {
        files,
        spec: &spec,
        options: options(args),
        target: &target,
        input: &input,
    };
    let summary = with_dtype!(part, T => run.filter::<T>()?);
    print_summary(&summary, json, files.output_to_stdout()).map(Ok)
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

//! Complex data or coefficients: a complex64 / complex128 `.npy` input, interleaved int8 /
//! int16 I/Q, or a real signal read as complex, through a filter the library plans
//! (`sigpu_recurrence::complex`): real coefficients filter the real and imaginary parts with
//! the real filter, complex ones run SciPy's serial loop in complex f64. The output is complex
//! (`.npy` complex64 / complex128, or raw interleaved parts).

use super::{axis_index, put, FilterFiles, FilterSummary};
use anyhow::{bail, Context, Result};
use sigpu_recurrence::complex::{plan_complex, signal, ComplexSpec};
use sigpu_recurrence::io::complex::{
    encode_npy, encode_output, has_imaginary, is_complex_npy, parse_npy, read_complex_values,
    read_iq, ComplexArray, Iq,
};
use sigpu_recurrence::io::{Format, SignalFile};
use sigpu_recurrence::{to_le_bytes, DType, Element, FilterOptions};
use sigpu_runtime::Target;
use std::path::Path;
use std::time::Instant;

/// Whether the coefficients are complex: values written with `j` in `--b`, `--a` or `--sos`,
/// or `--sos` naming a complex `.npy` file.
pub fn complex_coefficients(b: Option<&str>, a: Option<&str>, sos: Option<&str>) -> bool {
    [b, a, sos].iter().any(|t| t.is_some_and(has_imaginary))
        || sos.is_some_and(|s| {
            Path::new(s).is_file() && std::fs::read(s).is_ok_and(|b| is_complex_npy(&b))
        })
}

impl FilterFiles {
    /// For an `.npy` input: whether it holds complex values, and its bytes (stdin can be read
    /// once). A file that cannot be read is the real path's to report, in its order: `None`.
    pub fn peek_complex(&self) -> (bool, Option<Vec<u8>>) {
        if self.input_format() != Format::Npy {
            return (false, None);
        }
        match self.read_bytes() {
            Ok(bytes) => (is_complex_npy(&bytes), Some(bytes)),
            Err(_) => (false, None),
        }
    }

    /// The input as a complex array: `iq` raw pairs (`i8` / `i16`), a complex .npy, or a
    /// real signal (any of the real formats, `dtype` as `--dtype` gives it) with zero
    /// imaginary parts.
    pub fn read_complex(
        &self,
        iq: Option<&str>,
        dtype: Option<&str>,
        bytes: Vec<u8>,
    ) -> Result<ComplexArray> {
        let shown = self.shown();
        if let Some(iq) = iq {
            let iq: Iq = iq
                .parse()
                .map_err(|e: String| anyhow::anyhow!("--iq: {e}"))?;
            return read_iq(&bytes, iq, self.channels)
                .map_err(|e| anyhow::anyhow!("--input {shown} (--iq): {e}"));
        }
        if is_complex_npy(&bytes) {
            return parse_npy(&bytes).map_err(|e| anyhow::anyhow!("--input {shown}: {e}"));
        }
        let dtype = dtype.map(str::parse).transpose().ok().flatten();
        let file = SignalFile::parse(bytes, self.input_format(), dtype, self.channels)
            .with_context(|| format!("--input {shown}"))?;
        Ok(ComplexArray::from_real(&file))
    }
}

/// The part type complex data runs in: `--dtype` when given (f32: complex64, f64:
/// complex128), else the input's.
pub fn part_dtype(dtype: Option<&str>, input: &ComplexArray) -> Result<DType> {
    let Some(d) = dtype else {
        return Ok(input.part);
    };
    let d: DType = d.parse().map_err(|e| anyhow::anyhow!("--dtype: {e}"))?;
    if !d.is_float() {
        bail!("--dtype {d}: complex data runs in f32 (complex64) or f64 (complex128)");
    }
    Ok(d)
}

/// One complex run: the filter, its options, where it runs and the input read.
pub struct ComplexRun<'a> {
    /// The files and the along-axis options.
    pub files: &'a FilterFiles,
    /// The filter, real or complex coefficients.
    pub spec: &'a ComplexSpec,
    /// The planner's options.
    pub options: FilterOptions,
    /// Where it runs.
    pub target: &'a Target,
    /// The input.
    pub input: &'a ComplexArray,
}

impl ComplexRun<'_> {
    /// Plans and runs the filter in parts of type `T` along the axis (from zi) or zero-phase,
    /// writes the output (and zf) and reports.
    pub fn filter<T: Element>(&self) -> Result<FilterSummary> {
        let (files, spec, options) = (self.files, self.spec, self.options);
        let output = files.output.as_path();
        let x: Vec<T> = self.input.values_as();
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            bail!(
                "--input: complex sample {} has a non-finite {} part",
                i / 2,
                if i % 2 == 0 { "real" } else { "imaginary" }
            );
        }
        let shape = &self.input.shape;
        let axis = files.axis.unwrap_or(-1);
        let ax = axis_index(axis, shape, "")?;
        let start = Instant::now();
        let filter = plan_complex::<T>(spec, options, self.target).context("--b/--a or --sos")?;
        let setup_seconds = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let (y, zf, zf_shape) = if files.filtfilt {
            let y = signal::filtfilt(spec, &x, shape, axis, files.padlen, &options)
                .context("--filtfilt")?;
            (y, None, Vec::new())
        } else {
            let want = sigpu_recurrence::signal::zi_shape(
                shape,
                axis,
                filter.sections(),
                filter.state_len(),
            )?;
            let zi = (files.zi.as_deref())
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
        let format = files.format.as_deref();
        let bytes = encode_output(output, format, shape, &y).context("--output")?;
        put(output, &bytes, "--output")?;
        if let (Some(path), Some(zf)) = (&files.zf, &zf) {
            let raw = path.extension().is_none_or(|e| e != "npy")
                && Format::of(output, format) == Format::Raw;
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
            filtfilt: files.filtfilt,
            setup_seconds,
            transfer_seconds: None,
            compute_seconds,
            msamples_per_s: x.len() as f64 / 2.0 / compute_seconds.max(1e-12) / 1e6,
            output: output.display().to_string(),
            zf: files.zf.as_ref().map(|p| p.display().to_string()),
            clipped: None,
            note: Some(match filter.note() {
                Some(n) => format!("{kind}, {} coefficients; {n}", report.coefficients),
                None => format!("{kind}, {} coefficients", report.coefficients),
            }),
        })
    }
}

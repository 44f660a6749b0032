//! Real data through a real filter: `.npy` of any shape, WAV or raw, in the input's format
//! out (see `Format::of_output`), on the CPU or a GPU, zero-phase on the CPU.

use super::{axis_index, put, FilterFiles, FilterSummary};
use anyhow::{Context, Result};
use sigpu_recurrence::io::{encode_values, read_values, Format, SignalFile};
use sigpu_recurrence::{
    check_finite, plan, signal, DType, Element, FilterOptions, FilterSpec, Recurrence, Timing,
};
use sigpu_runtime::Target;
use std::time::Instant;

/// The flag that gave the filter, for errors.
pub fn flag(spec: &FilterSpec) -> &'static str {
    match spec {
        FilterSpec::Signature(_) => "--signature",
        FilterSpec::Ba { .. } => "--b/--a",
        FilterSpec::Sos(_) => "--sos",
    }
}

impl FilterFiles {
    /// The formats the output and zf are written in (the input's unless their names say
    /// otherwise; see `Format::of_output`), refused before any work when they cannot be.
    pub fn formats(&self) -> Result<(Format, Format)> {
        let output = Format::of_output(&self.output, self.format.as_deref(), self.input_format())
            .map_err(|e| anyhow::anyhow!("--output: {e}"))?;
        let zf = (self.zf.as_deref())
            .map(|p| Format::of_state(p, output))
            .transpose()
            .map_err(|e| anyhow::anyhow!("--zf: {e}"))?;
        Ok((output, zf.unwrap_or(output)))
    }

    /// The input (.npy, WAV or raw) parsed with its shape, in `dtype` when given; `read`:
    /// its bytes, when they were read already (stdin can be read once).
    pub fn read_real(&self, dtype: Option<DType>, read: Option<Vec<u8>>) -> Result<SignalFile> {
        let bytes = match read {
            Some(bytes) => bytes,
            None => self.read_bytes()?,
        };
        SignalFile::parse(bytes, self.input_format(), dtype, self.channels)
            .with_context(|| format!("--input {}", self.shown()))
    }
}

/// One real run: the filter, its options, where it runs, the input parsed, and the formats
/// of the output and zf ([`FilterFiles::formats`]).
pub struct RealRun<'a> {
    /// The files and the along-axis options.
    pub files: &'a FilterFiles,
    /// The filter.
    pub spec: &'a FilterSpec,
    /// The planner's options.
    pub options: FilterOptions,
    /// Where it runs (zero-phase filtering runs on the CPU whatever this is).
    pub target: &'a Target,
    /// The input, parsed.
    pub input: &'a SignalFile,
    /// The formats of the output and zf.
    pub formats: (Format, Format),
}

/// A filtered signal: y, zf, where it ran, a note, and the filtering's times.
struct Filtered<T> {
    y: Vec<T>,
    zf: Vec<T>,
    device: String,
    note: Option<String>,
    timing: Timing,
}

impl RealRun<'_> {
    /// Plans the filter for the target, runs it over the input along the axis (or
    /// zero-phase) in `T`, writes the output (and zf) and reports.
    pub fn filter<T: Element>(&self) -> Result<FilterSummary> {
        let (files, shown) = (self.files, self.files.shown());
        let x: Vec<T> = self.input.values();
        check_finite(&x, &shown).with_context(|| format!("--input {shown}"))?;
        let shape = &self.input.shape;
        let axis = files.axis.unwrap_or(self.input.default_axis());
        let ax = axis_index(axis, shape, &format!(" {shown}"))?;
        let start = Instant::now();
        // Zero-phase filtering runs on the CPU: plan it there, not a kernel it never launches.
        let cpu = Target::cpu();
        let target = if files.filtfilt { &cpu } else { self.target };
        let filter = plan::<T>(self.spec, self.options, target).context(flag(self.spec))?;
        let setup_seconds = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let (out, zf_shape) = self.compute(&*filter, &x, axis)?;
        let compute_seconds = match out.timing.transfer_seconds {
            Some(_) => out.timing.compute_seconds,
            None => start.elapsed().as_secs_f64(),
        };
        let (out_format, zf_format) = self.formats;
        let (bytes, clipped) = (self.input)
            .encode(out_format, shape, &out.y)
            .context("--output")?;
        put(&files.output, &bytes, "--output")?;
        if let Some(path) = &files.zf {
            let raw = zf_format == Format::Raw;
            put(path, &encode_values(raw, &zf_shape, &out.zf), "--zf")?;
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
            filtfilt: files.filtfilt,
            setup_seconds,
            transfer_seconds: out.timing.transfer_seconds,
            compute_seconds,
            msamples_per_s: x.len() as f64 / compute_seconds.max(1e-12) / 1e6,
            output: files.output.display().to_string(),
            zf: files.zf.as_ref().map(|p| p.display().to_string()),
            clipped,
            note: out.note,
        })
    }

    /// The filtering: along the axis from zi (or a zero state), or zero-phase on the CPU.
    /// Returns the result and zf's shape.
    fn compute<T: Element>(
        &self,
        filter: &dyn Recurrence<T>,
        x: &[T],
        axis: isize,
    ) -> Result<(Filtered<T>, Vec<usize>)> {
        let (files, shape, flag) = (self.files, &self.input.shape, flag(self.spec));
        let zf_shape = signal::zi_shape(shape, axis, filter.sections(), filter.state_len())?;
        if files.filtfilt {
            let out = signal::filtfilt_spec(self.spec, x, shape, axis, files.padlen, &self.options);
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
        let zi = (files.zi.as_deref())
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

/// The element type a real run computes in: `spec`'s rule over the input's type and
/// `--dtype`, errors naming the filter's flag and the input.
pub fn compute_dtype(
    spec: &FilterSpec,
    input: &SignalFile,
    shown: &str,
    dtype: Option<DType>,
) -> Result<DType> {
    (spec.dtype_for(input.dtype, input.natural_dtype(), dtype))
        .with_context(|| format!("{} with --input {shown}", flag(spec)))
}

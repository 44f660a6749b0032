//! `sigpu filter`: a linear recurrence / IIR filter over a signal file, on the CPU or a GPU.

use crate::cli::FilterArgs;
use crate::npy;
use anyhow::{bail, Context, Result};
use serde::Serialize;
use sigpu_recurrence::gpu::{generate, GpuConfig, GpuFilter};
use sigpu_recurrence::{
    check_finite, with_dtype, Coef, DType, Element, Filter, FilterOptions, Signature,
};
use sigpu_runtime::Device;
use std::path::Path;
use std::process::ExitCode;

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

pub fn run(device: Option<Device>, json: bool, args: &FilterArgs) -> Result<ExitCode> {
    let signature = signature(args)?;
    let dtype_arg = args
        .dtype
        .as_deref()
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
        let dtype = dtype_arg.unwrap_or(DType::F32);
        let source = with_dtype!(dtype, T => {
            let filter = Filter::<T>::new(&signature, options).context("--signature")?;
            generate(&filter, GpuConfig::default()).map_err(anyhow::Error::msg)?.source
        });
        print!("{source}");
        return Ok(ExitCode::SUCCESS);
    }
    let (Some(input), Some(output)) = (&args.input, &args.output) else {
        bail!("--input and --output are required");
    };
    let raw = match args.format.as_deref() {
        Some(f) => f == "raw",
        None => input.extension().is_none_or(|e| e != "npy"),
    };
    let raw_dtype = if raw {
        Some(dtype_arg.with_context(|| {
            format!(
                "--input {} is read as raw little-endian values: --dtype must say their type",
                input.display()
            )
        })?)
    } else {
        None
    };
    let array =
        npy::read(input, raw_dtype).with_context(|| format!("--input {}", input.display()))?;
    if let Some(d) = dtype_arg {
        if d != array.dtype {
            bail!(
                "--input {} holds {} values but --dtype says {d}",
                input.display(),
                array.dtype
            );
        }
    }
    let (channels, n) = match (raw, array.shape.as_slice()) {
        (true, [len]) => {
            if args.channels == 0 || len % args.channels != 0 {
                bail!(
                    "--input {}: {len} values do not split into --channels {} channels",
                    input.display(),
                    args.channels
                );
            }
            (args.channels, len / args.channels)
        }
        (false, [len]) => (1, *len),
        (false, [c, len]) => (*c, *len),
        (_, shape) => bail!(
            "--input {}: shape {shape:?}; expected 1-D (one channel) or 2-D (channels × samples)",
            input.display()
        ),
    };
    let gpu = super::resolve(device, super::Need::Either, "filter")?.into_gpu();
    let io = Io {
        input,
        output,
        raw,
        shape: &array.shape,
        zf_path: args.zf.as_deref(),
    };
    let summary = with_dtype!(array.dtype, T => {
        filter_typed::<T>(&signature, options, &array.bytes, channels, n, args.zi.as_deref(), gpu.as_ref(), &io)?
    });
    if json {
        super::print_json(&summary)?;
    } else {
        println!(
            "{} {} on {}: {} channel(s) × {} samples; setup {:.3} s{}, filtering {:.6} s \
             ({:.1} M samples/s) → {}{}",
            summary.signature,
            summary.dtype,
            summary.device,
            summary.channels,
            summary.samples_per_channel,
            summary.setup_seconds,
            summary
                .transfer_seconds
                .map(|t| format!(", transfers {t:.3} s"))
                .unwrap_or_default(),
            summary.compute_seconds,
            summary.msamples_per_s,
            summary.output,
            summary
                .zf
                .as_deref()
                .map(|z| format!(", zf → {z}"))
                .unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The filter from --signature or --b/--a, with errors naming the flag.
fn signature(args: &FilterArgs) -> Result<Signature> {
    match (&args.signature, &args.b, &args.a) {
        (Some(s), _, _) => Signature::parse(s).context("--signature"),
        (None, Some(b), Some(a)) => {
            let b = float_list(b).context("--b")?;
            let a = float_list(a).context("--a")?;
            Signature::from_lfilter(&b, &a).map_err(|e| anyhow::anyhow!("--b/--a: {e}"))
        }
        _ => bail!("give the filter as --signature \"(a0, … : b1, …)\" or as --b … --a …"),
    }
}

fn float_list(text: &str) -> Result<Vec<f64>> {
    text.split(',')
        .map(|t| {
            let t = t.trim();
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .with_context(|| format!("{t:?} is not a finite number"))
        })
        .collect()
}

struct Io<'a> {
    input: &'a Path,
    output: &'a Path,
    raw: bool,
    shape: &'a [usize],
    zf_path: Option<&'a Path>,
}

#[allow(clippy::too_many_arguments)]
fn filter_typed<T: Element>(
    signature: &Signature,
    options: FilterOptions,
    bytes: &[u8],
    channels: usize,
    n: usize,
    zi: Option<&str>,
    gpu: Option<&sigpu_runtime::cuda::Gpu>,
    io: &Io<'_>,
) -> Result<Summary> {
    let start = std::time::Instant::now();
    let filter = Filter::<T>::new(signature, options).context("--signature")?;
    let mut setup_seconds = start.elapsed().as_secs_f64();
    let x: Vec<T> = from_le(bytes);
    check_finite(&x, &io.input.display().to_string())
        .with_context(|| format!("--input {}", io.input.display()))?;
    let zi = zi.map(|z| read_zi::<T>(z, io.raw)).transpose()?;
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
    let (y, zf, device, compute_seconds, transfer_seconds) = match gpu {
        Some(gpu) => {
            let start = std::time::Instant::now();
            let g = GpuFilter::new(gpu, &filter, GpuConfig::default())?;
            setup_seconds += start.elapsed().as_secs_f64();
            let start = std::time::Instant::now();
            let dx = gpu.upload(&x)?;
            let mut dy = gpu.alloc_poisoned::<T>(x.len())?;
            let dzi = zi.as_deref().map(|z| gpu.upload(z)).transpose()?;
            let s = channels * filter.state_len();
            let mut dzf = gpu.alloc_poisoned::<T>(s.max(1))?;
            gpu.stream().synchronize()?;
            let upload = start.elapsed().as_secs_f64();
            // One run between CUDA events: the kernel (and the small final-state kernel).
            let timing = sigpu_runtime::cuda::time_gpu(gpu, 0, 1, || {
                let zf = (s > 0).then_some(&mut dzf);
                g.run(gpu, &dx, &mut dy, channels, dzi.as_ref(), zf)
                    .map_err(|e| sigpu_runtime::cuda::Error::Invalid(e.to_string()))
            })?;
            let start = std::time::Instant::now();
            let y = gpu.download(&dy)?;
            let zf = if s > 0 {
                gpu.download(&dzf)?
            } else {
                Vec::new()
            };
            let transfers = upload + start.elapsed().as_secs_f64();
            let device = format!("{} ({})", gpu.info().name, gpu.arch());
            (y, zf, device, timing.median_ms * 1e-3, Some(transfers))
        }
        None => {
            let mut y = vec![T::ZERO; x.len()];
            let mut zf = vec![T::ZERO; channels * filter.state_len()];
            let start = std::time::Instant::now();
            filter.apply_batch(&x, channels, &mut y, zi.as_deref(), Some(&mut zf))?;
            let seconds = start.elapsed().as_secs_f64();
            let device = format!(
                "cpu ({} threads, {})",
                sigpu_runtime::host::threads(),
                filter.simd().name()
            );
            (y, zf, device, seconds, None)
        }
    };
    write(io.output, io.raw, T::DTYPE, io.shape, &to_le(&y))?;
    if let Some(path) = io.zf_path {
        let shape = if channels > 1 && io.shape.len() == 2 {
            vec![channels, filter.state_len()]
        } else {
            vec![zf.len()]
        };
        write(path, io.raw, T::DTYPE, &shape, &to_le(&zf)).context("--zf")?;
    }
    Ok(Summary {
        signature: signature.to_string(),
        dtype: T::DTYPE,
        device,
        channels,
        samples_per_channel: n,
        setup_seconds,
        transfer_seconds,
        compute_seconds,
        msamples_per_s: (channels * n) as f64 / compute_seconds.max(1e-12) / 1e6,
        output: io.output.display().to_string(),
        zf: io.zf_path.map(|p| p.display().to_string()),
    })
}

/// --zi as a comma-separated list, or a file when it does not read as one.
fn read_zi<T: Element>(text: &str, raw: bool) -> Result<Vec<T>> {
    let looks_like_list = text
        .chars()
        .all(|c| c.is_ascii_digit() || " ,.-+eE".contains(c));
    if looks_like_list {
        return text
            .split(',')
            .map(|t| {
                let t = t.trim();
                let value: f64 = t
                    .parse()
                    .ok()
                    .filter(|v: &f64| v.is_finite())
                    .with_context(|| format!("--zi: {t:?} is not a finite number"))?;
                let coef = Coef {
                    text: t.to_owned(),
                    value,
                    int: t.parse().ok(),
                };
                T::from_coef(&coef).map_err(|e| anyhow::anyhow!("--zi: {e}"))
            })
            .collect();
    }
    let path = Path::new(text);
    let array = npy::read(path, raw.then_some(T::DTYPE)).with_context(|| format!("--zi {text}"))?;
    if array.dtype != T::DTYPE {
        bail!(
            "--zi {text} holds {} values but the signal is {}",
            array.dtype,
            T::DTYPE
        );
    }
    let zi: Vec<T> = from_le(&array.bytes);
    check_finite(&zi, text).context("--zi")?;
    Ok(zi)
}

fn write(path: &Path, raw: bool, dtype: DType, shape: &[usize], bytes: &[u8]) -> Result<()> {
    let data = if raw {
        bytes.to_vec()
    } else {
        npy::encode(dtype, shape, bytes)
    };
    sigpu_runtime::fs::write_atomic(path, &data)
        .with_context(|| format!("cannot write {}", path.display()))
}

fn from_le<T: Element>(bytes: &[u8]) -> Vec<T> {
    let size = T::DTYPE.size();
    bytes
        .chunks_exact(size)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(c);
            T::from_bits64(u64::from_le_bytes(b))
        })
        .collect()
}

fn to_le<T: Element>(values: &[T]) -> Vec<u8> {
    let size = T::DTYPE.size();
    values
        .iter()
        .flat_map(|v| v.to_bits64().to_le_bytes().into_iter().take(size))
        .collect()
}

//! `sigpu bench filter`: recurrence / IIR filter throughput against the copy ceiling, over
//! one length or the seed's sweep, with peers merged in and plots (see `bench_filter_plot`).

use super::bench_filter_plot;
use crate::cli::BenchFilterArgs;
use crate::table;
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use serde_json::Value;
use sigpu_recurrence::bench::{bench_cpu, bench_gpu, bench_input, BenchRow, GpuBench};
use sigpu_recurrence::{with_dtype, DType, Filter, FilterOptions, GpuConfig};
use sigpu_runtime::cuda::{copy_bandwidth, Gpu};
use sigpu_runtime::Device;
use std::process::ExitCode;

/// The seed's signatures (slides 9, 21–27) with the element types its plots use.
const GPU_SUITE: [(&str, DType); 8] = [
    ("(1 : 1)", DType::I32),
    ("(1 : 1)", DType::F32),
    ("(1 : 0, 1)", DType::I32),
    ("(1 : 2, -1)", DType::I32),
    ("(0.2 : 0.8)", DType::F32),
    ("(0.04 : 1.6, -0.64)", DType::F32),
    ("(0.9, -0.9 : 0.8)", DType::F32),
    ("(0.81, -1.62, 0.81 : 1.6, -0.64)", DType::F32),
];

/// Orders 1–4 in f64: what the CPU target compares with scipy.signal.lfilter.
const CPU_SUITE: [(&str, DType); 4] = [
    ("(0.2 : 0.8)", DType::F64),
    ("(0.04 : 1.6, -0.64)", DType::F64),
    ("(0.1 : 0.9, 0.05, -0.1)", DType::F64),
    ("(0.1 : 0.5, 0.2, 0.1, -0.05)", DType::F64),
];

#[derive(Serialize)]
struct Report {
    device: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    copy_gb_per_s: Option<f64>,
    /// Device-to-device copy at each benchmarked length: the seed's "memcpy" line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    copy_sweep: Vec<CopyPoint>,
    rows: Vec<BenchRow>,
}

#[derive(Serialize)]
struct CopyPoint {
    n: usize,
    elem_bytes: usize,
    median_ms: f64,
    gelem_per_s: f64,
}

pub fn run(device: Option<Device>, json: bool, args: &BenchFilterArgs) -> Result<ExitCode> {
    let mut report = match &args.from {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--from {}: cannot read", path.display()))?;
            serde_json::from_str::<Value>(&text)
                .with_context(|| format!("--from {}: not a bench report", path.display()))?
        }
        None => serde_json::to_value(measure(device, args)?)?,
    };
    if report.get("rows").and_then(Value::as_array).is_none() {
        bail!("the report has no \"rows\" list");
    }
    if let Some(path) = &args.peers {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("--peers {}: cannot read", path.display()))?;
        let peers: Value = serde_json::from_str(&text)
            .with_context(|| format!("--peers {}: not JSON", path.display()))?;
        let Some(list) = peers.get("peers").filter(|p| p.is_array()) else {
            bail!("--peers {}: no \"peers\" list", path.display());
        };
        report["peers"] = list.clone();
    }
    if let Some(path) = &args.out {
        let text = serde_json::to_string_pretty(&report)?;
        sigpu_runtime::fs::write_atomic(path, text.as_bytes())
            .with_context(|| format!("--out {}: cannot write", path.display()))?;
    }
    if let Some(dir) = &args.plot {
        let written = bench_filter_plot::write_charts(&report, dir)
            .with_context(|| format!("--plot {}", dir.display()))?;
        eprintln!("wrote {written} charts (SVG + PNG) into {}", dir.display());
    }
    if json {
        super::print_json(&report)?;
    } else {
        print!("{}", render(&report));
    }
    Ok(ExitCode::SUCCESS)
}

/// `A-B` or single exponents, comma-separated, as lengths.
fn parse_sizes(spec: &str) -> Result<Vec<usize>> {
    let exponent = |t: &str| match t.trim().parse::<u32>() {
        Ok(l) if (1..=31).contains(&l) => Ok(l),
        _ => bail!("--log2-n: {t:?} is not a length exponent from 1 to 31"),
    };
    let mut sizes = Vec::new();
    for part in spec.split(',') {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (exponent(a)?, exponent(b)?),
            None => (exponent(part)?, exponent(part)?),
        };
        if lo > hi {
            bail!("--log2-n: {part:?} runs backwards");
        }
        sizes.extend((lo..=hi).map(|l| 1usize << l));
    }
    Ok(sizes)
}

/// `default` or `THREADSxVPT[d][/B]`.
fn parse_shape(t: &str) -> Result<GpuConfig> {
    let t = t.trim();
    if t == "default" {
        return Ok(GpuConfig::default());
    }
    let (t, min_blocks) = match t.split_once('/') {
        Some((shape, b)) => (
            shape,
            b.parse().with_context(|| format!("--shapes: {b:?}"))?,
        ),
        None => (t, 0),
    };
    let (direct, t) = match t.strip_suffix('d') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (a, b) = t
        .split_once('x')
        .context("--shapes: expected THREADSxVPT[d][/B]")?;
    Ok(GpuConfig {
        threads: a.parse().with_context(|| format!("--shapes: {a:?}"))?,
        vpt: b.parse().with_context(|| format!("--shapes: {b:?}"))?,
        transpose: !direct,
        min_blocks,
    })
}

fn measure(device: Option<Device>, args: &BenchFilterArgs) -> Result<Report> {
    let gpu = super::resolve(device, super::Need::Either, "bench filter")?.into_gpu();
    let cases: Vec<(String, DType)> = if args.signature.is_empty() {
        let suite: &[(&str, DType)] = if gpu.is_some() {
            &GPU_SUITE
        } else {
            &CPU_SUITE
        };
        suite.iter().map(|(s, d)| (s.to_string(), *d)).collect()
    } else {
        let dtype: DType = args
            .dtype
            .parse()
            .map_err(|e| anyhow::anyhow!("--dtype: {e}"))?;
        args.signature.iter().map(|s| (s.clone(), dtype)).collect()
    };
    let sizes = parse_sizes(&args.log2_n)?;
    let shapes: Vec<GpuConfig> = args
        .shapes
        .split(',')
        .map(parse_shape)
        .collect::<Result<_>>()?;
    let copy = match &gpu {
        Some(g) => Some(copy_bandwidth(g, 1 << 30, 3, 20)?.best_gb_per_s),
        None => None,
    };
    let copy_sweep = match &gpu {
        Some(g) if sizes.len() > 1 => copy_sweep(g, &sizes, &cases, args)?,
        _ => Vec::new(),
    };
    let optimize_modes: &[bool] = if args.compare_optimize {
        &[true, false]
    } else {
        &[true]
    };
    let total = cases.len() * sizes.len() * optimize_modes.len();
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let check_limit = args.check_up_to.map_or(usize::MAX, |l| 1usize << l.min(62));
    let mut rows = Vec::new();
    for (sig, dtype) in &cases {
        for &n in &sizes {
            let check = !args.no_check && n <= check_limit;
            with_dtype!(*dtype, T => {
                let x = bench_input::<T>(n, 1);
                for &optimize in optimize_modes {
                    bar.set_message(format!("{sig} {dtype} 2^{}", n.trailing_zeros()));
                    let options = FilterOptions {
                        optimize,
                        ..FilterOptions::default()
                    };
                    let filter = Filter::<T>::parse(sig, options)
                        .with_context(|| format!("--signature {sig}"))?;
                    match &gpu {
                        Some(g) => {
                            for (i, &config) in shapes.iter().enumerate() {
                                let how = GpuBench {
                                    config,
                                    warmup: args.warmup,
                                    runs: args.runs,
                                    copy_gb_per_s: copy,
                                    // The reference is a serial pass: check the first shape.
                                    check: check && i == 0,
                                };
                                rows.push(bench_gpu(g, &filter, &x, how)?);
                            }
                        }
                        None => rows.push(bench_cpu(&filter, &x, args.runs, check)?),
                    }
                    bar.inc(1);
                }
            });
        }
    }
    bar.finish_and_clear();
    Ok(Report {
        device: rows.first().map(|r| r.device.clone()).unwrap_or_default(),
        copy_gb_per_s: copy,
        copy_sweep,
        rows,
    })
}

/// Device-to-device copies of n elements for each length and element size benchmarked.
fn copy_sweep(
    gpu: &Gpu,
    sizes: &[usize],
    cases: &[(String, DType)],
    args: &BenchFilterArgs,
) -> Result<Vec<CopyPoint>> {
    let mut widths: Vec<usize> = cases.iter().map(|(_, d)| d.size()).collect();
    widths.sort_unstable();
    widths.dedup();
    let mut points = Vec::new();
    for &elem_bytes in &widths {
        for &n in sizes {
            let bench = copy_bandwidth(gpu, n * elem_bytes, args.warmup, args.runs)?;
            // Moves 2 × n × elem_bytes; the best method's rate in elements per second.
            let gelem_per_s = bench.best_gb_per_s / (2.0 * elem_bytes as f64);
            points.push(CopyPoint {
                n,
                elem_bytes,
                median_ms: 2.0 * (n * elem_bytes) as f64 / (bench.best_gb_per_s * 1e6),
                gelem_per_s,
            });
        }
    }
    Ok(points)
}

fn render(report: &Value) -> String {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
    let rows: Vec<Vec<String>> = report["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let pct = num(r, "percent_of_copy");
            vec![
                text(r, "signature"),
                text(r, "dtype"),
                if r["optimize"].as_bool() == Some(false) {
                    "off"
                } else {
                    "on"
                }
                .into(),
                format!("2^{}", (num(r, "n") as u64).trailing_zeros()),
                text(r, "shape"),
                format!("{:.4}", num(r, "median_ms")),
                format!("{:.1}", num(r, "gelem_per_s")),
                format!("{:.1}", num(r, "gb_per_s")),
                if pct.is_nan() {
                    "-".into()
                } else {
                    format!("{pct:.1}%")
                },
                format!("{:.2e}", num(r, "error")),
            ]
        })
        .collect();
    let mut out = text(report, "device");
    if let Some(c) = report.get("copy_gb_per_s").and_then(Value::as_f64) {
        out += &format!(", copy {c:.1} GB/s");
    }
    out += "\n";
    out += &table::render(
        &[
            "signature",
            "dtype",
            "opt",
            "n",
            "shape",
            "median ms",
            "G elem/s",
            "GB/s",
            "of copy",
            "error",
        ],
        &rows,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_lists_and_ranges() {
        assert_eq!(parse_sizes("10").unwrap(), [1024]);
        assert_eq!(parse_sizes("3-5,8").unwrap(), [8, 16, 32, 256]);
        assert!(parse_sizes("5-3").is_err());
        assert!(parse_sizes("0").is_err());
        assert!(parse_sizes("32").is_err());
    }

    #[test]
    fn shapes_take_their_suffixes() {
        let c = parse_shape("256x32d/4").unwrap();
        assert_eq!((c.threads, c.vpt, c.min_blocks), (256, 32, 4));
        assert!(!c.transpose);
        assert!(parse_shape("128x16").unwrap().transpose);
        assert_eq!(parse_shape("default").unwrap(), GpuConfig::default());
        assert!(parse_shape("256").is_err());
    }
}

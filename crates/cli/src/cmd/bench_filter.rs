//! `sigpu bench filter`: recurrence / IIR filter throughput against the copy ceiling.

use crate::cli::BenchFilterArgs;
use crate::table;
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use sigpu_recurrence::bench::{bench_cpu, bench_gpu, bench_input, BenchRow, GpuBench};
use sigpu_recurrence::{with_dtype, DType, Filter, FilterOptions, GpuConfig};
use sigpu_runtime::cuda::copy_bandwidth;
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
    rows: Vec<BenchRow>,
}

pub fn run(device: Option<Device>, json: bool, args: &BenchFilterArgs) -> Result<ExitCode> {
    let gpu = super::cpu_or_gpu(device)?;
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
    let sizes: Vec<usize> = args
        .log2_n
        .split(',')
        .map(|t| match t.trim().parse::<u32>() {
            Ok(l) if (1..=31).contains(&l) => Ok(1usize << l),
            _ => bail!("--log2-n: {t:?} is not a length exponent from 1 to 31"),
        })
        .collect::<Result<_>>()?;
    let shapes: Vec<GpuConfig> = args
        .shapes
        .split(',')
        .map(|t| {
            if t.trim() == "default" {
                return Ok(GpuConfig::default());
            }
            let (t, min_blocks) = match t.trim().split_once('/') {
                Some((shape, b)) => (
                    shape,
                    b.parse().with_context(|| format!("--shapes: {b:?}"))?,
                ),
                None => (t.trim(), 0),
            };
            let (direct, t) = match t.strip_suffix('d') {
                Some(rest) => (true, rest),
                None => (false, t),
            };
            let (a, b) = t
                .split_once('x')
                .context("--shapes: expected THREADSxVPT[d]")?;
            Ok(GpuConfig {
                threads: a.parse().with_context(|| format!("--shapes: {a:?}"))?,
                vpt: b.parse().with_context(|| format!("--shapes: {b:?}"))?,
                transpose: !direct,
                min_blocks,
            })
        })
        .collect::<Result<_>>()?;
    let copy = match &gpu {
        Some(g) => Some(copy_bandwidth(g, 1 << 30, 3, 20)?.best_gb_per_s),
        None => None,
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
    let mut rows = Vec::new();
    for (sig, dtype) in &cases {
        for &n in &sizes {
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
                                    check: !args.no_check && i == 0,
                                };
                                rows.push(bench_gpu(g, &filter, &x, how)?);
                            }
                        }
                        None => rows.push(bench_cpu(&filter, &x, args.runs, !args.no_check)?),
                    }
                    bar.inc(1);
                }
            });
        }
    }
    bar.finish_and_clear();
    let report = Report {
        device: rows.first().map(|r| r.device.clone()).unwrap_or_default(),
        copy_gb_per_s: copy,
        rows,
    };
    if let Some(path) = &args.out {
        let text = serde_json::to_string_pretty(&report)?;
        sigpu_runtime::fs::write_atomic(path, text.as_bytes())
            .with_context(|| format!("--out {}: cannot write", path.display()))?;
    }
    if json {
        super::print_json(&report)?;
    } else {
        print!("{}", render(&report));
    }
    Ok(ExitCode::SUCCESS)
}

fn render(report: &Report) -> String {
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|r| {
            vec![
                r.signature.clone(),
                r.dtype.clone(),
                if r.optimize { "on" } else { "off" }.into(),
                format!("2^{}", r.n.trailing_zeros()),
                r.shape.clone(),
                format!("{:.4}", r.median_ms),
                format!("{:.1}", r.gelem_per_s),
                format!("{:.1}", r.gb_per_s),
                if r.percent_of_copy.is_nan() {
                    "-".into()
                } else {
                    format!("{:.1}%", r.percent_of_copy)
                },
                format!("{:.2e}", r.error),
            ]
        })
        .collect();
    let mut out = report.device.clone();
    if let Some(c) = report.copy_gb_per_s {
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

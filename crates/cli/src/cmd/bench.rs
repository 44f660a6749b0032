//! `sigpu bench ...`: measurements whose figures go to BENCHMARKS.md.

use crate::cli::{BenchLnsArgs, CopyArgs};
use crate::table;
use anyhow::{Context, Result};
use serde::Serialize;
use sigpu_runtime::cuda::{copy_bandwidth, CopyBench};
use sigpu_runtime::host::{self, HostCopyBench};
use sigpu_runtime::Device;
use std::process::ExitCode;

#[derive(Serialize)]
#[serde(tag = "device_kind", rename_all = "snake_case")]
enum CopyResult {
    Cuda(CopyBench),
    Cpu(HostCopyBench),
}

pub fn copy(device: Option<Device>, json: bool, args: &CopyArgs) -> Result<ExitCode> {
    let target = super::resolve(device, super::Need::Either, "bench copy")?;
    let gpu = target.gpu();
    let mib = args
        .size_mib
        .unwrap_or(if gpu.is_some() { 1024 } else { 256 });
    let bytes = usize::try_from(mib << 20).context("--size-mib does not fit in memory")?;
    let (runs, warmup) = (args.runs as usize, args.warmup as usize);
    let result = match gpu {
        Some(gpu) => CopyResult::Cuda(copy_bandwidth(gpu, bytes, warmup, runs)?),
        None => CopyResult::Cpu(host::copy_bandwidth(bytes, host::threads(), runs)?),
    };
    if let Some(path) = &args.out {
        let text = serde_json::to_string_pretty(&result)?;
        sigpu_runtime::fs::write_atomic(path, text.as_bytes())
            .with_context(|| format!("--out {}: cannot write", path.display()))?;
    }
    if json {
        super::print_json(&result)?;
    } else {
        print!("{}", render(&result));
    }
    Ok(ExitCode::SUCCESS)
}

fn render(result: &CopyResult) -> String {
    match result {
        CopyResult::Cuda(b) => {
            let rows: Vec<Vec<String>> = b
                .methods
                .iter()
                .map(|m| {
                    vec![
                        m.method.clone(),
                        format!("{:.1}", m.gb_per_s),
                        format!("{:.4}", m.timing.median_ms),
                        format!("{:.4}..{:.4}", m.timing.min_ms, m.timing.max_ms),
                    ]
                })
                .collect();
            format!(
                "{}: copy of {} MiB, read + write counted, median of {} runs\n{}best: {:.1} GB/s\n",
                b.device,
                b.bytes >> 20,
                b.methods.first().map_or(0, |m| m.timing.samples_ms.len()),
                table::render(&["method", "GB/s", "median ms", "min..max ms"], &rows),
                b.best_gb_per_s
            )
        }
        CopyResult::Cpu(b) => format!(
            "CPU copy of {} MiB with {} threads, read + write counted, median of {} runs: {:.1} GB/s ({:.4} s)\n",
            b.bytes >> 20,
            b.threads,
            b.runs,
            b.gb_per_s,
            b.median_s
        ),
    }
}

pub fn lns(device: Option<Device>, json: bool, args: &BenchLnsArgs) -> Result<ExitCode> {
    let n = match device {
        Some(Device::Cuda(n)) => n,
        None => 0,
        Some(Device::Cpu) => return lns_cpu(json, args),
    };
    if !args.method.is_empty() {
        anyhow::bail!(
            "--method selects CPU methods (with --device cpu); the GPU run measures every method"
        );
    }
    let gpu = super::open_gpu(n)?;
    let bar = indicatif::ProgressBar::new_spinner();
    let report =
        sigpu_lns::bench::throughput(&gpu, args.format, &|m| bar.set_message(m.to_owned()))?;
    bar.finish_and_clear();
    if let Some(path) = &args.out {
        let text = serde_json::to_string_pretty(&report)?;
        sigpu_runtime::fs::write_atomic(path, text.as_bytes())
            .with_context(|| format!("--out {}: cannot write", path.display()))?;
    }
    if let Some(base) = &args.plot {
        blend_chart(&report)
            .write(base)
            .with_context(|| format!("--plot {}", base.display()))?;
    }
    if json {
        return super::print_json(&report).map(|_| ExitCode::SUCCESS);
    }
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|r| {
            vec![
                r.method.clone(),
                r.lambda.map_or("-".into(), |l| format!("{l}/8")),
                if r.both { "s_b + d_b" } else { "s_b" }.into(),
                format!("{:.1}", r.g_evals_per_s),
                format!("{:.2}", r.cycles_per_warp),
            ]
        })
        .collect();
    println!(
        "{} {}: {} SMs at a measured {:.0} MHz, {} evaluations per launch",
        report.device, report.format, report.sms, report.sm_clock_mhz, report.evals_per_launch
    );
    print!(
        "{}",
        table::render(
            &["method", "lambda", "evaluates", "G evals/s", "cycles/warp"],
            &rows
        )
    );
    let stream: Vec<Vec<String>> = report
        .streaming
        .iter()
        .map(|r| {
            vec![
                r.method.clone(),
                format!("{:.1}", r.g_adds_per_s),
                format!("{:.0}", r.gb_per_s),
                format!("{:.1}%", 100.0 * r.fraction_of_copy),
            ]
        })
        .collect();
    let n = report.streaming.first().map_or(0, |r| r.elements);
    println!("streaming add of {n} words (12 bytes per add):");
    print!(
        "{}",
        table::render(&["method", "G adds/s", "GB/s", "of copy"], &stream)
    );
    let reductions: Vec<Vec<String>> = report
        .reductions
        .iter()
        .map(|r| {
            vec![
                r.op.to_string(),
                format!("{:.1}", r.g_elems_per_s),
                format!("{:.0}", r.gb_per_s),
                format!("{:.1}%", 100.0 * r.fraction_of_copy),
            ]
        })
        .collect();
    println!("fused reductions over the same words (4 bytes read per word):");
    print!(
        "{}",
        table::render(&["op", "G elements/s", "GB/s", "of copy"], &reductions)
    );
    Ok(ExitCode::SUCCESS)
}

/// s_b throughput of each blend A+B against λ (warps of every 8 on A): λ = 0 is B alone and
/// λ = 8 is A alone, from the single-method rows of the same run.
fn blend_chart(report: &sigpu_lns::bench::Report) -> sigpu_plot::LineChart {
    let single = |m: &str| {
        report
            .rows
            .iter()
            .find(|r| r.method == m && r.lambda.is_none() && !r.both)
            .map(|r| r.g_evals_per_s)
    };
    let mut names: Vec<&str> = report
        .rows
        .iter()
        .filter(|r| r.lambda.is_some())
        .map(|r| r.method.as_str())
        .collect();
    names.dedup();
    let series = names
        .into_iter()
        .map(|name| {
            let (a, b) = name.split_once('+').unwrap_or((name, name));
            let mut points: Vec<(f64, f64)> = single(b).map(|g| (0.0, g)).into_iter().collect();
            points.extend(
                report
                    .rows
                    .iter()
                    .filter(|r| r.method == name && !r.both)
                    .filter_map(|r| r.lambda.map(|l| (l as f64, r.g_evals_per_s))),
            );
            points.extend(single(a).map(|g| (8.0, g)));
            sigpu_plot::Series {
                name: name.to_string(),
                points,
            }
        })
        .collect();
    sigpu_plot::LineChart {
        title: format!(
            "{} s_b blends on {}: throughput vs warp split",
            report.format, report.device
        ),
        x_label: "lambda: warps of every 8 on the first method".into(),
        y_label: "G s_b evaluations / s".into(),
        log_x: false,
        log_y: false,
        series,
    }
}

/// `bench lns --device cpu`: element-wise add throughput of every CPU method.
fn lns_cpu(json: bool, args: &BenchLnsArgs) -> Result<ExitCode> {
    let methods: Vec<sigpu_lns::Method> = if args.method.is_empty() {
        sigpu_lns::Method::ALL
            .into_iter()
            .filter(|m| m.runs_on_cpu() && m.reader().is_none())
            .collect()
    } else {
        args.method.clone()
    };
    if let Some(m) = methods.iter().find(|m| !m.runs_on_cpu()) {
        anyhow::bail!("--method {m}: runs on the GPU only (its GPU figures: --device cuda)");
    }
    let rows = methods
        .into_iter()
        .map(|m| sigpu_lns::bench::cpu_add_throughput(args.format, m, 1 << 22, 5))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(path) = &args.out {
        sigpu_runtime::fs::write_atomic(path, serde_json::to_string_pretty(&rows)?.as_bytes())
            .with_context(|| format!("--out {}: cannot write", path.display()))?;
    }
    if json {
        return super::print_json(&rows).map(|_| ExitCode::SUCCESS);
    }
    let table_rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.method.clone(),
                r.threads.to_string(),
                format!("{:.3}", r.g_adds_per_s),
            ]
        })
        .collect();
    println!(
        "{} add/sub on the CPU, {} elements (log2|x| in [-8, 8], random signs):",
        args.format, rows[0].elements
    );
    print!(
        "{}",
        table::render(&["method", "threads", "G adds/s"], &table_rows)
    );
    Ok(ExitCode::SUCCESS)
}

//! `sigpu approx ...`: the SFU function catalog, its microbenchmark (the seed's Tables 4–5),
//! the λ transformation of a user's kernel and the QoS-driven λ search over the app suite.

use super::{spinner, write_json_out as write_json};
use crate::table;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use serde::Serialize;
use sigpu_approx::apps::{self, APPS};
use sigpu_approx::catalog::CATALOG;
use sigpu_approx::search::{check_ratio, Method};
use sigpu_approx::tune::{geomean, heu_vs_omg, tune, AppReport, HeuVsOmg, Partition};
use sigpu_approx::{figures, microbench, transform};
use sigpu_runtime::Device;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum ApproxCommand {
    /// The function catalog (accurate and SFU forms) and the application suite.
    List,
    /// Latency, throughput, error, registers and SASS mix of every catalog function, both
    /// versions (the seed's Tables 4 and 5).
    Bench(BenchArgs),
    /// Search λ for an app (or all) under a QoS ratio; T(λ)/E(λ) curves and speedups.
    Tune(TuneArgs),
    /// Write the λ-partitioned version of a kernel in a CUDA file (the seed's Algorithm 1).
    Transform(TransformArgs),
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Random inputs per function and input range (documented domain, wide range).
    #[arg(long, default_value_t = 1 << 20, value_parser = clap::value_parser!(u64).range(1000..=1 << 26))]
    pub samples: u64,
    /// Also write the JSON result to this file (atomically).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// An app of the suite (`sigpu approx list`), its abbreviation, or `all`.
    #[arg(long)]
    pub app: String,
    /// Error bound as a fraction of the all-SFU kernel's error, in (0, 1].
    #[arg(long, default_value_t = 0.8)]
    pub qos_ratio: f64,
    /// smp, heu or omg (`--app all` runs all three on one measured curve).
    #[arg(long, default_value = "heu")]
    pub search: Method,
    /// slot (hardware %warpid, the seed's choice) or block (warp index within the block,
    /// reproducible).
    #[arg(long, default_value = "slot")]
    pub warp_index: Partition,
    /// Measure every λ (the seed's Fig. 4) instead of only the points the search asks for.
    #[arg(long)]
    pub curve: bool,
    /// Write figures (Fig. 4 per app; with `all`, Fig. 8–11) as SVG + PNG into this folder.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    /// Also write the JSON result to this file (atomically).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct TransformArgs {
    /// CUDA source with the kernel, written with the standard functions.
    pub input: PathBuf,
    /// The `extern "C" __global__` kernel to transform.
    #[arg(long)]
    pub kernel: String,
    /// Where to write the generated source (default: stdout).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(device: Option<Device>, json: bool, command: &ApproxCommand) -> Result<ExitCode> {
    match command {
        ApproxCommand::List => list(json),
        ApproxCommand::Bench(args) => bench(device, json, args),
        ApproxCommand::Tune(args) => tune_cmd(device, json, args),
        ApproxCommand::Transform(args) => transform_cmd(json, args),
    }
}

fn gpu_for(device: Option<Device>, what: &str) -> Result<sigpu_runtime::cuda::Gpu> {
    match device {
        Some(Device::Cpu) => bail!("{what} measures GPU kernels: use --device cuda[:N]"),
        Some(Device::Cuda(n)) => super::open_gpu(n),
        None => super::open_gpu(0),
    }
}

fn list(json: bool) -> Result<ExitCode> {
    if json {
        #[derive(Serialize)]
        struct Listing {
            functions: &'static [sigpu_approx::catalog::Function],
            apps: &'static [apps::App],
        }
        super::print_json(&Listing {
            functions: CATALOG,
            apps: APPS,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<Vec<String>> = CATALOG
        .iter()
        .map(|f| {
            vec![
                f.key.into(),
                f.math.into(),
                f.accurate_cuda.into(),
                f.approx_ptx.into(),
                format!("sm_{}", f.min_sm),
                f.documented_error.into(),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(
            &[
                "function",
                "math",
                "accurate (CUDA)",
                "SFU (PTX)",
                "needs",
                "documented SFU error"
            ],
            &rows
        )
    );
    println!();
    let rows: Vec<Vec<String>> = APPS
        .iter()
        .map(|a| {
            vec![
                a.name.into(),
                a.abbr.into(),
                format!("{:?}", a.precision).to_lowercase(),
                a.functions.into(),
                format!("{:?}", a.metric),
                a.about.into(),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(
            &["app", "abbr", "type", "functions", "QoS metric", "workload"],
            &rows
        )
    );
    Ok(ExitCode::SUCCESS)
}

fn bench(device: Option<Device>, json: bool, args: &BenchArgs) -> Result<ExitCode> {
    if device == Some(Device::Cpu) {
        return bench_cpu(json, args);
    }
    let gpu = gpu_for(device, "approx bench")?;
    let bar = spinner();
    let report = microbench::run(&gpu, args.samples as usize, &|k| {
        bar.set_message(k.to_owned())
    })?;
    bar.finish_and_clear();
    write_json(&args.out, &report)?;
    if json {
        return super::print_json(&report).map(|_| ExitCode::SUCCESS);
    }
    println!(
        "{}: {} SMs at a measured {:.0} MHz; errors over {} random inputs per range vs f64",
        report.device, report.sms, report.sm_clock_mhz, report.error_samples
    );
    if let Some(note) = &report.sass_note {
        println!("SASS mix not available: {note}");
    }
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|r| {
            let mix = r
                .sass
                .as_ref()
                .map_or("-".into(), |m| format!("{}/{}/{}", m.sfu, m.fp32, m.fp64));
            vec![
                r.function.into(),
                format!("{:?}", r.version).to_lowercase(),
                format!("{:.1}", r.latency_cycles),
                format!("{:.2}", r.gops_per_sm),
                format!("{:.0}", r.gops_total),
                format!("{:.2e}", r.error_domain.mean_rel),
                format!("{:.2e}", r.error_domain.max_rel),
                format!("{:.1}", r.error_domain.max_ulp),
                format!("{:.2e}", r.error_wide.mean_rel),
                format!("{:.2e}", r.error_wide.max_rel),
                r.error_wide.class_mismatches.to_string(),
                r.registers.to_string(),
                mix,
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(
            &[
                "function",
                "version",
                "lat cyc",
                "Gop/s/SM",
                "Gop/s",
                "mean rel",
                "max rel",
                "max ulp",
                "wide mean",
                "wide max",
                "wide class",
                "regs",
                "SFU/FP32/FP64",
            ],
            &rows
        )
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct CpuBench {
    cpu: String,
    rows: Vec<sigpu_approx::cpu::CpuRow>,
}

/// The CPU fast versions: error against f64, throughput on all threads, and the chunk split.
fn bench_cpu(json: bool, args: &BenchArgs) -> Result<ExitCode> {
    let bar = spinner();
    bar.set_message("CPU fast exp / log / sin / cos");
    let report = CpuBench {
        cpu: sigpu_runtime::host::HostInfo::detect().cpu_model,
        rows: sigpu_approx::cpu::bench(args.samples as usize, 1 << 24, 7),
    };
    bar.finish_and_clear();
    write_json(&args.out, &report)?;
    if json {
        return super::print_json(&report).map(|_| ExitCode::SUCCESS);
    }
    println!(
        "{}: fast path vs Rust's f32 methods, 2^24 elements, all threads",
        report.cpu
    );
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|r| {
            vec![
                format!("{:?}", r.function).to_lowercase(),
                format!("{:?}", r.path).to_lowercase(),
                format!("{:.2}", r.fast_gelem_per_s),
                format!("{:.2}", r.accurate_gelem_per_s),
                format!("{:.2e}", r.fast_domain.mean_rel),
                format!("{:.2e}", r.fast_domain.max_rel),
                format!("{:.1}", r.fast_domain.max_ulp),
                format!("{:.1}", r.accurate_domain.max_ulp),
                format!("{:.2e}", r.fast_wide.max_rel),
                r.split
                    .iter()
                    .map(|(s, t, _)| format!("{s}:{:.1}ms", t * 1e3))
                    .collect::<Vec<_>>()
                    .join(" "),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(
            &[
                "function",
                "path",
                "fast G/s",
                "std G/s",
                "mean rel",
                "max rel",
                "max ulp",
                "std ulp",
                "wide max rel",
                "time by fast share",
            ],
            &rows
        )
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct TuneSummary {
    device: String,
    qos_ratio: f64,
    partition: Partition,
    apps: Vec<AppReport>,
    /// Geometric-mean speedup over the apps, per search (and for the all-SFU kernel).
    geomean_speedup: Vec<(String, f64)>,
    heu_vs_omg: Vec<HeuVsOmg>,
    /// Apps where HEU is within one λ of OMG with ≤ 25% of its runs.
    heu_target_met: usize,
    /// The same against the largest λ meeting the bound.
    heu_target_met_vs_largest_feasible: usize,
}

fn tune_cmd(device: Option<Device>, json: bool, args: &TuneArgs) -> Result<ExitCode> {
    check_ratio(args.qos_ratio).map_err(|e| anyhow::anyhow!("--qos-ratio: {e}"))?;
    let list: Vec<&'static apps::App> = if args.app == "all" {
        APPS.iter().collect()
    } else {
        vec![apps::find(&args.app).map_err(|e| anyhow::anyhow!("--app: {e}"))?]
    };
    let all = list.len() > 1;
    let methods: Vec<Method> = if all {
        Method::ALL.to_vec()
    } else {
        vec![args.search]
    };
    let gpu = gpu_for(device, "approx tune")?;
    let bar = spinner();
    let mut reports = Vec::new();
    for app in list {
        let r = tune(
            &gpu,
            app,
            args.qos_ratio,
            &methods,
            args.warp_index,
            all || args.curve,
            &|m| bar.set_message(m.to_owned()),
        )?;
        reports.push(r);
    }
    bar.finish_and_clear();
    let device_name = format!("{} ({})", gpu.info().name, gpu.arch());
    let mut geo = vec![(
        "sfu".to_string(),
        geomean(reports.iter().map(|r| r.sfu_speedup)),
    )];
    for m in &methods {
        geo.push((
            m.to_string(),
            geomean(reports.iter().filter_map(|r| {
                r.searches
                    .iter()
                    .find(|o| o.method == *m)
                    .map(|o| o.speedup)
            })),
        ));
    }
    let cmp: Vec<HeuVsOmg> = reports.iter().filter_map(heu_vs_omg).collect();
    let summary = TuneSummary {
        device: device_name.clone(),
        qos_ratio: args.qos_ratio,
        partition: args.warp_index,
        heu_target_met: cmp.iter().filter(|c| c.meets_target).count(),
        heu_target_met_vs_largest_feasible: cmp
            .iter()
            .filter(|c| c.meets_target_vs_largest_feasible)
            .count(),
        apps: reports,
        geomean_speedup: geo,
        heu_vs_omg: cmp,
    };
    if let Some(dir) = &args.plot {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--plot {}: cannot create the folder", dir.display()))?;
        for r in summary.apps.iter().filter(|r| r.curve.len() > 2) {
            figures::fig4(r)
                .write(&dir.join(format!("fig4_{}", r.app)))
                .with_context(|| format!("writing Fig. 4 for {}", r.app))?;
        }
        if all {
            let svg = figures::fig8_svg(&summary.apps, args.qos_ratio, &device_name);
            let png = sigpu_plot::svg_to_png(&svg)?;
            for (ext, bytes) in [("svg", svg.as_bytes()), ("png", png.as_slice())] {
                let path = dir.join(format!("fig8_speedup.{ext}"));
                sigpu_runtime::fs::write_atomic(&path, bytes)
                    .with_context(|| format!("writing {}", path.display()))?;
            }
        }
    }
    write_json(&args.out, &summary)?;
    if json {
        return super::print_json(&summary).map(|_| ExitCode::SUCCESS);
    }
    println!(
        "{device_name}: QoS ratio {} ({:?} warp index); speedup = T(λ=0)/T(λ), error = app metric vs accurate",
        args.qos_ratio, args.warp_index
    );
    let mut rows = Vec::new();
    for r in &summary.apps {
        for o in &r.searches {
            rows.push(vec![
                r.abbr.into(),
                o.method.to_string(),
                format!("{}/{}", o.lambda, r.max_lambda),
                format!("{:.3}", o.speedup),
                format!("{:.2e}", o.error),
                format!("{:.2e}", o.bound),
                o.runs.to_string(),
                format!("{:.3}", r.sfu_speedup),
                format!("{:.2e}", r.sfu_error),
                format!("{:.3}", r.original_ms),
            ]);
        }
    }
    print!(
        "{}",
        table::render(
            &[
                "app",
                "search",
                "λ/max",
                "speedup",
                "error",
                "bound",
                "runs",
                "SFU speedup",
                "SFU error",
                "orig ms",
            ],
            &rows
        )
    );
    for (m, g) in &summary.geomean_speedup {
        println!("geometric-mean speedup {m}: {g:.3}");
    }
    if all {
        println!(
            "HEU within one λ of OMG using ≤ 25% of its runs: {} of {} apps \
             ({} of {} against the largest λ meeting the bound)",
            summary.heu_target_met,
            summary.heu_vs_omg.len(),
            summary.heu_target_met_vs_largest_feasible,
            summary.heu_vs_omg.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn transform_cmd(json: bool, args: &TransformArgs) -> Result<ExitCode> {
    let code = std::fs::read_to_string(&args.input)
        .with_context(|| format!("reading {}", args.input.display()))?;
    let t = transform::transform(&code, &args.kernel)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.input.display()))?;
    match &args.output {
        Some(path) => sigpu_runtime::fs::write_atomic(path, t.source.as_bytes())
            .with_context(|| format!("--output {}: cannot write", path.display()))?,
        None if !json => print!("{}", t.source),
        None => {}
    }
    if json {
        super::print_json(&t)?;
    } else if args.output.is_some() {
        eprintln!(
            "wrote {}, {}, {} and {}; rewrites: {:?}",
            t.kernel, t.sfu_kernel, t.lambda_kernel, t.block_kernel, t.rewrites
        );
    }
    Ok(ExitCode::SUCCESS)
}

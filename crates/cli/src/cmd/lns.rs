//! `sigpu lns ...`: certificates and the calculator.

use crate::cli::{CalcArgs, CertifyArgs, Fig3Args, HmmArgs};
use crate::table;
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use sigpu_lns::gpu::GpuMethod;
use sigpu_lns::{certify as certify_cpu, Accurate, Certificate, Format, Method, Which};
use sigpu_runtime::Device;
use std::io::BufRead;
use std::process::ExitCode;

pub fn certify(device: Option<Device>, json: bool, args: &CertifyArgs) -> Result<ExitCode> {
    let methods: Vec<Method> = if args.method == "all" {
        Method::ALL.to_vec()
    } else {
        vec![args.method.parse().context("--method")?]
    };
    let funcs: Vec<Which> = match args.func.as_str() {
        "sb" => vec![Which::Sb],
        "db" => vec![Which::Db],
        _ => vec![Which::Sb, Which::Db],
    };
    let format = args.format;
    let gpu = match device.unwrap_or(Device::Cpu) {
        Device::Cpu => None,
        Device::Cuda(n) => Some(super::open_gpu(n)?),
    };
    let runnable: Vec<Method> = methods
        .iter()
        .copied()
        .filter(|m| {
            if gpu.is_some() {
                m.runs_on_gpu()
            } else {
                m.runs_on_cpu()
            }
        })
        .collect();
    if runnable.is_empty() {
        let only = if gpu.is_some() {
            "the CPU only (use --device cpu)"
        } else {
            "the GPU only (use --device cuda)"
        };
        bail!("--method {}: runs on {only}", args.method);
    }
    let total: u64 = runnable.len() as u64
        * funcs
            .iter()
            .map(|f| f.inputs(format).count() as u64)
            .sum::<u64>();
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{spinner} [{bar:30}] {percent}% {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut certs: Vec<Certificate> = Vec::new();
    for m in &runnable {
        bar.set_message(format!("{m} tables"));
        match &gpu {
            Some(gpu) => {
                let on_gpu = GpuMethod::new(gpu, *m, format)
                    .with_context(|| format!("preparing {m} for {format} on the GPU"))?;
                for &func in &funcs {
                    bar.set_message(format!("{m} {func:?}"));
                    certs.push(on_gpu.certify(gpu, func, &|n| bar.inc(n))?);
                }
            }
            None => {
                let eval = m
                    .cpu(format)
                    .with_context(|| format!("building {m} tables for {format}"))?
                    .context("CPU evaluator")?;
                for &func in &funcs {
                    bar.set_message(format!("{m} {func:?}"));
                    certs.push(certify_cpu(&eval, func, &m.to_string(), &|n| bar.inc(n)));
                }
            }
        }
    }
    bar.finish_and_clear();
    if json {
        super::print_json(&certs)?;
    } else {
        let rows: Vec<Vec<String>> = certs
            .iter()
            .map(|c| {
                vec![
                    c.method.clone(),
                    format!("{:?}", c.func).to_lowercase(),
                    c.inputs.to_string(),
                    format!("{:.4}", c.max_error_ulps),
                    if c.faithful { "yes" } else { "NO" }.into(),
                    format!("{:.4}%", 100.0 * c.share_correctly_rounded),
                    c.worst_input.to_string(),
                ]
            })
            .collect();
        let on = certs.first().map_or("cpu", |c| c.device.as_str());
        println!(
            "{format} on {on}, every input (errors in ulps of 2^-{}):",
            format.frac_bits
        );
        print!(
            "{}",
            table::render(
                &[
                    "method",
                    "func",
                    "inputs",
                    "max err",
                    "faithful",
                    "correctly rounded",
                    "worst z (code)"
                ],
                &rows
            )
        );
        let skipped: Vec<String> = methods
            .iter()
            .filter(|m| !runnable.contains(m))
            .map(|m| m.to_string())
            .collect();
        if !skipped.is_empty() {
            println!(
                "GPU-only methods not certified here: {}",
                skipped.join(", ")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One calculator line: `a op b`.
fn calc_line(format: Format, line: &str) -> Result<u32, String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let [a, op, b] = tokens[..] else {
        return Err(format!("expected `a op b`, got {:?}", line.trim()));
    };
    let num = |t: &str| -> Result<u32, String> {
        t.parse::<f64>()
            .map(|x| format.from_f64(x))
            .map_err(|_| format!("{t:?} is not a number"))
    };
    let (a, b) = (num(a)?, num(b)?);
    let m = Accurate(format);
    Ok(match op {
        "+" => format.add(&m, a, b),
        "-" => format.sub(&m, a, b),
        "*" => format.mul(a, b),
        "/" => format.div(a, b),
        other => return Err(format!("unknown operator {other:?}: use + - * /")),
    })
}

#[derive(serde::Serialize)]
struct CalcResult {
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    word: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

pub fn calc(json: bool, args: &CalcArgs) -> Result<ExitCode> {
    let format = args.format;
    let digits = (format.word_bits() as usize).div_ceil(4);
    let mut failed = false;
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading stdin")?;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let result = match calc_line(format, &line) {
            Ok(w) => CalcResult {
                line: i + 1,
                value: Some(format.to_f64(w)),
                word: Some(format!("0x{w:0digits$x}")),
                error: None,
            },
            Err(e) => {
                failed = true;
                CalcResult {
                    line: i + 1,
                    value: None,
                    word: None,
                    error: Some(e),
                }
            }
        };
        match (json, &result.error) {
            (true, _) => println!("{}", serde_json::to_string(&result)?),
            (false, None) => println!(
                "{}  {}",
                result.value.unwrap_or(f64::NAN),
                result.word.as_deref().unwrap_or("")
            ),
            (false, Some(e)) => eprintln!("line {}: {e}", result.line),
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

#[derive(serde::Serialize)]
struct HmmReport {
    format: String,
    device: String,
    states: u64,
    steps: u64,
    batch: u64,
    /// One forward over the batch (GPU: median of timed runs by CUDA events).
    seconds: f64,
    /// Transition terms (states² × steps × batch) per second.
    g_cells_per_s: f64,
    /// Sequences checked against the f64 log-space forward.
    verified: usize,
    /// max over the verified sequences of |ll_lns − ll_f64| / |ll_f64|.
    max_relative_error: f64,
    log_likelihoods: Vec<f64>,
}

pub fn hmm(device: Option<Device>, json: bool, args: &HmmArgs) -> Result<ExitCode> {
    use sigpu_lns::hmm::gpu::{emission_words, GpuHmm};
    use sigpu_lns::hmm::{random_emissions, HmmModel};
    let (s, t, b) = (
        args.states as usize,
        args.steps as usize,
        args.batch as usize,
    );
    // Each argument is bounded, their product is not: emissions are held as f64 (and as
    // words on a GPU), so refuse what cannot be allocated instead of aborting on it.
    const MAX_EMISSIONS: u64 = 1 << 30;
    let cells = args.states * args.steps * args.batch;
    if cells > MAX_EMISSIONS {
        bail!(
            "--states {s} × --steps {t} × --batch {b} = {cells} emission probabilities: at most \
             2^30 ({} GiB as f64)",
            (MAX_EMISSIONS * 8) >> 30
        );
    }
    let model = HmmModel::random(s, args.seed);
    let emit = random_emissions(b, t, s, args.seed.wrapping_add(1));
    let gpu = super::resolve(device, super::Need::Either, "lns hmm")?.into_gpu();
    let (got, seconds, device_name) = match &gpu {
        None => {
            let start = std::time::Instant::now();
            let got = model.forward_lns_batch(args.format, &emit, b)?;
            (got, start.elapsed().as_secs_f64(), "cpu".to_string())
        }
        Some(gpu) => {
            let hmm = GpuHmm::new(gpu, &model, args.format)?;
            let words = gpu.upload(&emission_words(args.format, &emit))?;
            let mut ll = gpu.alloc_poisoned::<f64>(b)?;
            let timing = sigpu_runtime::cuda::time_gpu(gpu, 1, args.runs as usize, || {
                hmm.forward(gpu, &words, b, &mut ll)
            })?;
            let name = gpu.info().name.clone();
            (gpu.download(&ll)?, timing.median_ms / 1e3, name)
        }
    };
    let verified = b.min(args.verify as usize);
    let mut worst = 0.0f64;
    for (seq, &ll) in emit.chunks(t * s).zip(&got).take(verified) {
        let want = model.forward_f64(seq)?;
        worst = worst.max(if ll == want {
            0.0
        } else {
            ((ll - want) / want).abs()
        });
    }
    let report = HmmReport {
        format: args.format.to_string(),
        device: device_name,
        states: args.states,
        steps: args.steps,
        batch: args.batch,
        seconds,
        g_cells_per_s: (s * s * t * b) as f64 / seconds / 1e9,
        verified,
        max_relative_error: worst,
        log_likelihoods: got,
    };
    if json {
        super::print_json(&report)?;
    } else {
        println!(
            "HMM forward in {} on {}: {s} states, {t} steps, batch {b}: {:.3} ms, {:.1} G cells/s; \
             log-likelihood relative error vs f64 at most {:.2e} over {verified} sequences",
            report.format,
            report.device,
            report.seconds * 1e3,
            report.g_cells_per_s,
            report.max_relative_error
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn fig3(device: Option<Device>, json: bool, args: &Fig3Args) -> Result<ExitCode> {
    use sigpu_lns::fig3::{fig3 as on_cpu, FIG3_METHODS};
    use sigpu_lns::fig3_gpu::{fig3 as on_gpu, FIG3_GPU_METHODS};
    // Without --device, the CPU twins (the GPU figure is asked for explicitly).
    let gpu = match device {
        Some(Device::Cuda(n)) => Some(super::open_gpu(n)?),
        _ => None,
    };
    let methods: &[&str] = if gpu.is_some() {
        &FIG3_GPU_METHODS
    } else {
        &FIG3_METHODS
    };
    let bar = ProgressBar::new(16).with_style(
        ProgressStyle::with_template("{spinner} [{bar:30}] f = {pos}/16")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut points = Vec::new();
    for f in 8..=23 {
        match &gpu {
            Some(gpu) => points.extend(on_gpu(gpu, [f])?),
            None => points.extend(on_cpu([f])?),
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let source = match &gpu {
        Some(gpu) => gpu.info().name.clone(),
        None => "CPU twins, H100 filter model".into(),
    };
    if let Some(base) = &args.plot {
        let series = methods
            .iter()
            .map(|m| sigpu_plot::Series {
                name: m.to_string(),
                points: points
                    .iter()
                    .filter(|p| p.method == *m)
                    .map(|p| (p.f as f64, p.bits))
                    .collect(),
            })
            .collect();
        let chart = sigpu_plot::LineChart {
            title: format!("s_b worst-case accuracy, k = 2^(f-8) segments on [-1, 0] ({source})"),
            x_label: "input precision f (fractional bits)".into(),
            y_label: "output accuracy (bits)".into(),
            log_x: false,
            log_y: false,
            series,
        };
        chart
            .write(base)
            .with_context(|| format!("--plot {}", base.display()))?;
    }
    if json {
        return super::print_json(&points).map(|_| ExitCode::SUCCESS);
    }
    let rows: Vec<Vec<String>> = (8..=23)
        .map(|f| {
            let mut row = vec![f.to_string()];
            row.extend(methods.iter().map(|m| {
                points
                    .iter()
                    .find(|p| p.method == *m && p.f == f)
                    .map_or("-".into(), |p| format!("{:.1}", p.bits))
            }));
            row
        })
        .collect();
    let mut header = vec!["f"];
    header.extend(methods);
    println!("s_b worst-case accuracy in bits (k = 2^(f-8) segments on [-1, 0]; {source}):");
    print!("{}", table::render(&header, &rows));
    Ok(ExitCode::SUCCESS)
}

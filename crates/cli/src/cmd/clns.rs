//! `sigpu clns ...` (certificates, the seed's Fig. 4/5, FFT accuracy and speed) and
//! `sigpu bench clns` (Table I, the texture-cache cliff).

use crate::cli::{BenchClnsArgs, ClnsCertifyArgs, ClnsCertifyF32Args, ClnsFftArgs, ClnsFig45Args};
use crate::table;
use anyhow::{bail, Context, Result};
use sigpu_clns::certify::{certify as certify_cpu, Certificate, Inputs};
use sigpu_clns::gpu::GpuClns;
use sigpu_clns::{fft, fig45, radian, ClnsFormat, Geometry, Method};
use sigpu_runtime::Device;
use std::process::ExitCode;

use super::{spinner, write_json_out as write_json};

fn geometry(format: ClnsFormat, p_cl: Option<usize>, p_theta: Option<usize>) -> Result<Geometry> {
    let d = Geometry::default_for(format);
    let (a, b) = (p_cl.unwrap_or(d.p_cl), p_theta.unwrap_or(d.p_theta));
    if !(2..=4096).contains(&a) || !(2..=4096).contains(&b) {
        bail!("--p-cl {a} / --p-theta {b}: table sizes are 2..=4096 points per axis");
    }
    Ok(Geometry::new(format, a, b))
}

pub fn certify(device: Option<Device>, json: bool, args: &ClnsCertifyArgs) -> Result<ExitCode> {
    let format = args.format;
    let methods: Vec<Method> = if args.method == "all" {
        Method::ALL.to_vec()
    } else {
        vec![args.method.parse().context("--method")?]
    };
    let g = geometry(format, args.p_cl, args.p_theta)?;
    let inputs = Inputs::standard_checked(format, args.stride, args.random as usize, args.seed)
        .context("--stride")?;
    let gpu = match device.unwrap_or(Device::Cpu) {
        Device::Cpu => None,
        Device::Cuda(n) => Some(super::open_gpu(n)?),
    };
    let on_gpu = gpu
        .as_ref()
        .map(|gpu| GpuClns::new(gpu, format, g).context("uploading the S_b table"))
        .transpose()?;
    let bar = spinner();
    let mut certs: Vec<Certificate> = Vec::new();
    let mut skipped = Vec::new();
    for m in methods {
        bar.set_message(format!("{m}: {} inputs", inputs.len()));
        match (&gpu, &on_gpu) {
            (Some(gpu), Some(t)) if m != Method::Blend => certs.push(t.certify(gpu, m, &inputs)?),
            (None, _) if m.runs_on_cpu() => {
                let eval = m.cpu(format, g)?.context("CPU evaluator")?;
                certs.push(certify_cpu(&eval, &m.to_string(), &inputs));
            }
            _ => skipped.push(m.to_string()),
        }
    }
    bar.finish_and_clear();
    if certs.is_empty() {
        bail!(
            "--method {}: nothing to certify on this device ({} runs on the GPU only)",
            args.method,
            skipped.join(", ")
        );
    }
    write_json(&args.out, &certs)?;
    if json {
        super::print_json(&certs)?;
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<Vec<String>> = certs
        .iter()
        .map(|c| {
            vec![
                c.method.clone(),
                c.inputs.to_string(),
                format!("{:.3}", c.re_max_ulps),
                format!("{:.3}", c.re_mean_ulps),
                format!("{:.3}", c.im_max_ulps),
                format!("{:.3}", c.im_mean_ulps),
                format!("{:.4}%", 100.0 * c.share_faithful),
                format!("{:.2e}", c.add_relative_bound),
            ]
        })
        .collect();
    println!(
        "{format} S_b on {}, table {}×{} (errors in ulps: Re 2^-{}, Im 2^-{} turn):",
        certs[0].device,
        g.p_cl,
        g.p_theta,
        format.frac_bits(),
        format.angle_bits
    );
    print!(
        "{}",
        table::render(
            &[
                "method",
                "inputs",
                "Re max",
                "Re mean",
                "Im max",
                "Im mean",
                "faithful",
                "add rel. bound"
            ],
            &rows
        )
    );
    if !skipped.is_empty() {
        println!("not certified on this device: {}", skipped.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn fig45(json: bool, args: &ClnsFig45Args) -> Result<ExitCode> {
    let format = args.format;
    let inputs = Inputs::standard_checked(format, args.stride, args.random as usize, 4)
        .context("--stride")?;
    let bar = spinner();
    bar.set_message(format!("Fig. 4/5 over {} inputs", inputs.len()));
    let points = fig45::fig45(format, &fig45::SIZES, &inputs)?;
    bar.finish_and_clear();
    if let Some(dir) = &args.plot {
        std::fs::create_dir_all(dir).with_context(|| format!("--plot {}", dir.display()))?;
        for (name, title, pick) in [
            (
                "fig4-re",
                "Fig. 4: error of Re S_b (log2 units) vs table size",
                (|p: &fig45::Point| (p.re_mean, p.re_max)) as fn(&fig45::Point) -> (f64, f64),
            ),
            (
                "fig5-im",
                "Fig. 5: error of Im S_b (radians) vs table size",
                |p: &fig45::Point| (p.im_mean, p.im_max),
            ),
        ] {
            let mut series = Vec::new();
            for reader in [sigpu_clns::Reader::Texture, sigpu_clns::Reader::Fma] {
                for (stat, idx) in [("mean", 0), ("max", 1)] {
                    series.push(sigpu_plot::Series {
                        name: format!(
                            "{} {stat}",
                            if reader == sigpu_clns::Reader::Texture {
                                "texture"
                            } else {
                                "FMA"
                            }
                        ),
                        points: points
                            .iter()
                            .filter(|p| p.reader == reader)
                            .map(|p| {
                                let v = pick(p);
                                (p.p_cl as f64, if idx == 0 { v.0 } else { v.1 })
                            })
                            .collect(),
                    });
                }
            }
            let chart = sigpu_plot::LineChart {
                title: title.into(),
                x_label: "P_CL = P_θ (points per axis)".into(),
                y_label: "absolute error".into(),
                log_x: true,
                log_y: true,
                series,
            };
            let base = dir.join(name);
            chart
                .write(&base)
                .with_context(|| format!("writing {}", base.display()))?;
        }
    }
    if json {
        super::print_json(&points)?;
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<Vec<String>> = points
        .iter()
        .map(|p| {
            vec![
                format!("{:?}", p.reader).to_lowercase(),
                format!("{}×{}", p.p_cl, p.p_theta),
                format!("{:.0}", p.table_bytes as f64 / 1024.0),
                format!("{:.2e}", p.re_mean),
                format!("{:.2e}", p.re_max),
                format!("{:.2e}", p.im_mean),
                format!("{:.2e}", p.im_max),
            ]
        })
        .collect();
    println!(
        "S_b table error outside the near region ({} inputs of {format}; H100 filter model):",
        points.first().map_or(0, |p| p.inputs)
    );
    print!(
        "{}",
        table::render(
            &[
                "reader",
                "P_CL×P_θ",
                "KiB",
                "Re mean",
                "Re max",
                "Im mean (rad)",
                "Im max (rad)"
            ],
            &rows
        )
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(serde::Serialize)]
struct FftReport {
    method: String,
    snr: Vec<fft::SnrRow>,
    /// Word size fixed point (per-stage scaling / input scaling) needs to match each CLNS row.
    fixed_bits_to_match: Vec<(u32, Option<u32>, Option<u32>)>,
    /// The seed's f32-radian variant (64-bit word), with the other 64-bit-word FFTs.
    f32_variant: fft::F32Row,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    gpu: Vec<GpuFftRow>,
}

#[derive(serde::Serialize)]
struct GpuFftRow {
    device: String,
    format: String,
    snr_db: f64,
    #[serde(flatten)]
    timing: sigpu_clns::bench::FftRow,
}

pub fn fft(device: Option<Device>, json: bool, args: &ClnsFftArgs) -> Result<ExitCode> {
    let n = args.size;
    if !n.is_power_of_two() || !(2..=1 << 16).contains(&n) {
        bail!("--size {n}: a power of two from 2 to 65536");
    }
    if args.batch == 0 || args.batch.checked_mul(n).is_none_or(|len| len > 1 << 26) {
        bail!("--batch {}: 1 ≤ batch and batch × size ≤ 2^26", args.batch);
    }
    let method: Method = args.method.parse().context("--method")?;
    if !method.runs_on_cpu() {
        bail!("--method {method}: the CPU twin runs f64, tex or fma");
    }
    let gpu = match device.unwrap_or(Device::Cpu) {
        Device::Cpu => None,
        Device::Cuda(k) => Some(super::open_gpu(k)?),
    };
    if gpu.is_some() && n > 4096 {
        bail!("--size {n}: the GPU FFT takes sizes up to 4096");
    }
    let x = fft::random_input(n, args.batch, args.seed);
    let bar = spinner();
    let mut snr = Vec::new();
    let mut gpu_rows = Vec::new();
    for &bits in &args.bits {
        let format = ClnsFormat::with_bits(bits)?;
        if n.trailing_zeros() > bits {
            bail!(
                "--bits {bits}: an N = {n} FFT needs angles of at least log2 N = {} bits",
                n.trailing_zeros()
            );
        }
        bar.set_message(format!("{bits} bits"));
        let g = Geometry::default_for(format);
        let m = method.cpu(format, g)?.context("CPU evaluator")?;
        snr.push(fft::snr_row(format, &m, bits, &x, n)?);
        if let Some(gpu) = &gpu {
            let t = GpuClns::new(gpu, format, g)?;
            let mut d = gpu.upload(
                &x.iter()
                    .map(|&c| format.from_complex(c).to_pair())
                    .collect::<Vec<_>>(),
            )?;
            t.fft(gpu, method, &mut d, n)?;
            let got: Vec<_> = gpu
                .download(&d)?
                .into_iter()
                .map(|p| format.to_complex(sigpu_clns::Clns::from_pair(p)))
                .collect();
            let want = fft::reference_fft(&x, n)?;
            gpu_rows.push(GpuFftRow {
                device: format!("{} ({})", gpu.info().name, gpu.arch()),
                format: format.to_string(),
                snr_db: fft::snr_db(&got, &want),
                timing: sigpu_clns::bench::fft_throughput(gpu, &t, method, n, args.batch)?,
            });
        }
    }
    bar.finish_and_clear();
    // Fixed point from 4 to 32 bits, for the bits-to-match column.
    let sweep = |s: fft::Scaling| -> Result<Vec<(u32, f64)>> {
        let want = fft::reference_fft(&x, n)?;
        let scaled: Vec<_> = want.iter().map(|w| w / n as f64).collect();
        (4..=32)
            .map(|b| Ok((b, fft::snr_db(&fft::fixed_fft(&x, n, b, s)?, &scaled))))
            .collect()
    };
    let (per_stage, input) = (sweep(fft::Scaling::PerStage)?, sweep(fft::Scaling::Input)?);
    // The f32-radian variant reads the same S_b table (its contents do not depend on the
    // code format; clns16's default geometry).
    let table_format = ClnsFormat::CLNS16;
    let m32 = radian::evaluator(method, table_format, Geometry::default_for(table_format))?
        .context("CPU evaluator")?;
    let f32_variant = fft::f32_row(&m32, &method.to_string(), &x, n)?;
    let report = FftReport {
        method: method.to_string(),
        fixed_bits_to_match: snr
            .iter()
            .map(|r| {
                (
                    r.bits,
                    fft::fixed_bits_for(&per_stage, r.clns_db),
                    fft::fixed_bits_for(&input, r.clns_db),
                )
            })
            .collect(),
        snr,
        f32_variant,
        gpu: gpu_rows,
    };
    write_json(&args.out, &report)?;
    if let Some(base) = &args.plot {
        let line = |name: &str, pick: fn(&fft::SnrRow) -> f64| sigpu_plot::Series {
            name: name.into(),
            points: report
                .snr
                .iter()
                .map(|r| (r.bits as f64, pick(r)))
                .collect(),
        };
        let chart = sigpu_plot::LineChart {
            title: format!("FFT N = {n}: SNR vs f64 at equal bits per component"),
            x_label: "bits per component".into(),
            y_label: "SNR (dB)".into(),
            log_x: false,
            log_y: false,
            series: vec![
                line(&format!("CLNS ({method} S_b)"), |r| r.clns_db),
                line("fixed, 1/2 per stage", |r| r.fixed_db),
                line("fixed, input / N", |r| r.fixed_input_scaled_db),
            ],
        };
        chart
            .write(base)
            .with_context(|| format!("--plot {}", base.display()))?;
    }
    if json {
        super::print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    let opt = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.1}"));
    let rows: Vec<Vec<String>> = report
        .snr
        .iter()
        .zip(&report.fixed_bits_to_match)
        .map(|(r, m)| {
            vec![
                r.bits.to_string(),
                r.clns_format.clone(),
                format!("{:.1}", r.clns_db),
                format!("{:.1}", r.fixed_db),
                format!("{:.1}", r.fixed_input_scaled_db),
                opt(r.f16_db),
                opt(r.bf16_db),
                format!(
                    "{} / {}",
                    m.1.map_or("-".into(), |b| b.to_string()),
                    m.2.map_or("-".into(), |b| b.to_string())
                ),
            ]
        })
        .collect();
    println!(
        "FFT N = {n}, batch {}, SNR (dB) vs rustfft f64; CLNS S_b by {method}:",
        args.batch
    );
    print!(
        "{}",
        table::render(
            &[
                "bits",
                "CLNS format",
                "CLNS",
                "fixed (1/2 per stage)",
                "fixed (input / N)",
                "f16",
                "bf16",
                "fixed bits to match"
            ],
            &rows
        )
    );
    let v = &report.f32_variant;
    println!(
        "CLNS-f32 (the seed's log2|X| and angle in radians, f32 each: a 64-bit word, 32 bits \
         per component), S_b by {method}: {:.1} dB; other 64-bit words: fixed point 32-bit \
         per component {:.1} dB (1/2 per stage) / {:.1} dB (input / N), complex f32 {:.1} dB",
        v.clns_f32_db, v.fixed32_db, v.fixed32_input_scaled_db, v.complex_f32_db
    );
    for r in &report.gpu {
        println!(
            "GPU {} {}: SNR {:.1} dB, {:.3} ms for {} transforms: {:.2} M transforms/s, {:.1} G butterflies/s",
            r.device, r.format, r.snr_db, r.timing.median_ms, r.timing.batch, r.timing.transforms_per_s / 1e6, r.timing.g_butterflies_per_s
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn bench(device: Option<Device>, json: bool, args: &BenchClnsArgs) -> Result<ExitCode> {
    let ordinal = match device.unwrap_or(Device::Cuda(0)) {
        Device::Cpu if args.from.is_none() => {
            bail!(
                "--device cpu: `bench clns` measures GPU units; use --device cuda (or --from FILE)"
            )
        }
        Device::Cpu => 0,
        Device::Cuda(n) => n,
    };
    let report: sigpu_clns::bench::Report = match &args.from {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--from {}", path.display()))?;
            serde_json::from_str(&text)
                .with_context(|| format!("--from {}: not a `bench clns` report", path.display()))?
        }
        None => {
            let gpu = super::open_gpu(ordinal)?;
            let g = geometry(args.format, args.p_cl, args.p_theta)?;
            let bar = spinner();
            let report = sigpu_clns::bench::run(&gpu, args.format, g, args.table1_only, &|m| {
                bar.set_message(m.to_owned())
            })?;
            bar.finish_and_clear();
            report
        }
    };
    let (format, g) = (report.format.clone(), report.geometry);
    write_json(&args.out, &report)?;
    if let Some(base) = &args.plot {
        if report.cliff.is_empty() {
            bail!(
                "--plot {}: this report has no cliff rows (measured with --table1-only)",
                base.display()
            );
        }
        let series = ["tex", "fma"]
            .iter()
            .map(|reader| sigpu_plot::Series {
                name: if *reader == "tex" {
                    "texture (bilinear)".into()
                } else {
                    "FMA lerps (global)".into()
                },
                points: report
                    .cliff
                    .iter()
                    .filter(|r| r.reader == *reader)
                    .map(|r| (r.table_kib, r.g_reads_per_s))
                    .collect(),
            })
            .collect();
        let chart = sigpu_plot::LineChart {
            title: format!(
                "S_b table reads at random inputs vs table size ({})",
                report.device
            ),
            x_label: "table size (KiB of float2 texels)".into(),
            y_label: "G reads/s".into(),
            log_x: true,
            log_y: false,
            series,
        };
        chart
            .write(base)
            .with_context(|| format!("--plot {}", base.display()))?;
    }
    if json {
        super::print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} · {format}, table {}×{} · SM clock {:.0} MHz · {} ops per launch",
        report.device, g.p_cl, g.p_theta, report.sm_clock_mhz, report.ops_per_launch
    );
    // The targets: a CLNS multiply against complex f32 add, a CLNS add against
    // complex f32 multiply (same run).
    let peer = |op: &str| {
        report
            .table1
            .iter()
            .find(|r| r.op == op)
            .map(|r| r.g_ops_per_s)
    };
    let (cadd, cmul) = (peer("complex f32 add"), peer("complex f32 mul"));
    let rows: Vec<Vec<String>> = report
        .table1
        .iter()
        .map(|r| {
            let vs = match (r.op.starts_with("clns"), r.op.contains("mul")) {
                (true, true) => cadd.map(|p| format!("{:.3}× cf32 add", r.g_ops_per_s / p)),
                (true, false) => cmul.map(|p| format!("{:.3}× cf32 mul", r.g_ops_per_s / p)),
                _ => None,
            };
            vec![
                r.op.clone(),
                r.method.clone().unwrap_or_default(),
                format!("{:.1}", r.g_ops_per_s),
                format!("{:.2}", r.cycles_per_warp),
                vs.unwrap_or_default(),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(&["op", "S_b", "G ops/s", "cycles/warp", "vs target"], &rows)
    );
    let rows: Vec<Vec<String>> = report
        .cliff
        .iter()
        .map(|r| {
            vec![
                r.reader.clone(),
                format!("{}×{}", r.p_cl, r.p_theta),
                format!("{:.0}", r.table_kib),
                format!("{:.1}", r.g_reads_per_s),
            ]
        })
        .collect();
    if !rows.is_empty() {
        println!("texture-cache cliff (S_b reads at random inputs):");
        print!(
            "{}",
            table::render(&["reader", "table", "KiB", "G reads/s"], &rows)
        );
    }
    let rows: Vec<Vec<String>> = report
        .streaming
        .iter()
        .map(|r| {
            vec![
                r.op.clone(),
                format!("{:.1}", r.g_ops_per_s),
                format!("{:.0}", r.gb_per_s),
                format!("{:.1}%", 100.0 * r.fraction_of_copy),
            ]
        })
        .collect();
    if !rows.is_empty() {
        println!("streaming element-wise ops (2^26 pairs in device memory):");
        print!(
            "{}",
            table::render(&["op", "G ops/s", "GB/s", "of copy"], &rows)
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(serde::Serialize)]
struct CertifyF32Report {
    /// S_b of the f32-radian variant: error of each CPU method over the certificate inputs.
    sb: Vec<radian::SbCertificate>,
    /// Each operation against num_complex f64 on random pairs, per S_b method.
    ops: Vec<radian::OpErrors>,
}

/// `sigpu clns certify-f32`: the seed's representation on the CPU (f64 reference and the
/// texture / FMA twins of the GPU kernels, on clns16's default table).
pub fn certify_f32(json: bool, args: &ClnsCertifyF32Args) -> Result<ExitCode> {
    let table_format = ClnsFormat::CLNS16;
    let g = Geometry::default_for(table_format);
    let bar = spinner();
    bar.set_message("inputs");
    let inputs = radian::certify_inputs(args.grid as usize, args.random as usize, args.seed);
    let pairs = radian::random_pairs(args.pairs as usize, args.seed);
    let mut report = CertifyF32Report {
        sb: Vec::new(),
        ops: Vec::new(),
    };
    for method in [Method::F64, Method::Tex, Method::Fma] {
        bar.set_message(format!("{method}"));
        let m = radian::evaluator(method, table_format, g)?.context("CPU evaluator")?;
        report
            .sb
            .push(radian::certify(&m, &method.to_string(), &inputs));
        report
            .ops
            .push(radian::op_errors(&m, &method.to_string(), &pairs));
    }
    bar.finish_and_clear();
    write_json(&args.out, &report)?;
    if json {
        super::print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "CLNS-f32 (log2|X| and angle in radians, f32 each; 64-bit word) S_b on the CPU, \
         table {}×{} ({} inputs: Re in log2 units, Im in radians):",
        g.p_cl,
        g.p_theta,
        inputs.len()
    );
    let rows: Vec<Vec<String>> = report
        .sb
        .iter()
        .map(|c| {
            vec![
                c.method.clone(),
                format!("{:.2e}", c.re_max),
                format!("{:.2e}", c.re_mean),
                format!("{:.2e}", c.im_max),
                format!("{:.2e}", c.im_mean),
                format!("{:.2e}", c.add_relative_bound),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(
            &[
                "method",
                "Re max",
                "Re mean",
                "Im max",
                "Im mean",
                "add rel. bound"
            ],
            &rows
        )
    );
    println!(
        "relative error vs num_complex f64 on {} random pairs (max / mean; 1 in 16 nearly \
         cancelling):",
        pairs.len()
    );
    let pct = |(max, mean): (f64, f64)| format!("{max:.2e} / {mean:.2e}");
    let rows: Vec<Vec<String>> = report
        .ops
        .iter()
        .map(|e| {
            vec![
                e.method.clone(),
                pct(e.convert),
                pct(e.mul),
                pct(e.div),
                pct(e.add),
                pct(e.sub),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(&["S_b", "convert", "mul", "div", "add", "sub"], &rows)
    );
    Ok(ExitCode::SUCCESS)
}

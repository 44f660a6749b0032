//! texture-LNS's Table 1 on today's GPU: compute-bound s_b (and s_b + d_b) throughput per method
//! and per blend, in G evaluations/s and SM clock cycles per warp at the measured clock; the
//! streaming add and the fused reductions against the copy ceiling; and the CPU's add
//! throughput per method.

use rand::{Rng, SeedableRng};
use serde::Serialize;
use sigpu_lns::gpu::{fused, kernels, GpuMethod};
use sigpu_lns::{Class, Format, LnsError, Method};
use sigpu_runtime::cuda::cudarc::driver::LaunchConfig;
use sigpu_runtime::cuda::{
    self, copy_bandwidth, sm_clock_mhz, time_gpu, DeviceBuffer, Gpu, Launch,
};

/// One compute-bound measurement: a method alone, or a blend A+B at one λ; s_b alone, or s_b
/// and d_b at each input.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Row {
    /// A method, or `A+B` for a blend.
    pub method: String,
    /// Blends: warps with (warp index mod 8) < lambda run A.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lambda: Option<u32>,
    /// s_b and d_b at the same point (one evaluation = both).
    pub both: bool,
    /// Median time of one launch, in ms.
    pub median_ms: f64,
    /// Throughput: 10^9 evaluations per second at the median.
    pub g_evals_per_s: f64,
    /// SM clock cycles per warp-wide evaluation: time × clock × SMs / (evaluations / 32).
    pub cycles_per_warp: f64,
}

/// What `sigpu bench lns` on a GPU measures for one format.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The GPU's name and architecture.
    pub device: String,
    /// The format measured (`lns16`, `lns32`, ...).
    pub format: String,
    /// Streaming multiprocessors of the device.
    pub sms: u32,
    /// SM clock measured with clock64() against %globaltimer while a kernel runs.
    pub sm_clock_mhz: f64,
    /// s_b evaluations per compute-bound launch (8 blocks of 256 threads per SM, 2048 inputs
    /// each).
    pub evals_per_launch: u64,
    /// Every method alone, then every blend at λ = 1..7; s_b alone and s_b + d_b for each.
    pub rows: Vec<Row>,
    /// Element-wise add of two device arrays: memory-bound.
    pub streaming: Vec<StreamRow>,
    /// Fused sum and dot over the same arrays (one pass, one rounding).
    pub reductions: Vec<ReduceRow>,
}

/// A fused reduction over device buffers of LNS words.
#[derive(Clone, Debug, Serialize)]
pub struct ReduceRow {
    /// `sum` or `dot`.
    pub op: &'static str,
    /// LNS words reduced (2^28).
    pub elements: usize,
    /// Median time of one reduction, in ms.
    pub median_ms: f64,
    /// Throughput: 10^9 words per second at the median.
    pub g_elems_per_s: f64,
    /// Bytes read (4 per word) per second.
    pub gb_per_s: f64,
    /// Of the device-to-device copy measured in the same run (read + write counted there, so
    /// a read-only kernel at full memory speed is near 100%).
    pub fraction_of_copy: f64,
}

/// Element-wise `out = a + b` over device buffers of LNS words.
#[derive(Clone, Debug, Serialize)]
pub struct StreamRow {
    /// The method, with ` (u16 words)` when the words are 16-bit.
    pub method: String,
    /// Adds per launch (2^28).
    pub elements: usize,
    /// Median time of one launch, in ms.
    pub median_ms: f64,
    /// Throughput: 10^9 adds per second at the median.
    pub g_adds_per_s: f64,
    /// Bytes read and written (3 words per add: 12 bytes, 6 with u16 words) per second.
    pub gb_per_s: f64,
    /// Of the device-to-device copy measured in the same run.
    pub fraction_of_copy: f64,
}

/// Words per streaming array.
const STREAM_WORDS: usize = 1 << 28;

/// The streaming inputs: 2^20 random words tiled to 2^28 (the kernel sees varied inputs, the
/// host stays fast), b the same words rotated.
fn stream_inputs(gpu: &Gpu, format: Format) -> Result<[DeviceBuffer<u32>; 2], LnsError> {
    stream_inputs_of(gpu, format, STREAM_WORDS)
}

/// [`stream_inputs`] of `words` words.
pub(crate) fn stream_inputs_of(
    gpu: &Gpu,
    format: Format,
    words_wanted: usize,
) -> Result<[DeviceBuffer<u32>; 2], LnsError> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let words: Vec<u32> = (0..1 << 20)
        .map(|_| {
            let log = rng.random_range(-(12i64 << format.frac_bits)..(12i64 << format.frac_bits));
            format.encode(Class::Finite {
                negative: rng.random(),
                log,
            })
        })
        .collect();
    let tiled: Vec<u32> = words.iter().copied().cycle().take(words_wanted).collect();
    let turn = 12345 % tiled.len().max(1);
    let rotated: Vec<u32> = tiled[turn..]
        .iter()
        .chain(&tiled[..turn])
        .copied()
        .collect();
    Ok([gpu.upload(&tiled)?, gpu.upload(&rotated)?])
}

/// One streaming row from its median time and the bytes each add moves.
fn stream_row(method: String, median_ms: f64, bytes_per_add: f64, copy: f64) -> StreamRow {
    let n = STREAM_WORDS;
    let gb_per_s = bytes_per_add * n as f64 / (median_ms * 1e-3) / 1e9;
    StreamRow {
        method,
        elements: n,
        median_ms,
        g_adds_per_s: n as f64 / (median_ms * 1e-3) / 1e9,
        gb_per_s,
        fraction_of_copy: gb_per_s / copy,
    }
}

/// Fused sum and dot of the streaming words.
fn reductions(
    gpu: &Gpu,
    format: Format,
    [a, b]: &[DeviceBuffer<u32>; 2],
    out: &mut DeviceBuffer<u32>,
    copy: f64,
) -> Result<Vec<ReduceRow>, LnsError> {
    let n = STREAM_WORDS;
    let mut rows = Vec::new();
    for (op, ys) in [("sum", None), ("dot", Some(b))] {
        let t = time_gpu(gpu, 3, 20, || fused::fused_into(gpu, format, a, ys, out))?;
        let words = if ys.is_some() { 2 } else { 1 };
        let gb_per_s = (4 * words * n) as f64 / (t.median_ms * 1e-3) / 1e9;
        rows.push(ReduceRow {
            op,
            elements: n,
            median_ms: t.median_ms,
            g_elems_per_s: n as f64 / (t.median_ms * 1e-3) / 1e9,
            gb_per_s,
            fraction_of_copy: gb_per_s / copy,
        });
    }
    Ok(rows)
}

/// Streaming adds of 2^28 random words for a few methods, and fused sum and dot of the same
/// words, against the copy ceiling.
fn streaming(
    gpu: &Gpu,
    format: Format,
    methods: &[&GpuMethod],
) -> Result<(Vec<StreamRow>, Vec<ReduceRow>), LnsError> {
    let copy = copy_bandwidth(gpu, 1 << 30, 3, 20)?.best_gb_per_s;
    let inputs = stream_inputs(gpu, format)?;
    let [a, b] = &inputs;
    let mut out = gpu.alloc_poisoned::<u32>(STREAM_WORDS)?;
    let reductions = reductions(gpu, format, &inputs, &mut out, copy)?;
    let mut rows = Vec::new();
    for m in methods {
        let t = time_gpu(gpu, 3, 20, || m.add(a, b, &mut out))?;
        rows.push(stream_row(m.method.to_string(), t.median_ms, 12.0, copy));
    }
    // Formats of ≤ 16 bits stored as u16 words: 6 bytes per add instead of 12.
    if let Some(m) = methods.first().filter(|_| format.word_bits() <= 16) {
        let narrow = |v: &DeviceBuffer<u32>| -> Result<DeviceBuffer<u16>, LnsError> {
            let host: Vec<u16> = gpu.download(v)?.iter().map(|&w| w as u16).collect();
            Ok(gpu.upload(&host)?)
        };
        let (a16, b16) = (narrow(a)?, narrow(b)?);
        let mut out16 = gpu.alloc_poisoned::<u16>(STREAM_WORDS)?;
        let t = time_gpu(gpu, 3, 20, || m.add(&a16, &b16, &mut out16))?;
        let name = format!("{} (u16 words)", m.method);
        rows.push(stream_row(name, t.median_ms, 6.0, copy));
    }
    Ok((rows, reductions))
}

/// The fused reductions alone (`sigpu bench lns --reduce-only`), against the copy ceiling.
#[derive(Clone, Debug, Serialize)]
pub struct ReduceReport {
    /// The GPU's name and architecture.
    pub device: String,
    /// The format of the words.
    pub format: String,
    /// Device-to-device copy of 2^30 bytes in the same run, read + write counted (GB/s).
    pub copy_gb_per_s: f64,
    /// Fused sum, then fused dot.
    pub reductions: Vec<ReduceRow>,
}

/// Fused sum and dot of 2^28 streaming words (the inputs of [`throughput`]'s streaming add).
pub fn reductions_only(gpu: &Gpu, format: Format) -> Result<ReduceReport, LnsError> {
    let copy = copy_bandwidth(gpu, 1 << 30, 3, 20)?.best_gb_per_s;
    let inputs = stream_inputs(gpu, format)?;
    let mut out = gpu.alloc_poisoned::<u32>(1)?;
    Ok(ReduceReport {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        format: format.to_string(),
        copy_gb_per_s: copy,
        reductions: reductions(gpu, format, &inputs, &mut out, copy)?,
    })
}

impl ReduceReport {
    /// The report as text: the copy ceiling, then a table of the reductions' rates.
    pub fn text(&self) -> String {
        let n = self.reductions.first().map_or(0, |r| r.elements);
        let mut out = format!(
            "{} {}: copy {:.0} GB/s; fused reductions of {n} words (4 bytes read per word):\n",
            self.device, self.format, self.copy_gb_per_s
        );
        let sums = self.reductions.iter().map(|r| {
            let rate = (r.g_elems_per_s, r.gb_per_s, r.fraction_of_copy);
            (r.op.to_string(), rate)
        });
        out += &share_table(["op", "G elements/s"], sums);
        out
    }
}

/// Blends measured: (A, B) pairs of units that can run side by side.
/// texlut + SFU keeps the TEX unit (one fetch per result) busy beside the SFU path, which is
/// issue-bound alone; it runs on formats texlut takes (lns16).
pub const BLENDS: [(Method, Method, &str); 5] = [
    (Method::Tex2, Method::Sfu, "lns_blend_tex2_sfu"),
    (Method::Tex2, Method::Horner(3), "lns_blend_tex2_horner3"),
    (Method::Horner(3), Method::Sfu, "lns_blend_horner3_sfu"),
    (Method::Tex1, Method::Sfu, "lns_blend_tex1_sfu"),
    (Method::TexLut, Method::Sfu, "lns_blend_texlut_sfu"),
];

/// The compute-bound launches: 8 blocks of 256 threads per SM, each thread `iters` inputs.
struct Shape {
    config: LaunchConfig,
    zlo: i64,
    mask: u32,
    iters: i32,
    evals: u64,
    /// SM clock (MHz) and SM count, to turn times into cycles per warp.
    clock: f64,
    sms: u32,
}

impl Shape {
    fn new(gpu: &Gpu, format: Format, iters: i32, clock: f64) -> Shape {
        let sms = gpu.info().sms;
        let blocks = sms * 8;
        let threads = blocks as u64 * 256;
        let z0 = format.essential_zero_code();
        // Inputs stay in [z0, 0]: the largest power-of-two span that fits.
        let span = 1u64 << (63 - ((-z0) as u64).leading_zeros());
        Shape {
            config: LaunchConfig {
                grid_dim: (blocks, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            },
            zlo: z0,
            mask: (span - 1) as u32,
            iters,
            evals: threads * iters as u64,
            clock,
            sms,
        }
    }

    /// Finishes a `lns_bench_*` / `lns_blend_*` launch whose tables (and λ) are pushed: the
    /// input range, iterations, `both` and the output, then runs it.
    fn run<'a>(
        &'a self,
        launch: &mut Launch<'a>,
        both: &'a i32,
        out: &'a mut DeviceBuffer<i32>,
    ) -> Result<(), cuda::Error> {
        launch
            .arg(&self.zlo)
            .arg(&self.mask)
            .arg(&self.iters)
            .arg(both)
            .buf_mut(out)
            .run(self.config)
    }

    fn row(&self, method: String, lambda: Option<u32>, both: bool, ms: f64) -> Row {
        let warps = self.evals as f64 / 32.0;
        Row {
            method,
            lambda,
            both,
            median_ms: ms,
            g_evals_per_s: self.evals as f64 / (ms * 1e-3) / 1e9,
            cycles_per_warp: ms * 1e-3 * self.clock * 1e6 * self.sms as f64 / warps,
        }
    }
}

/// Every GPU method alone, s_b and s_b + d_b: the rows and the prepared methods.
fn single_rows(
    gpu: &Gpu,
    format: Format,
    shape: &Shape,
    out: &mut DeviceBuffer<i32>,
    progress: &dyn Fn(&str),
) -> Result<(Vec<Row>, Vec<GpuMethod>), LnsError> {
    let (mut rows, mut methods) = (Vec::new(), Vec::new());
    for m in Method::ALL
        .into_iter()
        .filter(|m| m.runs_on_gpu() && m.takes(format))
    {
        progress(&m.to_string());
        let gm = GpuMethod::new(gpu, m, format)?;
        let kernel = gpu.kernel(&kernels(), &format!("lns_bench_{m}"))?;
        for both in [0i32, 1] {
            let t = time_gpu(gpu, 2, 10, || {
                let mut launch = gpu.launch(&kernel);
                gm.table_args(&mut launch);
                shape.run(&mut launch, &both, out)
            })?;
            rows.push(shape.row(m.to_string(), None, both == 1, t.median_ms));
        }
        methods.push(gm);
    }
    Ok((rows, methods))
}

/// Every blend of [`BLENDS`] whose methods take the format, at every λ, s_b and s_b + d_b.
fn blend_rows(
    gpu: &Gpu,
    shape: &Shape,
    methods: &[GpuMethod],
    out: &mut DeviceBuffer<i32>,
    progress: &dyn Fn(&str),
) -> Result<Vec<Row>, LnsError> {
    let find = |m: Method| methods.iter().find(|g| g.method == m);
    let mut rows = Vec::new();
    for (a, b, name) in BLENDS {
        // A pair with a method that does not take the format (texlut on lns32) is skipped.
        let (Some(ga), Some(gb)) = (find(a), find(b)) else {
            continue;
        };
        progress(name);
        let kernel = gpu.kernel(&kernels(), name)?;
        for both in [0i32, 1] {
            for lambda in 1..8i32 {
                let t = time_gpu(gpu, 2, 10, || {
                    let mut launch = gpu.launch(&kernel);
                    ga.table_args(&mut launch);
                    gb.table_args(&mut launch).arg(&lambda);
                    shape.run(&mut launch, &both, out)
                })?;
                let method = format!("{a}+{b}");
                rows.push(shape.row(method, Some(lambda as u32), both == 1, t.median_ms));
            }
        }
    }
    Ok(rows)
}

/// Every method alone and every blend at every λ, s_b alone and s_b + d_b, for `format`; then
/// the streaming add and the fused reductions.
pub fn throughput(gpu: &Gpu, format: Format, progress: &dyn Fn(&str)) -> Result<Report, LnsError> {
    let clock = sm_clock_mhz(gpu)?;
    let shape = Shape::new(gpu, format, 2048, clock);
    let mut out = gpu.alloc_poisoned::<i32>(shape.config.grid_dim.0 as usize * 256)?;
    let (mut rows, methods) = single_rows(gpu, format, &shape, &mut out, progress)?;
    rows.extend(blend_rows(gpu, &shape, &methods, &mut out, progress)?);
    progress("streaming add");
    let mut wanted = vec![
        Method::gpu_default(format),
        Method::Tex2,
        Method::Horner(3),
        Method::F64,
    ];
    wanted.dedup();
    let stream_methods: Vec<&GpuMethod> = wanted
        .iter()
        .filter_map(|&m| methods.iter().find(|g| g.method == m))
        .collect();
    let (streaming, reductions) = streaming(gpu, format, &stream_methods)?;
    Ok(Report {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        format: format.to_string(),
        sms: shape.sms,
        sm_clock_mhz: clock,
        evals_per_launch: shape.evals,
        rows,
        streaming,
        reductions,
    })
}

/// s_b throughput of each blend A+B against λ (warps of every 8 on A): λ = 0 is B alone and
/// λ = 8 is A alone, from the single-method rows of the same run.
pub fn blend_chart(report: &Report) -> sigpu_plot::LineChart {
    blend_chart_of(&report.format, &report.device, &report.rows)
}

/// [`blend_chart`] from a report's parts (also how saved results are redrawn).
pub fn blend_chart_of(format: &str, device: &str, rows: &[Row]) -> sigpu_plot::LineChart {
    let single = |m: &str| {
        rows.iter()
            .find(|r| r.method == m && r.lambda.is_none() && !r.both)
            .map(|r| r.g_evals_per_s)
    };
    let mut names: Vec<&str> = rows
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
                rows.iter()
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
        title: format!("{format} s_b blends A+B on {device}: throughput vs warp split"),
        x_label: "λ: warps of every 8 that run method A (0: B alone, 8: A alone)".into(),
        y_label: "throughput (G s_b evaluations/s)".into(),
        log_x: false,
        log_y: false,
        series,
    }
}

/// One CPU add/sub measurement.
#[derive(Clone, Debug, Serialize)]
pub struct CpuRow {
    /// The method's name.
    pub method: String,
    /// Worker threads (rayon's pool).
    pub threads: usize,
    /// Pairs added per timed run.
    pub elements: usize,
    /// Median time of one run over `elements`, in seconds.
    pub median_s: f64,
    /// Throughput: 10^9 adds per second at the median.
    pub g_adds_per_s: f64,
}

/// The CPU methods `bench lns --device cpu` measures by default: every CPU method without GPU
/// tables (f64, f64table, f64poly; f32split's CPU code is the scalar twin of its kernel,
/// texlut's is the f64 reference itself).
pub fn default_cpu_methods() -> Vec<Method> {
    Method::ALL
        .into_iter()
        .filter(|m| m.runs_on_cpu() && m.reader().is_none())
        .filter(|m| !matches!(m, Method::F32Split | Method::TexLut))
        .collect()
}

/// The add throughput of `methods` on the CPU (none given: [`default_cpu_methods`]), over
/// 2^22 pairs, 5 runs each: the rows of `sigpu bench lns --device cpu`.
pub fn cpu_add_table(format: Format, methods: &[Method]) -> Result<Vec<CpuRow>, LnsError> {
    let methods = match methods.is_empty() {
        true => default_cpu_methods(),
        false => methods.to_vec(),
    };
    (methods.into_iter())
        .map(|m| cpu_add_throughput(format, m, 1 << 22, 5))
        .collect()
}

/// What `sigpu bench lns` is asked for (`--method`, `--reduce-only`, `--plot`), refused
/// before anything is measured when it cannot run where it goes: `on_gpu` is `None` while
/// the device is not yet resolved (then only what the flags alone show, with `cuda_named`
/// for an explicit `--device cuda`), else where the run really goes.
pub fn check_request(
    methods: &[Method],
    reduce_only: bool,
    plot: bool,
    cuda_named: bool,
    on_gpu: Option<bool>,
) -> Result<(), String> {
    let gpu_only =
        "--method selects CPU methods (with --device cpu); the GPU run measures every method";
    let Some(on_gpu) = on_gpu else {
        if cuda_named && !methods.is_empty() {
            return Err(gpu_only.into());
        }
        if reduce_only && (!methods.is_empty() || plot) {
            return Err(
                "--reduce-only measures the fused sum and dot alone: drop --method and --plot"
                    .into(),
            );
        }
        return Ok(());
    };
    match on_gpu {
        true if !methods.is_empty() => Err(gpu_only.into()),
        true => Ok(()),
        false if reduce_only => {
            Err("--reduce-only: the fused reductions run on the GPU only (--device cuda)".into())
        }
        false => match methods.iter().find(|m| !m.runs_on_cpu()) {
            Some(m) => Err(format!(
                "--method {m}: runs on the GPU only (its GPU figures: --device cuda)"
            )),
            None => Ok(()),
        },
    }
}

/// Element-wise `add_slices` throughput on the CPU for `method`, over `n` pairs of values with
/// log2 magnitudes uniform in [−8, 8] and random signs (so half the adds are subtractions, and
/// inputs land across the whole s_b / d_b domain rather than mostly beyond the essential zero),
/// on all threads; median of `runs`.
pub fn cpu_add_throughput(
    format: Format,
    method: Method,
    n: usize,
    runs: usize,
) -> Result<CpuRow, LnsError> {
    let eval = method
        .cpu(format)?
        .ok_or_else(|| LnsError::Unsupported(format!("{method} has no CPU evaluator")))?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut value = || {
        let x = rng.random_range(-8.0..8.0f64).exp2();
        format.from_f64(if rng.random() { x } else { -x })
    };
    let a: Vec<u32> = (0..n).map(|_| value()).collect();
    let b: Vec<u32> = (0..n).map(|_| value()).collect();
    let mut out = vec![0u32; n];
    let mut failed = None;
    let mut samples = sigpu_runtime::host::time_cpu(runs, || {
        if let Err(e) = format.add_slices(&eval, &a, &b, &mut out) {
            failed = Some(e);
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    std::hint::black_box(&out);
    let median_s = sigpu_runtime::cuda::median(&mut samples);
    Ok(CpuRow {
        method: method.to_string(),
        threads: rayon::current_num_threads(),
        elements: n,
        median_s,
        g_adds_per_s: n as f64 / median_s / 1e9,
    })
}

/// The text `sigpu bench lns --device cpu` prints for `rows` measured in `format`.
pub fn cpu_text(format: Format, rows: &[CpuRow]) -> String {
    format!(
        "{format} add/sub on the CPU, {} elements (log2|x| in [-8, 8], random signs):\n{}",
        rows.first().map_or(0, |r| r.elements),
        crate::table::of(&["method", "threads", "G adds/s"], rows, |r| {
            let rate = format!("{:.3}", r.g_adds_per_s);
            vec![r.method.clone(), r.threads.to_string(), rate]
        })
    )
}

/// A streaming table: name, rate, GB/s and the share of the copy ceiling per row.
fn share_table(
    [name, rate]: [&str; 2],
    rows: impl Iterator<Item = (String, (f64, f64, f64))>,
) -> String {
    let header = [name, rate, "GB/s", "of copy"];
    crate::table::of(&header, rows, |(name, (rate, gb, of_copy))| {
        let share = format!("{:.1}%", 100.0 * of_copy);
        vec![name, format!("{rate:.1}"), format!("{gb:.0}"), share]
    })
}

impl Report {
    /// The report as text: Table 1 (every method and blend), then the streaming add and the
    /// fused reductions against the copy ceiling.
    pub fn text(&self) -> String {
        let report = self;
        let mut out = String::new();
        out += &format!(
            "{} {}: {} SMs at a measured {:.0} MHz, {} evaluations per launch\n",
            report.device, report.format, report.sms, report.sm_clock_mhz, report.evals_per_launch
        );
        let header = ["method", "lambda", "evaluates", "G evals/s", "cycles/warp"];
        out += &crate::table::of(&header, &report.rows, |r| {
            vec![
                r.method.clone(),
                r.lambda.map_or("-".into(), |l| format!("{l}/8")),
                if r.both { "s_b + d_b" } else { "s_b" }.into(),
                format!("{:.1}", r.g_evals_per_s),
                format!("{:.2}", r.cycles_per_warp),
            ]
        });
        let n = report.streaming.first().map_or(0, |r| r.elements);
        out += &format!("streaming add of {n} words (12 bytes per add):\n");
        let adds = report.streaming.iter().map(|r| {
            let rate = (r.g_adds_per_s, r.gb_per_s, r.fraction_of_copy);
            (r.method.clone(), rate)
        });
        out += &share_table(["method", "G adds/s"], adds);
        out += "fused reductions over the same words (4 bytes read per word):\n";
        let sums = report.reductions.iter().map(|r| {
            let rate = (r.g_elems_per_s, r.gb_per_s, r.fraction_of_copy);
            (r.op.to_string(), rate)
        });
        out += &share_table(["op", "G elements/s"], sums);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_add_throughput_measures_cpu_methods_and_refuses_gpu_only_ones() {
        let row = cpu_add_throughput(Format::LNS16, Method::F64Poly, 1 << 12, 2).unwrap();
        assert_eq!((row.method.as_str(), row.elements), ("f64poly", 1 << 12));
        assert!(row.g_adds_per_s > 0.0);
        assert!(cpu_add_throughput(Format::LNS16, Method::Sfu, 16, 1).is_err());
        assert_eq!(default_cpu_methods().len(), 3);
    }
}

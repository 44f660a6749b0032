//! `sigpu clns fft`: radix-2 FFT accuracy in CLNS against fixed point, f16 and bf16 at equal bits
//! per component (SNR vs rustfft's f64), the word size fixed point needs to match each CLNS row,
//! the CLNS paper's f32-radian variant, and on a GPU the batched CLNS FFT's SNR and speed.

use super::TextTable;
use anyhow::{bail, Context, Result};
use num_complex::Complex;
use serde::{Deserialize, Serialize};
use sigpu_clns::fft::{self, Scaling, SnrRow};
use sigpu_clns::gpu::GpuClns;
use sigpu_clns::{radian, Clns, ClnsFormat, Geometry, Method};
use sigpu_plot::{LineChart, Series};
use sigpu_runtime::cuda::{time_gpu, Gpu};
use std::path::Path;

/// What to transform and compare.
#[derive(Clone, Debug)]
pub struct FftOptions {
    /// Transform length N (a power of two).
    pub size: usize,
    /// Transforms per run.
    pub batch: usize,
    /// Word sizes per component (CLNS: log i5f(b−5) + b-bit angle).
    pub bits: Vec<u32>,
    /// S_b method of the CLNS FFT: f64, tex or fma.
    pub method: Method,
    /// Seed of the random input signals.
    pub seed: u64,
}

impl FftOptions {
    /// Refuses sizes, batches and methods the experiment cannot run (errors name the flags).
    pub fn check(&self, on_gpu: bool) -> Result<()> {
        let (n, batch, method) = (self.size, self.batch, self.method);
        if !n.is_power_of_two() || !(2..=1 << 16).contains(&n) {
            bail!("--size {n}: a power of two from 2 to 65536");
        }
        if batch == 0 || batch.checked_mul(n).is_none_or(|len| len > 1 << 26) {
            bail!("--batch {batch}: 1 ≤ batch and batch × size ≤ 2^26");
        }
        if !method.runs_on_cpu() {
            bail!("--method {method}: the CPU twin runs f64, tex or fma");
        }
        if on_gpu && n > 4096 {
            bail!("--size {n}: the GPU FFT takes sizes up to 4096");
        }
        Ok(())
    }
}

/// `sigpu clns fft`: SNR per word size, the fixed-point sizes that match, the f32-radian
/// variant, and the GPU rows when a GPU ran.
#[derive(Clone, Debug, Serialize)]
pub struct FftReport {
    /// The S_b method of the CLNS FFTs.
    pub method: String,
    /// SNR against rustfft's f64 of CLNS, fixed point, f16 and bf16, one row per word size.
    pub snr: Vec<SnrRow>,
    /// Word size fixed point (per-stage scaling / input scaling) needs to match each CLNS row.
    pub fixed_bits_to_match: Vec<(u32, Option<u32>, Option<u32>)>,
    /// The CLNS paper's f32-radian variant (64-bit word), with the other 64-bit-word FFTs.
    pub f32_variant: fft::F32Row,
    /// The batched GPU FFT, one row per word size (empty without a GPU).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gpu: Vec<GpuFftRow>,
    /// What limits the figures, when something other than the word size does (e.g. the S_b
    /// method capping the SNR), and what to use instead.
    pub notes: Vec<String>,
}

/// The batched CLNS FFT of one format on a GPU: its SNR and speed.
#[derive(Clone, Debug, Serialize)]
pub struct GpuFftRow {
    /// The GPU's name and architecture.
    pub device: String,
    /// The CLNS format.
    pub format: String,
    /// SNR against rustfft's f64, in dB.
    pub snr_db: f64,
    /// Its throughput (flattened into this row in JSON).
    #[serde(flatten)]
    pub timing: FftRow,
}

/// GPU FFT throughput: `batch` transforms of `n` in one launch.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FftRow {
    /// The S_b method.
    pub method: String,
    /// Transform length.
    pub n: usize,
    /// Transforms per launch.
    pub batch: usize,
    /// Median time of one launch, in ms.
    pub median_ms: f64,
    /// Transforms per second at the median.
    pub transforms_per_s: f64,
    /// Radix-2 butterflies (n/2 · log2 n per transform) per second, in G.
    pub g_butterflies_per_s: f64,
}

/// Runs the comparison on the CPU, and on `gpu` too when given; `progress` hears each word size.
pub fn run(opts: &FftOptions, gpu: Option<&Gpu>, progress: &dyn Fn(&str)) -> Result<FftReport> {
    opts.check(gpu.is_some())?;
    let (n, method) = (opts.size, opts.method);
    let x = fft::random_input(n, opts.batch, opts.seed);
    let (mut snr, mut gpu_rows) = (Vec::new(), Vec::new());
    for &bits in &opts.bits {
        let format = ClnsFormat::with_bits(bits)?;
        if n.trailing_zeros() > bits {
            bail!(
                "--bits {bits}: an N = {n} FFT needs angles of at least log2 N = {} bits",
                n.trailing_zeros()
            );
        }
        progress(&format!("{bits} bits"));
        let g = Geometry::default_for(format);
        let m = method.cpu(format, g)?.context("CPU evaluator")?;
        snr.push(fft::snr_row(format, &m, bits, &x, n)?);
        if let Some(gpu) = gpu {
            gpu_rows.push(gpu_row(gpu, format, method, &x, opts)?);
        }
    }
    // Fixed point from 4 to 32 bits, for the bits-to-match column.
    let want = fft::reference_fft(&x, n)?;
    let scaled: Vec<_> = want.iter().map(|w| w / n as f64).collect();
    let sweep = |s: Scaling| -> Result<Vec<(u32, f64)>> {
        (4..=32)
            .map(|b| Ok((b, fft::snr_db(&fft::fixed_fft(&x, n, b, s)?, &scaled))))
            .collect()
    };
    let (per_stage, input) = (sweep(Scaling::PerStage)?, sweep(Scaling::Input)?);
    // The f32-radian variant reads the same S_b table (its contents do not depend on the
    // code format; clns16's default geometry).
    let table_format = ClnsFormat::CLNS16;
    let m32 = radian::evaluator(method, table_format, Geometry::default_for(table_format))?
        .context("CPU evaluator")?;
    let f32_variant = fft::f32_row(&m32, &method.to_string(), &x, n)?;
    let fixed_bits_to_match = snr
        .iter()
        .map(|r| {
            let bits_for = |sweep: &[(u32, f64)]| fft::fixed_bits_for(sweep, r.clns_db);
            (r.bits, bits_for(&per_stage), bits_for(&input))
        })
        .collect();
    let notes = cap_note(&method.to_string(), &snr).into_iter().collect();
    Ok(FftReport {
        method: method.to_string(),
        fixed_bits_to_match,
        snr,
        f32_variant,
        gpu: gpu_rows,
        notes,
    })
}

/// A note when the CLNS SNR stops rising with the word size (less than 1 dB per added bit
/// while fixed point still gains over 3 dB per bit): the S_b method's own error, not the word,
/// then sets the SNR.
fn cap_note(method: &str, snr: &[SnrRow]) -> Option<String> {
    let first = snr.windows(2).position(|w| {
        let db = (w[1].bits - w[0].bits).max(1) as f64;
        w[1].clns_db - w[0].clns_db < db && w[1].fixed_db - w[0].fixed_db > 3.0 * db
    })?;
    let (from, cap) = (snr[first + 1].bits, snr[first].clns_db);
    let why = match method {
        "tex" => {
            "the texture S_b table's interpolation error (the GPU filter's weights have 8 \
             fractional bits)"
        }
        "f64" => "the S_b evaluation",
        _ => "the S_b method's own error",
    };
    let instead = if method == "f64" {
        String::new()
    } else {
        "; use --method f64 (S_b in double precision, the accuracy ceiling) to see what the \
         words alone allow"
            .into()
    };
    Some(format!(
        "note: the CLNS SNR stops rising at about {cap:.1} dB from {from} bits on with S_b by \
         {method}: {why} limits it there, not the word size, so fixed point overtakes CLNS at larger words{instead}"
    ))
}

/// The GPU FFT of `x` in `format`: its SNR against f64 and its throughput.
fn gpu_row(
    gpu: &Gpu,
    format: ClnsFormat,
    method: Method,
    x: &[Complex<f64>],
    opts: &FftOptions,
) -> Result<GpuFftRow> {
    let n = opts.size;
    let t = GpuClns::new(gpu, format, Geometry::default_for(format))?;
    let words: Vec<[u32; 2]> = x
        .iter()
        .map(|&c| format.from_complex(c).to_pair())
        .collect();
    let mut d = gpu.upload(&words)?;
    t.fft(method, &mut d, n)?;
    let got: Vec<_> = gpu
        .download(&d)?
        .into_iter()
        .map(|p| format.to_complex(Clns::from_pair(p)))
        .collect();
    let want = fft::reference_fft(x, n)?;
    Ok(GpuFftRow {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        format: format.to_string(),
        snr_db: fft::snr_db(&got, &want),
        timing: throughput(gpu, &t, method, n, opts.batch)?,
    })
}

/// Times the batched GPU FFT of random inputs (each run on its own copy: 12 copies of the
/// batch on the device).
pub fn throughput(
    gpu: &Gpu,
    g: &GpuClns,
    method: Method,
    n: usize,
    batch: usize,
) -> Result<FftRow> {
    let x = fft::random_input(n, batch, 5);
    let data: Vec<[u32; 2]> = x
        .iter()
        .map(|&c| g.format.from_complex(c).to_pair())
        .collect();
    // Every run transforms fresh input: the FFT is unscaled and in place, so rerunning it on
    // its own output grows magnitudes by ~√N a pass until they overflow to ∞ and NaN, whose
    // adds take the special-value shortcut and skip S_b (timings then ~3× too fast).
    let (warmup, runs) = (2, 10);
    let mut buffers = (0..warmup + runs)
        .map(|_| gpu.upload(&data))
        .collect::<Result<Vec<_>, _>>()?;
    let mut fresh = buffers.iter_mut();
    let t = time_gpu(gpu, warmup, runs, || match fresh.next() {
        Some(d) => g.fft(method, d, n),
        None => unreachable!("time_gpu launches warmup + runs times"),
    })?;
    let s = t.median_ms * 1e-3;
    Ok(FftRow {
        method: method.to_string(),
        n,
        batch,
        median_ms: t.median_ms,
        transforms_per_s: batch as f64 / s,
        g_butterflies_per_s: (batch * n / 2 * n.trailing_zeros() as usize) as f64 / s / 1e9,
    })
}

/// SNR against bits per component: `rows` are [bits, CLNS dB, fixed point scaled 1/2 per
/// stage dB, fixed point with the input scaled by 1/N dB] (also how saved results are redrawn).
pub fn snr_chart(method: &str, n: usize, rows: &[[f64; 4]]) -> LineChart {
    let line = |name: String, k: usize| Series {
        name,
        points: rows.iter().map(|r| (r[0], r[k])).collect(),
    };
    let how = match method {
        "tex" => "texture table",
        "fma" => "FMA polynomial",
        "f64" => "f64",
        other => other,
    };
    LineChart {
        title: format!("FFT N = {n}: SNR against f64 at equal bits per component"),
        x_label: "bits per component (real and imaginary, or log-magnitude and angle)".into(),
        y_label: "SNR against an f64 FFT (dB)".into(),
        log_x: false,
        log_y: false,
        series: vec![
            line(format!("CLNS, S_b by {how}"), 1),
            line("fixed point, scaled 1/2 per stage".into(), 2),
            line("fixed point, input scaled by 1/N".into(), 3),
        ],
    }
}

impl FftReport {
    /// The text `sigpu clns fft` prints for a run of `opts`: the table, the summary, the notes.
    pub fn text(&self, opts: &FftOptions) -> String {
        let mut out = format!(
            "FFT N = {}, batch {}, SNR (dB) vs rustfft f64; CLNS S_b by {}:\n{}",
            opts.size,
            opts.batch,
            opts.method,
            self.table().render()
        );
        for line in self.summary().iter().chain(&self.notes) {
            out += line;
            out += "\n";
        }
        out
    }

    /// SNR against bits per component, CLNS and both fixed-point scalings, to BASE.{svg,png}.
    pub fn plot(&self, n: usize, base: &Path) -> Result<()> {
        let rows: Vec<[f64; 4]> = (self.snr.iter())
            .map(|r| {
                [
                    r.bits as f64,
                    r.clns_db,
                    r.fixed_db,
                    r.fixed_input_scaled_db,
                ]
            })
            .collect();
        snr_chart(&self.method, n, &rows)
            .write(base)
            .with_context(|| format!("--plot {}", base.display()))
    }

    /// The SNR table: one row per word size.
    pub fn table(&self) -> TextTable {
        let opt = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.1}"));
        let bits = |b: Option<u32>| b.map_or("-".into(), |b| b.to_string());
        TextTable::new(
            &[
                "bits",
                "CLNS format",
                "CLNS",
                "fixed (1/2 per stage)",
                "fixed (input / N)",
                "f16",
                "bf16",
                "fixed bits to match",
            ],
            self.snr.iter().zip(&self.fixed_bits_to_match),
            |(r, m)| {
                vec![
                    r.bits.to_string(),
                    r.clns_format.clone(),
                    format!("{:.1}", r.clns_db),
                    format!("{:.1}", r.fixed_db),
                    format!("{:.1}", r.fixed_input_scaled_db),
                    opt(r.f16_db),
                    opt(r.bf16_db),
                    format!("{} / {}", bits(m.1), bits(m.2)),
                ]
            },
        )
    }

    /// The lines after the table: the f32-radian variant, then each GPU row.
    pub fn summary(&self) -> Vec<String> {
        let v = &self.f32_variant;
        let mut lines = vec![format!(
            "CLNS-f32 (Vouzis & Arnold's log2|X| and angle in radians, f32 each: a 64-bit word, 32 bits \
             per component), S_b by {}: {:.1} dB; other 64-bit words: fixed point 32-bit \
             per component {:.1} dB (1/2 per stage) / {:.1} dB (input / N), complex f32 {:.1} dB",
            self.method, v.clns_f32_db, v.fixed32_db, v.fixed32_input_scaled_db, v.complex_f32_db
        )];
        for r in &self.gpu {
            lines.push(format!(
                "GPU {} {}: SNR {:.1} dB, {:.3} ms for {} transforms: {:.2} M transforms/s, {:.1} G butterflies/s",
                r.device, r.format, r.snr_db, r.timing.median_ms, r.timing.batch,
                r.timing.transforms_per_s / 1e6, r.timing.g_butterflies_per_s
            ));
        }
        lines
    }
}

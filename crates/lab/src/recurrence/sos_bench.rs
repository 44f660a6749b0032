//! `sigpu bench filter --sos`: the fused second-order-section cascade timed on a GPU with CUDA
//! events, against the device's copy ceiling, with its error checked at the benchmarked size
//! against a serial f64 cascade (and the serial cascade in the element type, as scipy's
//! `sosfilt` runs it, beside it: the accuracy contract's yardstick).

use super::bench::bench_input;
use anyhow::{Context, Result};
use serde::Serialize;
use sigpu_recurrence::gpu::DeviceFilter;
use sigpu_recurrence::{Element, GpuSos, Recurrence, SosConfig};
use sigpu_runtime::cuda::cudarc::driver::sys::CUfunction_attribute_enum as Attr;
use sigpu_runtime::cuda::{copy_bandwidth, gb_per_s, gelem_per_s, Gpu, Timing};

/// The benchmark's filters: scipy.signal.butter(8, 0.1, output='sos') (max |pole| 0.941) and
/// butter(8, 0.02, output='sos') (poles to 0.988, factor tables over the whole segment).
pub use sigpu_recurrence::testing::{BUTTER8_002, BUTTER8_01};

/// One timed configuration of the cascade.
#[derive(Clone, Debug, Serialize)]
pub struct SosRow {
    /// The filter's name (`butter8_01`, or the one given).
    pub filter: String,
    /// Second-order sections in the cascade.
    pub sections: usize,
    /// Element type (`f32`).
    pub dtype: String,
    /// The GPU's name and architecture.
    pub device: String,
    /// Samples filtered (one channel).
    pub n: usize,
    /// Launch shape, threads × values per thread.
    pub shape: String,
    /// The compiled kernel's registers per thread and local (spill) bytes, and how many blocks
    /// the driver fits on one SM.
    pub registers: i32,
    /// Local memory per thread, in bytes (register spills); −1 if the driver does not say.
    pub local_bytes: i32,
    /// Resident blocks per SM at this shape (0 if the driver does not say).
    pub blocks_per_sm: u32,
    /// Median time of one cascade over `n` samples, in ms.
    pub median_ms: f64,
    /// Throughput: 10^9 samples per second at the median.
    pub g_samples_per_s: f64,
    /// Read + write bytes per second.
    pub gb_per_s: f64,
    /// `gb_per_s` as a percentage of the device's copy bandwidth.
    pub percent_of_copy: f64,
    /// max |y − y_ref| / max |y_ref| against a serial f64 cascade of the same (rounded)
    /// coefficients; NaN when not checked.
    pub error: f64,
    /// The serial cascade in the element type (scipy's sosfilt loop) against the same
    /// reference: the contract asks `error <= 4 × serial_error`.
    pub serial_error: f64,
    /// Every timed run.
    pub timing: Timing,
}

/// What `--sos` measures.
#[derive(Clone, Debug)]
pub struct SosBench {
    /// The filter's name, as rows carry it.
    pub name: String,
    /// The sections, scipy's `sos` layout: b0 b1 b2 a0 a1 a2 per row.
    pub sos: Vec<[f64; 6]>,
    /// Signal lengths to time.
    pub sizes: Vec<usize>,
    /// Launch shapes to time at every length (GPU; the CPU run ignores them).
    pub shapes: Vec<SosConfig>,
    /// Untimed runs before the timed ones.
    pub warmup: usize,
    /// Timed runs; rows report their median.
    pub runs: usize,
    /// Check the error at lengths up to this one (the checks are serial passes).
    pub check_up_to: Option<usize>,
}

/// The report `--sos` prints and writes.
#[derive(Serialize)]
pub struct SosReport {
    /// The GPU's name and architecture.
    pub device: String,
    /// The device's best copy bandwidth, GB/s: the ceiling `percent_of_copy` divides by.
    pub copy_gb_per_s: f64,
    /// One row per length and shape.
    pub rows: Vec<SosRow>,
}

/// Runs `bench` in f32 on `gpu`; `progress(done, what)` before each size.
pub fn measure_sos(
    gpu: &Gpu,
    bench: &SosBench,
    progress: &mut dyn FnMut(usize, &str),
) -> Result<SosReport> {
    let copy = copy_bandwidth(gpu, 1 << 30, 3, 20)?.best_gb_per_s;
    let mut rows = Vec::new();
    for (i, &n) in bench.sizes.iter().enumerate() {
        progress(i, &format!("{} f32 2^{}", bench.name, n.trailing_zeros()));
        super::bench::check_host_memory(
            8 * n as u64,
            &format!("--sos f32 at 2^{}", n.trailing_zeros()),
        )?;
        let x = bench_input::<f32>(n, 1);
        let check = bench.check_up_to.is_some_and(|l| n <= l);
        for (k, &shape) in bench.shapes.iter().enumerate() {
            rows.push(time_shape(gpu, bench, &x, shape, copy, check && k == 0)?);
        }
    }
    Ok(SosReport {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        copy_gb_per_s: copy,
        rows,
    })
}

fn time_shape<T: Element>(
    gpu: &Gpu,
    bench: &SosBench,
    x: &[T],
    shape: SosConfig,
    copy: f64,
    check: bool,
) -> Result<SosRow> {
    let n = x.len();
    let g = GpuSos::<T>::with_config(gpu, &bench.sos, shape)
        .with_context(|| format!("--sos {} with shape {shape:?}", bench.name))?;
    let dx = gpu.upload(x)?;
    let mut dy = gpu.alloc_poisoned::<T>(n)?;
    let timing = g.time_run(gpu, (bench.warmup, bench.runs), &dx, &mut dy, 1, None, None)?;
    let (error, serial_error) = if check {
        let y = gpu.download(&dy)?;
        streaming_errors(g.coefficients(), x, &y)
    } else {
        (f64::NAN, f64::NAN)
    };
    let f = g.kernel().function();
    let attr = |a| f.get_attribute(a).unwrap_or(-1);
    let cfg = g.config();
    let bytes = 2.0 * std::mem::size_of_val(x) as f64;
    let gb = gb_per_s(bytes, timing.median_ms);
    Ok(SosRow {
        filter: bench.name.clone(),
        sections: g.sections(),
        dtype: T::DTYPE.to_string(),
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        n,
        shape: format!(
            "{}x{}{}",
            cfg.threads,
            cfg.vpt,
            if g.tables().tail {
                " tail"
            } else {
                " look-back"
            }
        ),
        registers: attr(Attr::CU_FUNC_ATTRIBUTE_NUM_REGS),
        local_bytes: attr(Attr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
        blocks_per_sm: f
            .occupancy_max_active_blocks_per_multiprocessor(cfg.threads as u32, 0, None)
            .unwrap_or(0),
        median_ms: timing.median_ms,
        g_samples_per_s: gelem_per_s(n as f64, timing.median_ms),
        gb_per_s: gb,
        percent_of_copy: 100.0 * gb / copy,
        error,
        serial_error,
        timing,
    })
}

/// (GPU error, serial-in-T error), both relative to max |y_ref| of a serial f64 cascade, in
/// one pass that keeps no reference array (2^28 samples need no extra memory).
pub fn streaming_errors<T: Element>(coefs: &[[T; 6]], x: &[T], y: &[T]) -> (f64, f64) {
    let c64: Vec<[f64; 6]> = coefs.iter().map(|r| r.map(|v| v.to_f64())).collect();
    let ns = coefs.len();
    let (mut z64, mut zt) = (vec![0.0f64; 2 * ns], vec![T::ZERO; 2 * ns]);
    let (mut scale, mut err, mut serial) = (0.0f64, 0.0f64, 0.0f64);
    let neg = |a: T| a.mul(T::from_f64(-1.0));
    for (xi, yi) in x.iter().zip(y) {
        let (mut u, mut ut) = (xi.to_f64(), *xi);
        for s in 0..ns {
            let c = &c64[s];
            let yv = c[0] * u + z64[2 * s];
            z64[2 * s] = c[1] * u - c[4] * yv + z64[2 * s + 1];
            z64[2 * s + 1] = c[2] * u - c[5] * yv;
            u = yv;
            let ct = &coefs[s];
            let yt = ct[0].mul(ut).add(zt[2 * s]);
            zt[2 * s] = ct[1].mul(ut).add(neg(ct[4].mul(yt))).add(zt[2 * s + 1]);
            zt[2 * s + 1] = ct[2].mul(ut).add(neg(ct[5].mul(yt)));
            ut = yt;
        }
        scale = scale.max(u.abs());
        let g = yi.to_f64();
        err = if g.is_nan() {
            f64::INFINITY
        } else {
            err.max((g - u).abs())
        };
        serial = serial.max((ut.to_f64() - u).abs());
    }
    let scale = scale.max(f64::MIN_POSITIVE);
    (err / scale, serial / scale)
}

/// One CPU measurement of the section engine (f64, one channel).
#[derive(Clone, Debug, Serialize)]
pub struct SosCpuRow {
    /// The filter's name.
    pub filter: String,
    /// Second-order sections in the cascade.
    pub sections: usize,
    /// Element type (`f64`).
    pub dtype: String,
    /// Samples filtered (one channel).
    pub n: usize,
    /// Worker threads the engine was allowed.
    pub threads: usize,
    /// The section engine's instruction set.
    pub kernel: String,
    /// The method the accuracy contract chose (`sos` blocked, `sos-serial`).
    pub method: String,
    /// `Sos::new` the first time in the process: checks, factor tables and transfer matrix
    /// (double-double), error bounds.
    pub setup_first_ms: f64,
    /// `Sos::new` later (the tables come from the per-process cache).
    pub setup_ms: f64,
    /// The engine alone: `Sos::apply_batch` into an output that is reused between runs.
    pub engine_ms: f64,
    /// The engine's throughput: 10^6 samples per second at `engine_ms`.
    pub engine_m_samples_per_s: f64,
    /// The library call scipy's `sosfilt` maps to (`signal::sosfilt`, what the Python package
    /// runs): set-up, a fresh output, the non-finite check, zf handling.
    pub library_ms: f64,
    /// The library call's throughput: 10^6 samples per second at `library_ms`.
    pub library_m_samples_per_s: f64,
    /// Min and max of the library call's timed runs.
    pub library_range_ms: [f64; 2],
    /// max |y − y_ref| / max |y_ref| against a serial f64 cascade; NaN when not checked.
    pub error: f64,
    /// scipy's serial loop in f64 against the same reference.
    pub serial_error: f64,
}

/// The CPU report: rows and the machine's load average when measured.
#[derive(Serialize)]
pub struct SosCpuReport {
    /// The CPU: threads and the section engine's instruction set.
    pub device: String,
    /// The 1-, 5- and 15-minute load averages when measured (Linux only): a busy machine slows
    /// the rows.
    pub load_average: Option<[f64; 3]>,
    /// One row per length.
    pub rows: Vec<SosCpuRow>,
}

/// Runs `bench` on `gpu` ([`measure_sos`]) or, without one, on the CPU cores
/// ([`measure_sos_cpu`] on `threads`): the report as JSON and as text.
pub fn measure_on(
    gpu: Option<&Gpu>,
    bench: &SosBench,
    threads: Option<usize>,
    progress: &mut dyn FnMut(usize, &str),
) -> Result<(serde_json::Value, String)> {
    Ok(match gpu {
        Some(gpu) => {
            let report = measure_sos(gpu, bench, progress)?;
            (serde_json::to_value(&report)?, render_sos(&report))
        }
        None => {
            let report = measure_sos_cpu(bench, threads, progress)?;
            (serde_json::to_value(&report)?, render_sos_cpu(&report))
        }
    })
}

/// Times the CPU section engine in f64 on `threads` threads (None: all): engine and library
/// call interleaved in each round, medians of `bench.runs`.
pub fn measure_sos_cpu(
    bench: &SosBench,
    threads: Option<usize>,
    progress: &mut dyn FnMut(usize, &str),
) -> Result<SosCpuReport> {
    use sigpu_recurrence::{signal, FilterOptions, Sos};
    use std::time::Instant;
    let options = FilterOptions {
        threads,
        ..FilterOptions::default()
    };
    let threads = threads.unwrap_or_else(sigpu_runtime::host::threads);
    let kernel = sigpu_recurrence::cpu::sos_isa(&options.cpu);
    let t = Instant::now();
    Sos::<f64>::new(&bench.sos, options)?;
    let setup_first_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut rows = Vec::new();
    for (i, &n) in bench.sizes.iter().enumerate() {
        progress(i, &format!("{} f64 2^{}", bench.name, n.trailing_zeros()));
        super::bench::check_host_memory(
            24 * n as u64,
            &format!("--sos f64 at 2^{}", n.trailing_zeros()),
        )?;
        let x = bench_input::<f64>(n, 1);
        let mut y = vec![0.0f64; n];
        let (mut setup, mut engine, mut library) = (Vec::new(), Vec::new(), Vec::new());
        let mut last = None;
        for r in 0..bench.warmup + bench.runs {
            let t = Instant::now();
            let f = Sos::<f64>::new(&bench.sos, options)?;
            let t_setup = t.elapsed().as_secs_f64();
            let t = Instant::now();
            f.apply_batch(&x, 1, &mut y, None, None)?;
            let t_engine = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let out = signal::sosfilt(&bench.sos, &x, &[n], -1, None, &options)?;
            let t_library = t.elapsed().as_secs_f64();
            std::hint::black_box(&out.y);
            if r >= bench.warmup {
                setup.push(t_setup);
                engine.push(t_engine);
                library.push(t_library);
            }
            last = Some((f.report().method.name().to_string(), out.y));
        }
        let (method, ylib) = last.context("no runs")?;
        let check = bench.check_up_to.is_some_and(|l| n <= l);
        let (error, serial_error) = if check {
            let coefs: Vec<[f64; 6]> = bench.sos.clone();
            let (e1, s1) = streaming_errors(&coefs, &x, &y);
            let (e2, _) = streaming_errors(&coefs, &x, &ylib);
            (e1.max(e2), s1)
        } else {
            (f64::NAN, f64::NAN)
        };
        let med = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2] * 1e3
        };
        let range = [
            library.iter().cloned().fold(f64::INFINITY, f64::min) * 1e3,
            library.iter().cloned().fold(0.0, f64::max) * 1e3,
        ];
        let (setup_ms, engine_ms, library_ms) =
            (med(&mut setup), med(&mut engine), med(&mut library));
        rows.push(SosCpuRow {
            filter: bench.name.clone(),
            sections: bench.sos.len(),
            dtype: "f64".into(),
            n,
            threads,
            kernel: kernel.name().into(),
            method,
            setup_first_ms,
            setup_ms,
            engine_ms,
            engine_m_samples_per_s: n as f64 / engine_ms / 1e3,
            library_ms,
            library_m_samples_per_s: n as f64 / library_ms / 1e3,
            library_range_ms: range,
            error,
            serial_error,
        });
    }
    Ok(SosCpuReport {
        device: format!("cpu ({threads} threads, {})", kernel.name()),
        load_average: load_average(),
        rows,
    })
}

/// /proc/loadavg's three figures (Linux).
fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = text.split_whitespace().map(|v| v.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// The CPU report as a text table.
pub fn render_sos_cpu(report: &SosCpuReport) -> String {
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|r| {
            vec![
                r.filter.clone(),
                format!("2^{}", r.n.trailing_zeros()),
                r.method.clone(),
                format!("{:.2}/{:.3}", r.setup_first_ms, r.setup_ms),
                format!("{:.3}", r.engine_ms),
                format!("{:.0}", r.engine_m_samples_per_s),
                format!("{:.3}", r.library_ms),
                format!("{:.0}", r.library_m_samples_per_s),
                format!("{:.2e}", r.error),
                format!("{:.2e}", r.serial_error),
            ]
        })
        .collect();
    let mut out = report.device.clone();
    if let Some(l) = report.load_average {
        out += &format!(", load {:.2} {:.2} {:.2}", l[0], l[1], l[2]);
    }
    out += "\n";
    out += &crate::table::render(
        &[
            "filter",
            "n",
            "method",
            "setup ms 1st/later",
            "engine ms",
            "engine M/s",
            "sosfilt ms",
            "sosfilt M/s",
            "error",
            "serial error",
        ],
        &rows,
    );
    out
}

/// The report as a text table.
pub fn render_sos(report: &SosReport) -> String {
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|r| {
            vec![
                r.filter.clone(),
                r.dtype.clone(),
                format!("2^{}", r.n.trailing_zeros()),
                r.shape.clone(),
                format!("{}/{}/{}", r.registers, r.local_bytes, r.blocks_per_sm),
                format!("{:.4}", r.median_ms),
                format!("{:.1}", r.g_samples_per_s),
                format!("{:.1}", r.gb_per_s),
                format!("{:.1}%", r.percent_of_copy),
                format!("{:.2e}", r.error),
                format!("{:.2e}", r.serial_error),
            ]
        })
        .collect();
    let mut out = format!("{}, copy {:.1} GB/s\n", report.device, report.copy_gb_per_s);
    out += &crate::table::render(
        &[
            "filter",
            "dtype",
            "n",
            "shape",
            "regs/local/blk",
            "median ms",
            "G samples/s",
            "GB/s",
            "of copy",
            "error",
            "serial error",
        ],
        &rows,
    );
    out
}

/// `--sos` values: `butter8` (the benchmark's butter(8, 0.1)), `butter8-0.02`, or rows `b0,b1,b2,a0,a1,a2`
/// separated by `;`.
pub fn parse_sos(spec: &str) -> Result<(String, Vec<[f64; 6]>)> {
    let spec = spec.trim();
    if spec.is_empty() || spec == "butter8" {
        return Ok(("butter(8, 0.1)".into(), BUTTER8_01.to_vec()));
    }
    if spec == "butter8-0.02" {
        return Ok(("butter(8, 0.02)".into(), BUTTER8_002.to_vec()));
    }
    let mut rows = Vec::new();
    for (r, row) in spec.split(';').enumerate() {
        let vals: Vec<f64> = row
            .split(',')
            .map(|v| {
                v.trim()
                    .parse::<f64>()
                    .with_context(|| format!("--sos row {r}: {v:?} is not a number"))
            })
            .collect::<Result<_>>()?;
        let row: [f64; 6] = vals.try_into().map_err(|v: Vec<f64>| {
            anyhow::anyhow!("--sos row {r} has {} values; a section has 6", v.len())
        })?;
        rows.push(row);
    }
    Ok((format!("{} section(s)", rows.len()), rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sos_spec_parses_and_names_bad_rows() {
        assert_eq!(parse_sos("butter8").unwrap().1.len(), 4);
        let (_, rows) = parse_sos("1,0,0,1,-0.5,0; 1,2,1,1,0,0").unwrap();
        assert_eq!(rows[1], [1.0, 2.0, 1.0, 1.0, 0.0, 0.0]);
        let e = parse_sos("1,0,0,1,-0.5").unwrap_err().to_string();
        assert!(e.contains("row 0 has 5 values"), "{e}");
        let e = parse_sos("1,0,0,1,x,0").unwrap_err().to_string();
        assert!(e.contains("row 0") && e.contains("\"x\""), "{e}");
    }

    #[test]
    fn streaming_errors_see_a_wrong_output() {
        let coefs: Vec<[f32; 6]> = BUTTER8_01.iter().map(|r| r.map(|v| v as f32)).collect();
        let x: Vec<f32> = (0..5000)
            .map(|i| ((i * 31) % 17) as f32 / 8.0 - 1.0)
            .collect();
        let (y, _) = sigpu_recurrence::gpu::sos_tables::sosfilt_serial(&coefs, &x, 1, None);
        let (err, serial) = streaming_errors(&coefs, &x, &y);
        assert_eq!(err, serial);
        assert!(serial > 0.0 && serial < 1e-5, "{serial}");
        let mut bad = y.clone();
        bad[4000] += 0.01;
        assert!(streaming_errors(&coefs, &x, &bad).0 > 1e-3);
    }
}

//! `sigpu bench filter`'s measurement: PLR's suite (or given signatures) over one length
//! or a sweep of lengths, on a GPU (each launch shape, against the copy ceiling and the copy at
//! each length) or on the CPU cores, and the report these measurements make.

use super::bench::{bench_cpu, bench_gpu, bench_input, BenchRow, GpuBench};
use anyhow::{bail, Context, Result};
use serde::Serialize;
use serde_json::Value;
use sigpu_recurrence::{with_dtype, DType, Element, Filter, FilterOptions, GpuConfig};
use sigpu_runtime::cuda::{copy_bandwidth, Gpu};
use std::path::Path;

/// PLR's signatures (slides 9, 21–27) with the element types its plots use.
pub const GPU_SUITE: [(&str, DType); 8] = [
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
pub const CPU_SUITE: [(&str, DType); 4] = [
    ("(0.2 : 0.8)", DType::F64),
    ("(0.04 : 1.6, -0.64)", DType::F64),
    ("(0.1 : 0.9, 0.05, -0.1)", DType::F64),
    ("(0.1 : 0.5, 0.2, 0.1, -0.05)", DType::F64),
];

/// What one run of the benchmark measures.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// (signature, element type) pairs, in order.
    pub cases: Vec<(String, DType)>,
    /// Sequence lengths.
    pub sizes: Vec<usize>,
    /// GPU launch shapes (the CPU ignores them).
    pub shapes: Vec<GpuConfig>,
    /// Untimed runs before the timed ones.
    pub warmup: usize,
    /// Timed runs; rows report their median.
    pub runs: usize,
    /// Also time with the factor optimisations off.
    pub compare_optimize: bool,
    /// Check results against the reference, at lengths up to this one.
    pub check_up_to: Option<usize>,
}

impl Sweep {
    /// `signatures` in `dtype`, or the suite of the device when none is given.
    pub fn cases(signatures: &[String], dtype: DType, gpu: bool) -> Vec<(String, DType)> {
        if signatures.is_empty() {
            let suite: &[(&str, DType)] = if gpu { &GPU_SUITE } else { &CPU_SUITE };
            suite.iter().map(|(s, d)| (s.to_string(), *d)).collect()
        } else {
            signatures.iter().map(|s| (s.clone(), dtype)).collect()
        }
    }

    fn optimize_modes(&self) -> &'static [bool] {
        if self.compare_optimize {
            &[true, false]
        } else {
            &[true]
        }
    }

    /// Timed configurations (launch shapes aside): what a progress bar counts.
    pub fn steps(&self) -> usize {
        self.cases.len() * self.sizes.len() * self.optimize_modes().len()
    }
}

/// Everything one run measured; serialised as the report `--out` writes and `--from` reads.
#[serde_with::skip_serializing_none]
#[derive(Serialize)]
pub struct Report {
    /// The device of the first row (GPU name and architecture, or `cpu (model)`).
    pub device: String,
    /// The GPU's best copy bandwidth, read + write GB/s (none on the CPU).
    pub copy_gb_per_s: Option<f64>,
    /// Device-to-device copy at each benchmarked length: PLR's "memcpy" line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub copy_sweep: Vec<CopyPoint>,
    /// One row per case, length and shape.
    pub rows: Vec<BenchRow>,
}

/// The device-to-device copy at one length and element width: the ceiling a filter of that
/// length and type is plotted against.
#[derive(Serialize)]
pub struct CopyPoint {
    /// Elements copied.
    pub n: usize,
    /// Bytes per element.
    pub elem_bytes: usize,
    /// Time of one copy at the best measured bandwidth, in ms.
    pub median_ms: f64,
    /// Elements copied per ns (10^9 per second).
    pub gelem_per_s: f64,
}

/// Runs `sweep` on `gpu`, or on the CPU without one. `progress(done, what)` is called before
/// each of [`Sweep::steps`] steps.
pub fn measure(
    gpu: Option<&Gpu>,
    sweep: &Sweep,
    progress: &mut dyn FnMut(usize, &str),
) -> Result<Report> {
    let copy = match gpu {
        Some(g) => Some(copy_bandwidth(g, 1 << 30, 3, 20)?.best_gb_per_s),
        None => None,
    };
    let copy_sweep = match gpu {
        Some(g) if sweep.sizes.len() > 1 => copy_sweep(g, sweep)?,
        _ => Vec::new(),
    };
    let mut rows = Vec::new();
    let mut done = 0;
    for (sig, dtype) in &sweep.cases {
        for &n in &sweep.sizes {
            // x and y (and the GPU's output downloaded for the check) live on the host; the
            // check streams its reference.
            super::bench::check_host_memory(
                2 * (n * dtype.size()) as u64,
                &format!("{sig} {dtype} at 2^{}", n.trailing_zeros()),
            )?;
            with_dtype!(*dtype, T => {
                let x = bench_input::<T>(n, 1);
                for &optimize in sweep.optimize_modes() {
                    progress(done, &format!("{sig} {dtype} 2^{}", n.trailing_zeros()));
                    let filter = Filter::<T>::parse(sig, FilterOptions { optimize, ..FilterOptions::default() })
                        .with_context(|| format!("--signature {sig}"))?;
                    rows.extend(time_one(gpu, sweep, &filter, &x, copy)?);
                    done += 1;
                }
            });
        }
    }
    Ok(Report {
        device: rows.first().map(|r| r.device.clone()).unwrap_or_default(),
        copy_gb_per_s: copy,
        copy_sweep,
        rows,
    })
}

/// One filter at one length: a row per GPU launch shape, or one CPU row.
fn time_one<T: Element>(
    gpu: Option<&Gpu>,
    sweep: &Sweep,
    filter: &Filter<T>,
    x: &[T],
    copy_gb_per_s: Option<f64>,
) -> Result<Vec<BenchRow>> {
    let check = sweep.check_up_to.is_some_and(|l| x.len() <= l);
    let Some(gpu) = gpu else {
        return Ok(vec![bench_cpu(filter, x, sweep.runs, check)?]);
    };
    let mut rows = Vec::new();
    for (i, &config) in sweep.shapes.iter().enumerate() {
        let how = GpuBench {
            config,
            warmup: sweep.warmup,
            runs: sweep.runs,
            copy_gb_per_s,
            // The reference is a serial pass: check the first shape.
            check: check && i == 0,
        };
        rows.push(bench_gpu(gpu, filter, x, how)?);
    }
    Ok(rows)
}

/// Device-to-device copies of n elements for each length and element size benchmarked.
fn copy_sweep(gpu: &Gpu, sweep: &Sweep) -> Result<Vec<CopyPoint>> {
    let mut widths: Vec<usize> = sweep.cases.iter().map(|(_, d)| d.size()).collect();
    widths.sort_unstable();
    widths.dedup();
    let mut points = Vec::new();
    for &elem_bytes in &widths {
        for &n in &sweep.sizes {
            let bench = copy_bandwidth(gpu, n * elem_bytes, sweep.warmup, sweep.runs)?;
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

/// `A-B` or single exponents, comma-separated, as lengths.
pub fn parse_sizes(spec: &str) -> Result<Vec<usize>> {
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

/// `default` or `THREADSxVPT[d][n][/B]` (`d`: direct loads; `n`: warp 0 looks back, no
/// look-back warp).
pub fn parse_shape(t: &str) -> Result<GpuConfig> {
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
    let (warp0, t) = match t.strip_suffix('n') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (direct, t) = match t.strip_suffix('d') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (a, b) = t
        .split_once('x')
        .context("--shapes: expected THREADSxVPT[d][n][/B]")?;
    Ok(GpuConfig {
        threads: a.parse().with_context(|| format!("--shapes: {a:?}"))?,
        vpt: b.parse().with_context(|| format!("--shapes: {b:?}"))?,
        transpose: !direct,
        min_blocks,
        lookback_warp: !warp0,
    })
}

/// The longest length checked against the reference: none with `no_check`, else up to
/// 2^`up_to_log2` (every length when not given).
pub fn check_limit(no_check: bool, up_to_log2: Option<u32>) -> Option<usize> {
    (!no_check).then(|| up_to_log2.map_or(usize::MAX, |l| 1usize << l.min(62)))
}

/// A saved report (`--from`): JSON with a `rows` list.
pub fn load_report(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--from {}: cannot read", path.display()))?;
    serde_json::from_str::<Value>(&text)
        .with_context(|| format!("--from {}: not a bench report", path.display()))
}

/// `report` (measured, or [`load_report`]) checked to hold a `rows` list, with the peers of
/// `peers` ([`add_peers`]) when given: what `--out`, the charts and the table are made from.
pub fn with_peers(mut report: Value, peers: Option<&Path>) -> Result<Value> {
    if report.get("rows").and_then(Value::as_array).is_none() {
        bail!("the report has no \"rows\" list");
    }
    if let Some(path) = peers {
        add_peers(&mut report, path)?;
    }
    Ok(report)
}

/// Adds the `peers` list of the JSON that bench/peers/recurrence_peers.py prints to `report`.
pub fn add_peers(report: &mut Value, path: &Path) -> Result<()> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--peers {}: cannot read", path.display()))?;
    let peers: Value = serde_json::from_str(&text)
        .with_context(|| format!("--peers {}: not JSON", path.display()))?;
    let Some(list) = peers.get("peers").filter(|p| p.is_array()) else {
        bail!("--peers {}: no \"peers\" list", path.display());
    };
    report["peers"] = list.clone();
    Ok(())
}

/// A report (as measured, or read back from `--out` JSON with peers merged in) as a text
/// table: one row per signature, type, size and launch shape.
pub fn render(report: &serde_json::Value) -> String {
    use serde_json::Value;
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
    let rows: Vec<Vec<String>> = report["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let pct = num(r, "percent_of_copy");
            let opt = if r["optimize"].as_bool() == Some(false) {
                "off"
            } else {
                "on"
            };
            vec![
                text(r, "signature"),
                text(r, "dtype"),
                opt.into(),
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
    let head = [
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
    ];
    out += &crate::table::render(&head, &rows);
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
        let w = parse_shape("512x32dn").unwrap();
        assert!(!w.transpose && !w.lookback_warp);
        assert!(parse_shape("512x32").unwrap().lookback_warp);
        assert_eq!(parse_shape("default").unwrap(), GpuConfig::default());
        assert!(parse_shape("256").is_err());
    }
}

//! The CPU fast functions measured: error against f64, throughput on all threads, and the
//! time and error as a growing share of chunks takes the fast path (the λ curve of the CPU).

use super::microbench::error_cells;
use serde::Serialize;
use sigpu_approx::apps::Metric;
use sigpu_approx::cpu::{apply, errors, CpuFunction, SimdPath};
use sigpu_approx::numeric::{ErrorStats, Values};
use sigpu_runtime::host::CpuArch;

/// One CPU row: a function's fast and accurate versions, error and speed.
#[derive(Clone, Debug, Serialize)]
pub struct CpuRow {
    /// The function.
    pub function: CpuFunction,
    /// The vector loop measured (the best `arch` has).
    pub path: SimdPath,
    /// Worker threads (rayon's pool).
    pub threads: usize,
    /// Fast version on every element: 10^9 elements per second.
    pub fast_gelem_per_s: f64,
    /// Accurate version on every element: 10^9 elements per second.
    pub accurate_gelem_per_s: f64,
    /// The fast version's error over the documented domain.
    pub fast_domain: ErrorStats,
    /// The fast version's error over a wide range past it, where its failure modes show.
    pub fast_wide: ErrorStats,
    /// The accurate version's error over the documented domain.
    pub accurate_domain: ErrorStats,
    /// Time (s) and error (mean relative vs the all-accurate output) at fast shares 0, ¼, ½,
    /// ¾, 1: the λ curve of the CPU.
    pub split: Vec<(f64, f64, f64)>,
}

/// The CPU fast functions measured on this host, as `sigpu approx bench --device cpu`
/// reports them.
#[derive(Clone, Debug, Serialize)]
pub struct CpuBench {
    /// The CPU's model name.
    pub cpu: String,
    /// One row per function.
    pub rows: Vec<CpuRow>,
}

impl CpuBench {
    /// [`bench`] on this host's best path: errors over `samples` inputs, throughput over 2^24
    /// elements (median of 7 runs).
    pub fn measure(samples: usize) -> CpuBench {
        CpuBench {
            cpu: sigpu_runtime::host::HostInfo::detect().cpu_model,
            rows: bench(&CpuArch::host(), samples, 1 << 24, 7),
        }
    }

    /// The text printed for it: the CPU and the [`table`].
    pub fn text(&self) -> String {
        let (head, rows) = table(&self.rows);
        format!(
            "{}: fast path vs Rust's f32 methods, 2^24 elements, all threads\n{}",
            self.cpu,
            crate::table::render(&head, &rows)
        )
    }
}

/// Measures every CPU fast function on the best path `arch` has: errors over `samples`
/// inputs, throughput over `elements` on all threads (median of `runs`), and the chunk-split
/// curve.
pub fn bench(arch: &CpuArch, samples: usize, elements: usize, runs: usize) -> Vec<CpuRow> {
    let path = SimdPath::best(arch);
    CpuFunction::ALL
        .iter()
        .map(|&f| row(f, path, samples, elements, runs))
        .collect()
}

fn row(f: CpuFunction, path: SimdPath, samples: usize, elements: usize, runs: usize) -> CpuRow {
    use rand::{Rng, SeedableRng};
    let (dom, wide) = f.domains();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let x: Vec<f32> = (0..elements)
        .map(|_| dom.x.sample(rng.random(), rng.random()) as f32)
        .collect();
    let mut out = vec![0f32; elements];
    let mut reference = vec![0f32; elements];
    apply(f, path, &x, &mut reference, 0.0);
    let time = |share: f64, out: &mut Vec<f32>| {
        let mut t = sigpu_runtime::host::time_cpu(runs, || {
            apply(f, path, &x, out, share);
        });
        sigpu_runtime::cuda::median(&mut t)
    };
    let split = [0.0, 0.25, 0.5, 0.75, 1.0]
        .iter()
        .map(|&share| {
            let t = time(share, &mut out);
            let e = Metric::MeanRelative
                .error(&Values::F32(out.clone()), &Values::F32(reference.clone()));
            (share, t, e)
        })
        .collect::<Vec<_>>();
    CpuRow {
        function: f,
        path,
        threads: rayon::current_num_threads(),
        fast_gelem_per_s: elements as f64 / split[4].1 / 1e9,
        accurate_gelem_per_s: elements as f64 / split[0].1 / 1e9,
        fast_domain: errors(f, Some(path), &dom, samples, 1),
        fast_wide: errors(f, Some(path), &wide, samples, 2),
        accurate_domain: errors(f, None, &dom, samples, 1),
        split,
    }
}

/// The table `sigpu approx bench --device cpu` prints: headers and one row per function.
pub fn table(rows: &[CpuRow]) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut row = vec![
                format!("{:?}", r.function).to_lowercase(),
                format!("{:?}", r.path).to_lowercase(),
                format!("{:.2}", r.fast_gelem_per_s),
                format!("{:.2}", r.accurate_gelem_per_s),
            ];
            row.extend(error_cells(&r.fast_domain));
            row.extend([
                format!("{:.1}", r.accurate_domain.max_ulp),
                format!("{:.2e}", r.fast_wide.max_rel),
                r.split
                    .iter()
                    .map(|(s, t, _)| format!("{s}:{:.1}ms", t * 1e3))
                    .collect::<Vec<_>>()
                    .join(" "),
            ]);
            row
        })
        .collect();
    let head = vec![
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
    ];
    (head, rows)
}

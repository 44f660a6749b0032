//! Tables 4 and 5 of Li et al.'s SFU-approximation paper on today's GPU: per catalog function and
//! version, latency of a dependent chain in SM cycles, throughput of independent chains per SM,
//! error over random inputs against the f64 CPU reference, registers per thread and the SASS
//! instruction mix.

use super::sass::{self, Mix};
use serde::Serialize;
use sigpu_approx::catalog::{Function, Precision, Version, CATALOG};
use sigpu_approx::dev::{Buf, Scalar};
use sigpu_approx::energy::Energy;
use sigpu_approx::eval::{self, evaluate, kernel_name};
use sigpu_approx::numeric::{error_stats, inputs, ErrorStats};
use sigpu_approx::Result;
use sigpu_runtime::cuda::cudarc::driver::LaunchConfig;
use sigpu_runtime::cuda::{compile, sm_clock_mhz, time_gpu, Gpu, KernelCache, KernelSource};
use sigpu_runtime::nvml::EnergyCounter;

/// Independent chains per thread in the throughput kernel.
const ILP: usize = 8;
/// Chain length (dependent calls) in the latency kernel, measured after one warm pass.
const LATENCY_STEPS: i32 = 2048;

/// CUDA source for the catalog's benchmark kernels: for each function and version the
/// library's element-wise `eval`, a single-thread dependent-chain `lat` and an
/// independent-chain `tput`.
pub fn source(functions: &[&Function]) -> KernelSource {
    let mut code = eval::code(functions);
    for f in functions {
        for v in Version::BOTH {
            code += &chain_kernels(f, v);
        }
    }
    KernelSource::generated("approx_bench.cu", code)
}

/// The latency and throughput kernels of `f`/`v`.
fn chain_kernels(f: &Function, v: Version) -> String {
    let t = f.precision.cuda_type();
    let func = f.device_fn(v);
    let step = |var: &str| f.chain.replace("{x}", var).replace("{F}", &func);
    let (spread, fold) = if f.precision.bytes() == 2 {
        ("(unsigned short)(x0 + j)", "s ^= a[j]")
    } else {
        ("x0 + (T)j * (T)0.001", "s += a[j]")
    };
    format!(
        r#"
extern "C" __global__ void {lat}({t} x0, {t} y, int steps, long long* cycles, {t}* out) {{
    typedef {t} T;
    T v = x0;
    #pragma unroll 1
    for (int i = 0; i < steps; i++) {{ v = {step_v}; }}
    const long long c0 = clock64();
    #pragma unroll 1
    for (int i = 0; i < steps; i++) {{ v = {step_v}; }}
    const long long c1 = clock64();
    cycles[0] = c1 - c0;
    out[0] = v;
}}
extern "C" __global__ void {tput}({t} x0, {t} y, int iters, {t}* out) {{
    typedef {t} T;
    T a[{ILP}];
    #pragma unroll
    for (int j = 0; j < {ILP}; j++) a[j] = {spread};
    // Not unrolled: across unrolled iterations ptxas may fold f(f(x)) (it does for rcp).
    #pragma unroll 1
    for (int i = 0; i < iters; i++) {{
        #pragma unroll
        for (int j = 0; j < {ILP}; j++) a[j] = {step_a};
    }}
    T s = 0;
    #pragma unroll
    for (int j = 0; j < {ILP}; j++) {fold};
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}}
"#,
        lat = kernel_name("lat", f, v),
        tput = kernel_name("tput", f, v),
        step_v = step("v"),
        step_a = step("a[j]"),
    )
}

/// The mean and largest relative error and the largest error in ulp, as the tables print them.
pub(crate) fn error_cells(e: &ErrorStats) -> [String; 3] {
    [
        format!("{:.2e}", e.mean_rel),
        format!("{:.2e}", e.max_rel),
        format!("{:.1}", e.max_ulp),
    ]
}

/// One (function, version) row of the table.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The catalog key (`exp_f32`, `div_f64`, ...).
    pub function: &'static str,
    /// The mathematical function (`x/y`, `sqrt(x)`, ...).
    pub math: &'static str,
    /// Its floating-point precision.
    pub precision: Precision,
    /// Accurate (libdevice / IEEE-rounded) or SFU (`.approx` PTX).
    pub version: Version,
    /// The CUDA or PTX form measured.
    pub form: &'static str,
    /// SM cycles per dependent chain step (the call, plus `chain_glue` where noted).
    pub latency_cycles: f64,
    /// The chain's extra operation besides the call, counted in `latency_cycles`.
    pub chain_glue: Option<&'static str>,
    /// Giga results per second per SM, independent chains, whole GPU busy.
    pub gops_per_sm: f64,
    /// Giga results per second over the whole GPU.
    pub gops_total: f64,
    /// Results per SM per clock cycle at the measured clock.
    pub ops_per_clock_per_sm: f64,
    /// Errors over the documented domain and over a wide range.
    pub error_domain: ErrorStats,
    /// Errors over the wide range.
    pub error_wide: ErrorStats,
    /// The documented domain, in words.
    pub domain: String,
    /// The wide range, in words.
    pub wide: String,
    /// Registers per thread of the element-wise kernel, from the loaded function.
    pub registers: i32,
    /// Static SASS instruction mix of the element-wise kernel, when cuobjdump was found.
    pub sass: Option<Mix>,
    /// Energy of the throughput kernel (NVML), `None` where NVML is not available.
    pub energy: Option<Energy>,
    /// Picojoules per result of the throughput kernel (whole board, idle power included).
    pub pj_per_result: Option<f64>,
}

/// What `sigpu approx bench` measures on a GPU.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The GPU's name and architecture.
    pub device: String,
    /// Streaming multiprocessors of the device.
    pub sms: u32,
    /// SM clock measured while a kernel runs, in MHz.
    pub sm_clock_mhz: f64,
    /// Random inputs per error measurement.
    pub error_samples: usize,
    /// Why the SASS columns are empty, when they are.
    pub sass_note: Option<String>,
    /// Where the energy columns come from (NVML), or why they are `n/a`.
    pub energy: String,
    /// One row per supported function and version.
    pub rows: Vec<Row>,
}

impl Report {
    /// The text `sigpu approx bench` prints: the device, any reason the SASS mix is missing,
    /// and the [`table`](Self::table).
    pub fn text(&self) -> String {
        let mut out = format!(
            "{}: {} SMs at a measured {:.0} MHz; errors over {} random inputs per range vs f64\n",
            self.device, self.sms, self.sm_clock_mhz, self.error_samples
        );
        if let Some(note) = &self.sass_note {
            out += &format!("SASS mix not available: {note}\n");
        }
        out += &format!("energy: {}\n", self.energy);
        let (head, rows) = self.table();
        out + &crate::table::render(&head, &rows)
    }

    /// The table `sigpu approx bench` prints: headers and one row per function and version.
    pub fn table(&self) -> (Vec<&'static str>, Vec<Vec<String>>) {
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                let mix = r
                    .sass
                    .as_ref()
                    .map_or("-".into(), |m| format!("{}/{}/{}", m.sfu, m.fp32, m.fp64));
                let [mean_rel, max_rel, max_ulp] = error_cells(&r.error_domain);
                vec![
                    r.function.into(),
                    format!("{:?}", r.version).to_lowercase(),
                    format!("{:.1}", r.latency_cycles),
                    format!("{:.2}", r.gops_per_sm),
                    format!("{:.0}", r.gops_total),
                    mean_rel,
                    max_rel,
                    max_ulp,
                    format!("{:.2e}", r.error_wide.mean_rel),
                    format!("{:.2e}", r.error_wide.max_rel),
                    r.error_wide.class_mismatches.to_string(),
                    r.registers.to_string(),
                    mix,
                    r.pj_per_result.map_or("n/a".into(), |p| format!("{p:.1}")),
                    r.energy.map_or("n/a".into(), |e| format!("{:.0}", e.watts)),
                ]
            })
            .collect();
        let head = vec![
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
            "pJ/op",
            "W",
        ];
        (head, rows)
    }
}

fn single_thread() -> LaunchConfig {
    LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The chain's start and second argument in the function's type.
fn chain_args(f: &Function) -> (Scalar, Scalar) {
    (
        Scalar::of(f.precision, f.chain_x0),
        Scalar::of(f.precision, f.chain_y),
    )
}

fn latency(gpu: &Gpu, src: &KernelSource, f: &Function, v: Version) -> Result<f64> {
    let name = kernel_name("lat", f, v);
    let k = gpu.kernel(src, &name)?;
    let (x0, y) = chain_args(f);
    let mut cycles = gpu.alloc_poisoned::<i64>(1)?;
    let mut out = Buf::poisoned(gpu, f.precision, 1)?;
    let mut best = f64::INFINITY;
    // The least of a few runs: a single thread is only disturbed upwards.
    for _ in 0..3 {
        // sg_lat_*(T, T, int, long long*, T*); both outputs hold 1 element.
        let mut l = gpu.launch(&k);
        x0.push(&mut l);
        y.push(&mut l);
        l.arg(&LATENCY_STEPS).buf_mut(&mut cycles);
        out.push_mut(&mut l);
        l.run(single_thread())?;
        let c = gpu.download(&cycles)?[0];
        best = best.min(c as f64 / LATENCY_STEPS as f64);
    }
    Ok(best)
}

/// Median time of the throughput kernel and the number of results it computes, and with an
/// energy counter its energy over a quarter second of back-to-back runs.
fn throughput(
    gpu: &Gpu,
    src: &KernelSource,
    f: &Function,
    v: Version,
    counter: Option<&EnergyCounter>,
) -> Result<(f64, f64, Option<Energy>)> {
    let name = kernel_name("tput", f, v);
    let k = gpu.kernel(src, &name)?;
    let blocks = gpu.info().sms * 8;
    let threads = blocks as usize * 256;
    let iters = 256i32;
    let (x0, y) = chain_args(f);
    let mut out = Buf::poisoned(gpu, f.precision, threads)?;
    let config = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut run = || {
        // sg_tput_*(T, T, int, T*); `out` holds one element per thread.
        let mut l = gpu.launch(&k);
        x0.push(&mut l);
        y.push(&mut l);
        l.arg(&iters);
        out.push_mut(&mut l);
        l.run(config)
    };
    let t = time_gpu(gpu, 2, 10, &mut run)?;
    let energy = match counter {
        Some(c) => Some(sigpu_approx::energy::measure(
            gpu,
            c,
            t.median_ms,
            0.25,
            || Ok(run()?),
        )?),
        None => None,
    };
    Ok((
        t.median_ms,
        threads as f64 * ILP as f64 * iters as f64,
        energy,
    ))
}

/// What every row of one run shares.
struct Bench<'a> {
    gpu: &'a Gpu,
    src: KernelSource,
    clock_mhz: f64,
    mixes: std::collections::BTreeMap<String, Mix>,
    samples: usize,
    counter: Option<EnergyCounter>,
}

impl Bench<'_> {
    /// The two rows (accurate, SFU) of the `index`-th function.
    fn rows(&self, index: usize, f: &Function) -> Result<Vec<Row>> {
        let seed = 2 * index as u64;
        let sets = [
            inputs(f, &f.domain, self.samples, seed),
            inputs(f, &f.wide, self.samples, seed + 1),
        ];
        let mut rows = Vec::new();
        for v in Version::BOTH {
            let mut errors = Vec::new();
            for (x, y) in &sets {
                let got = evaluate(self.gpu, &self.src, f, v, x, y.as_ref())?;
                errors.push(error_stats(f, x, y.as_ref(), &got));
            }
            let [error_domain, error_wide]: [ErrorStats; 2] =
                errors.try_into().expect("two input sets");
            rows.push(self.row(f, v, error_domain, error_wide)?);
        }
        Ok(rows)
    }

    fn row(&self, f: &Function, v: Version, domain: ErrorStats, wide: ErrorStats) -> Result<Row> {
        let eval = kernel_name("eval", f, v);
        let registers = eval::registers(self.gpu, &self.src, &eval)?;
        let latency_cycles = latency(self.gpu, &self.src, f, v)?;
        let (ms, ops, energy) = throughput(self.gpu, &self.src, f, v, self.counter.as_ref())?;
        let gops_total = ops / (ms * 1e-3) / 1e9;
        let gops_per_sm = gops_total / self.gpu.info().sms as f64;
        Ok(Row {
            function: f.key,
            math: f.math,
            precision: f.precision,
            version: v,
            form: f.form(v),
            latency_cycles,
            chain_glue: f.chain_glue,
            gops_per_sm,
            gops_total,
            ops_per_clock_per_sm: gops_per_sm * 1e3 / self.clock_mhz,
            error_domain: domain,
            error_wide: wide,
            domain: f.domain.x.describe(),
            wide: f.wide.x.describe(),
            registers,
            sass: self.mixes.get(&eval).cloned(),
            energy,
            pj_per_result: energy.map(|e| e.joules_per_run / ops * 1e12),
        })
    }
}

/// Every catalog function the device supports, both versions. `error_samples` random inputs
/// per range (at least 100,000 for the table). `progress` gets each function's key.
pub fn run(gpu: &Gpu, error_samples: usize, progress: &dyn Fn(&str)) -> Result<Report> {
    let functions = sigpu_approx::catalog::supported(gpu.arch());
    let src = source(&functions);
    let clock_mhz = sm_clock_mhz(gpu)?;
    let cubin = compile(&src, gpu.arch(), &KernelCache::from_env())?.cubin;
    let (mixes, sass_note) = match sass::disassemble(&cubin) {
        Ok(text) => (sass::mixes(&text), None),
        Err(why) => (Default::default(), Some(why.to_string())),
    };
    let (counter, energy) = match sigpu_approx::energy::counter(gpu) {
        Ok(c) => {
            let note = format!(
                "NVML energy counter of {}, 0.25 s of throughput runs per row",
                c.name()
            );
            (Some(c), note)
        }
        Err(why) => (None, why),
    };
    let bench = Bench {
        gpu,
        src,
        clock_mhz,
        mixes,
        samples: error_samples,
        counter,
    };
    let mut rows = Vec::new();
    for (fi, f) in functions.iter().enumerate() {
        progress(f.key);
        rows.extend(bench.rows(fi, f)?);
    }
    Ok(Report {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        sms: gpu.info().sms,
        sm_clock_mhz: clock_mhz,
        error_samples,
        sass_note,
        energy,
        rows,
    })
}

/// Every catalog entry (for listing and compile tests, whatever the GPU).
pub fn all_functions() -> Vec<&'static Function> {
    CATALOG.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_source_names_every_kernel() {
        let src = source(&all_functions());
        let names = src.entry_points();
        assert_eq!(names.len(), CATALOG.len() * 2 * 3);
        for f in CATALOG {
            for v in Version::BOTH {
                for kind in ["eval", "lat", "tput"] {
                    assert!(names.contains(&kernel_name(kind, f, v)), "{kind} {}", f.key);
                }
            }
        }
        // The chain step is substituted: no bare F( left, and the variable replaced.
        assert!(!src.code.contains(" F("), "{}", &src.code[..400]);
    }
}

//! The demo: a tour of what sigpu does, on built-in seeded inputs. Every capability runs on
//! the CPU; the GPU sections and every registered self-check run when a GPU is given. Each
//! section calls the public library APIs and reports a measured speed and its error against a
//! reference.

mod cpu;
mod gpu;
mod serial;

pub use cpu::SEED;

use crate::numfmt::{si, sig3};
use anyhow::Result;
use serde::Serialize;
use sigpu_runtime::cuda::{copy_bandwidth, CopyBench, Gpu};
use sigpu_runtime::host::{self, HostCopyBench, HostInfo};
use std::time::Instant;

/// Everything the demo measured.
#[serde_with::skip_serializing_none]
#[derive(Serialize)]
pub struct Demo {
    /// The machine: CPU model, threads, SIMD.
    pub host: HostInfo,
    /// The host's copy bandwidth: the ceiling of the memory-bound CPU sections.
    pub cpu_copy: HostCopyBench,
    /// The CPU sections.
    pub cpu: CpuDemo,
    /// Why the GPU part was skipped, when it was.
    pub gpu_skipped: Option<String>,
    /// The GPU sections, when a GPU was given.
    pub gpu: Option<GpuDemo>,
    /// Wall time of the whole demo.
    pub seconds: f64,
}

/// The CPU sections: every capability on all cores.
#[derive(Serialize)]
pub struct CpuDemo {
    /// An HMM forward pass in LNS against the f64 log-space forward.
    pub lns_hmm: cpu::HmmSection,
    /// A 16-bit CLNS FFT against fixed point and f16 of the same width.
    pub clns_fft: cpu::FftSection,
    /// A low-pass `lfilter` against the serial f64 recurrence.
    pub iir_filter: cpu::FilterSection,
    /// Fast transcendentals against Rust's f32 methods and f64, one row per function.
    pub approx: Vec<cpu::ApproxRow>,
    /// LDPC decoding of DVB-T2 short frames by the 8-bit min-sum decoder.
    pub ldpc: cpu::LdpcSection,
}

/// The GPU sections.
#[derive(Serialize)]
pub struct GpuDemo {
    /// The GPU's name and architecture.
    pub device: String,
    /// Device-to-device copy bandwidth: the ceiling of the memory-bound GPU sections.
    pub copy: CopyBench,
    /// The HMM forward of the CPU section on the GPU.
    pub lns_hmm: cpu::HmmSection,
    /// The generated single-pass filter kernel on one long channel, against the copy ceiling.
    pub iir_filter: gpu::GpuFilterSection,
    /// Every registered self-check, pass or fail.
    pub checks: gpu::ChecksSection,
}

impl Demo {
    /// True when a GPU self-check failed.
    pub fn failed(&self) -> bool {
        self.gpu
            .as_ref()
            .is_some_and(|g| !g.checks.failed.is_empty())
    }
}

/// Runs the CPU sections, then the GPU ones on `gpu` when given (`gpu_skipped` says why not,
/// otherwise). `step` is told what runs next.
pub fn run(gpu: Option<&Gpu>, gpu_skipped: Option<String>, step: &dyn Fn(&str)) -> Result<Demo> {
    let start = Instant::now();
    step("CPU copy bandwidth");
    let host_info = HostInfo::detect();
    let cpu_copy = host::copy_bandwidth(64 << 20, host::threads(), 5)?;
    step("CPU: LNS HMM forward");
    let lns_hmm = cpu::lns_hmm()?;
    step("CPU: CLNS FFT");
    let clns_fft = cpu::clns_fft()?;
    step("CPU: IIR filter");
    let iir_filter = cpu::iir_filter()?;
    step("CPU: fast transcendentals");
    let approx = cpu::approx();
    step("CPU: LDPC decoding");
    let ldpc = cpu::ldpc()?;
    let cpu = CpuDemo {
        lns_hmm,
        clns_fft,
        iir_filter,
        approx,
        ldpc,
    };
    let gpu = gpu.map(|g| gpu_demo(g, step)).transpose()?;
    Ok(Demo {
        host: host_info,
        cpu_copy,
        cpu,
        gpu_skipped,
        gpu,
        seconds: start.elapsed().as_secs_f64(),
    })
}

fn gpu_demo(gpu: &Gpu, step: &dyn Fn(&str)) -> Result<GpuDemo> {
    step("GPU copy bandwidth");
    let copy = copy_bandwidth(gpu, 256 << 20, 3, 20)?;
    step("GPU: LNS HMM forward");
    let lns_hmm = gpu::lns_hmm(gpu)?;
    step("GPU: IIR filter");
    let iir_filter = gpu::iir_filter(gpu, copy.best_gb_per_s)?;
    let checks = gpu::checks(gpu, &crate::checks::registry(), step);
    Ok(GpuDemo {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        copy,
        lns_hmm,
        iir_filter,
        checks,
    })
}

/// Indent of the gloss under each line: past the `CPU  ` / `GPU  ` column.
const GLOSS: &str = "       ";

/// The demo as text: per section one line of figures and, under it, one line saying what
/// they mean in a signal-processing user's words.
pub fn render(d: &Demo) -> String {
    let mut out = format!(
        "sigpu demo on {}: {} threads, widest SIMD {}\n",
        d.host.cpu_model,
        d.host.threads,
        d.host.simd.best()
    );
    let mut section = |unit: &str, line: String, gloss: &str| {
        out += &format!("{unit}  {line}\n{GLOSS}{gloss}\n");
    };
    section(
        "CPU",
        format!(
            "memory copy: {} ({} MiB read and written by every thread)",
            si(d.cpu_copy.gb_per_s * 1e9, "B/s"),
            d.cpu_copy.bytes >> 20
        ),
        "the ceiling for the memory-bound lines below: no filter streams samples faster",
    );
    let c = &d.cpu;
    section("CPU", c.lns_hmm.line(), c.lns_hmm.gloss());
    section("CPU", c.clns_fft.line(), c.clns_fft.gloss());
    section("CPU", c.iir_filter.line(), c.iir_filter.gloss());
    section("CPU", cpu::approx_line(&c.approx), cpu::APPROX_GLOSS);
    section("CPU", c.ldpc.line(), &c.ldpc.gloss());
    match (&d.gpu, &d.gpu_skipped) {
        (Some(g), _) => {
            section(
                "GPU",
                format!(
                    "{}: memory copy {}",
                    g.device,
                    si(g.copy.best_gb_per_s * 1e9, "B/s")
                ),
                gpu::peers::COPY,
            );
            section("GPU", g.lns_hmm.line(), gpu::peers::HMM);
            section("GPU", g.iir_filter.line(), gpu::peers::FILTER);
            out += &format!(
                "GPU  self-checks, every kernel against its CPU twin (seed {:#x}): {} passed, {} failed\n",
                g.checks.seed,
                g.checks.passed,
                g.checks.failed.len()
            );
            for f in &g.checks.failed {
                out += &format!("  FAIL {f}\n");
            }
        }
        (None, reason) => {
            out += &format!(
                "GPU  skipped ({})\n",
                reason.as_deref().unwrap_or("not requested")
            );
        }
    }
    out += &format!("({} s)\n", sig3(d.seconds));
    out
}

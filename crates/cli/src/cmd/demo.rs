//! `sigpu demo`: a tour of what sigpu does, on built-in seeded inputs. Every capability runs on
//! the CPU; the GPU sections and every registered self-check run when a GPU is usable (or
//! `--device cuda` asks for one). Each section calls the public library APIs and reports a
//! measured speed and its error against a reference.

mod cpu;
mod gpu;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use sigpu_runtime::cuda::{copy_bandwidth, probe, CopyBench, Gpu};
use sigpu_runtime::host::{self, HostCopyBench, HostInfo};
use sigpu_runtime::Device;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Serialize)]
struct Demo {
    host: HostInfo,
    cpu_copy: HostCopyBench,
    cpu: CpuDemo,
    /// Why the GPU part was skipped, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_skipped: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu: Option<GpuDemo>,
    /// Wall time of the whole demo.
    seconds: f64,
}

#[derive(Serialize)]
struct CpuDemo {
    lns_hmm: cpu::HmmSection,
    clns_fft: cpu::FftSection,
    iir_filter: cpu::FilterSection,
    approx: Vec<cpu::ApproxRow>,
    ldpc: cpu::LdpcSection,
}

#[derive(Serialize)]
struct GpuDemo {
    device: String,
    copy: CopyBench,
    lns_hmm: cpu::HmmSection,
    iir_filter: gpu::GpuFilterSection,
    checks: gpu::ChecksSection,
}

pub fn run(device: Option<Device>, json: bool) -> Result<ExitCode> {
    let start = Instant::now();
    let (gpu, gpu_skipped) = match device {
        Some(Device::Cpu) => (None, Some("--device cpu".to_owned())),
        Some(Device::Cuda(n)) => (Some(super::open_gpu(n)?), None),
        None => match Gpu::open_with_compiler(0) {
            Ok(g) => (Some(g), None),
            Err(e) => (None, probe().reason.or(Some(e.to_string()))),
        },
    };
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} demo: {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let step = |what: &str| bar.set_message(what.to_owned());
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
    let gpu = gpu.map(|g| gpu_demo(&g, &step)).transpose()?;
    bar.finish_and_clear();
    let failed = gpu.as_ref().is_some_and(|g| !g.checks.failed.is_empty());
    let demo = Demo {
        host: host_info,
        cpu_copy,
        cpu,
        gpu_skipped,
        gpu,
        seconds: start.elapsed().as_secs_f64(),
    };
    if json {
        super::print_json(&demo)?;
    } else {
        print!("{}", render(&demo));
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn gpu_demo(gpu: &Gpu, step: &dyn Fn(&str)) -> Result<GpuDemo> {
    step("GPU copy bandwidth");
    let copy = copy_bandwidth(gpu, 256 << 20, 3, 20)?;
    step("GPU: LNS HMM forward");
    let lns_hmm = gpu::lns_hmm(gpu)?;
    step("GPU: IIR filter");
    let iir_filter = gpu::iir_filter(gpu, copy.best_gb_per_s)?;
    step("GPU: every self-check");
    let checks = gpu::checks(gpu, &super::check::registry());
    Ok(GpuDemo {
        device: format!("{} ({})", gpu.info().name, gpu.arch()),
        copy,
        lns_hmm,
        iir_filter,
        checks,
    })
}

fn render(d: &Demo) -> String {
    let mut out = format!(
        "sigpu demo on {} ({} threads, {})\n",
        d.host.cpu_model,
        d.host.threads,
        d.host.simd.best()
    );
    out += &format!(
        "CPU  copy bandwidth {:.1} GB/s over {} MiB (ceiling for memory-bound CPU kernels)\n",
        d.cpu_copy.gb_per_s,
        d.cpu_copy.bytes >> 20
    );
    let c = &d.cpu;
    for line in [
        c.lns_hmm.line(),
        c.clns_fft.line(),
        c.iir_filter.line(),
        cpu::approx_line(&c.approx),
        c.ldpc.line(),
    ] {
        out += &format!("CPU  {line}\n");
    }
    match (&d.gpu, &d.gpu_skipped) {
        (Some(g), _) => {
            out += &format!(
                "GPU  {}: copy bandwidth {:.0} GB/s\n",
                g.device, g.copy.best_gb_per_s
            );
            out += &format!("GPU  {}\n", g.lns_hmm.line());
            out += &format!("GPU  {}\n", g.iir_filter.line());
            out += &format!(
                "GPU  self-checks (seed {:#x}): {} passed, {} failed\n",
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
    out += &format!("({:.1} s)\n", d.seconds);
    out
}

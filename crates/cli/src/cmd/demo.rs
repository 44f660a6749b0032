//! `sigpu demo`: what sigpu can do on this machine, on built-in inputs.

use anyhow::Result;
use serde::Serialize;
use sigpu_runtime::cuda::{self, copy_bandwidth, probe, CopyBench, Gpu};
use sigpu_runtime::host::{self, HostCopyBench, HostInfo};
use sigpu_runtime::Device;
use std::process::ExitCode;

#[derive(Serialize)]
struct Demo {
    host: HostInfo,
    cpu_copy: HostCopyBench,
    /// Why the GPU part was skipped, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_skipped: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu: Option<GpuDemo>,
}

#[derive(Serialize)]
struct GpuDemo {
    checks_passed: usize,
    checks_failed: Vec<String>,
    copy: CopyBench,
}

pub fn run(device: Option<Device>, json: bool) -> Result<ExitCode> {
    let host_info = HostInfo::detect();
    let cpu_copy = host::copy_bandwidth(64 << 20, host::threads(), 5)?;
    let (gpu, gpu_skipped) = match device {
        Some(Device::Cpu) => (None, Some("--device cpu".to_owned())),
        Some(Device::Cuda(n)) => (Some(super::open_gpu(n)?), None),
        None => match Gpu::open_with_compiler(0) {
            Ok(g) => (Some(g), None),
            Err(e) => (None, probe().reason.or(Some(e.to_string()))),
        },
    };
    let gpu = gpu.map(|g| gpu_demo(&g)).transpose()?;
    let failed = gpu.as_ref().is_some_and(|g| !g.checks_failed.is_empty());
    let demo = Demo {
        host: host_info,
        cpu_copy,
        gpu_skipped,
        gpu,
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

fn gpu_demo(gpu: &Gpu) -> Result<GpuDemo> {
    let mut passed = 0;
    let mut failed = Vec::new();
    for check in cuda::checks() {
        // A fixed seed: the demo shows the same inputs every time.
        match (check.run)(gpu, check.seed(0x5167_7075)) {
            Ok(r) if r.passed() => passed += 1,
            Ok(r) => failed.push(format!("{}: {}", check.name, r.note)),
            Err(e) => failed.push(format!("{}: {e}", check.name)),
        }
    }
    Ok(GpuDemo {
        checks_passed: passed,
        checks_failed: failed,
        copy: copy_bandwidth(gpu, 256 << 20, 3, 20)?,
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
        "CPU: copy bandwidth {:.1} GB/s over {} MiB (ceiling for memory-bound CPU kernels)\n",
        d.cpu_copy.gb_per_s,
        d.cpu_copy.bytes >> 20
    );
    match (&d.gpu, &d.gpu_skipped) {
        (Some(g), _) => {
            out += &format!(
                "GPU: {}: {} self-checks passed, {} failed; copy bandwidth {:.1} GB/s\n",
                g.copy.device,
                g.checks_passed,
                g.checks_failed.len(),
                g.copy.best_gb_per_s
            );
            for f in &g.checks_failed {
                out += &format!("  FAIL {f}\n");
            }
        }
        (None, reason) => {
            out += &format!(
                "GPU: skipped ({})\n",
                reason.as_deref().unwrap_or("not requested")
            );
        }
    }
    out
}

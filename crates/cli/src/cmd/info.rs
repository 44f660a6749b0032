use anyhow::Result;
use serde::Serialize;
use sigpu_runtime::cuda::{probe, CudaStatus};
use sigpu_runtime::host::HostInfo;
use std::process::ExitCode;

#[derive(Serialize)]
struct Info {
    version: &'static str,
    host: HostInfo,
    cuda: CudaStatus,
}

pub fn run(json: bool) -> Result<ExitCode> {
    let info = Info {
        version: env!("CARGO_PKG_VERSION"),
        host: HostInfo::detect(),
        cuda: probe(),
    };
    super::report(json, &info, |i| print!("{}", render(i)))
}

fn render(info: &Info) -> String {
    let h = &info.host;
    let s = &h.simd;
    let mut out = format!("sigpu {}\n", info.version);
    out += &format!(
        "CPU:     {} ({}), {} threads\n",
        h.cpu_model, h.arch, h.threads
    );
    out += &format!("SIMD:    {} ({})\n", s.best(), s.feature_list());
    let c = &info.cuda;
    let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
    out += &format!(
        "CUDA:    driver {}, NVRTC {}",
        or_none(&c.driver_version),
        or_none(&c.nvrtc_version)
    );
    if let Some(p) = &c.nvrtc_path {
        out += &format!(" ({p})");
    }
    out += "\n";
    for d in &c.devices {
        out += &format!(
            "  cuda:{}  {}  compute {} ({}), {} SMs at {} MHz, {:.1} GiB, L2 {} MiB, peak DRAM {:.0} GB/s\n",
            d.ordinal,
            d.name,
            d.compute_capability,
            d.arch,
            d.sms,
            d.sm_clock_mhz,
            d.memory_bytes as f64 / (1u64 << 30) as f64,
            d.l2_bytes >> 20,
            d.peak_dram_gb_per_s
        );
    }
    match &c.reason {
        None => out += "GPU:     usable\n",
        Some(r) => out += &format!("GPU:     not usable: {r}\n"),
    }
    out
}

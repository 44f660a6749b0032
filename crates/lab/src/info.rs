//! `sigpu info`: the version, the host's CPU and SIMD, and CUDA (driver, NVRTC, devices, or
//! why no GPU is usable), and its text form.

use serde::Serialize;
use sigpu_runtime::cuda::{probe, CudaStatus};
use sigpu_runtime::host::HostInfo;

/// What `sigpu info` reports.
#[derive(Serialize)]
pub struct Info {
    /// The version of the program asking (its `CARGO_PKG_VERSION`).
    pub version: &'static str,
    /// The CPU: model, threads, SIMD.
    pub host: HostInfo,
    /// The CUDA driver, NVRTC and devices, or why none is usable.
    pub cuda: CudaStatus,
}

impl Info {
    /// Detects the host and probes CUDA; `version` is the caller's.
    pub fn detect(version: &'static str) -> Info {
        Info {
            version,
            host: HostInfo::detect(),
            cuda: probe(),
        }
    }

    /// The report as `sigpu info` prints it.
    pub fn text(&self) -> String {
        let h = &self.host;
        let s = &h.simd;
        let mut out = format!("sigpu {}\n", self.version);
        out += &format!(
            "CPU:     {} ({}), {} threads\n",
            h.cpu_model, h.arch, h.threads
        );
        out += &format!("SIMD:    {} ({})\n", s.best(), s.feature_list());
        let c = &self.cuda;
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
}

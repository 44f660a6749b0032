//! The host CPU: what it is, which SIMD extensions it has (detected at run time, so one binary
//! serves every x86-64 machine), and how fast it can stream memory.

use serde::Serialize;
use std::time::Instant;

/// SIMD extensions that sigpu's CPU kernels dispatch on.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct SimdFeatures {
    pub sse4_2: bool,
    pub avx2: bool,
    pub fma: bool,
    pub avx512f: bool,
    pub avx512bw: bool,
    pub avx512vl: bool,
    pub neon: bool,
}

impl SimdFeatures {
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            SimdFeatures {
                sse4_2: is_x86_feature_detected!("sse4.2"),
                avx2: is_x86_feature_detected!("avx2"),
                fma: is_x86_feature_detected!("fma"),
                avx512f: is_x86_feature_detected!("avx512f"),
                avx512bw: is_x86_feature_detected!("avx512bw"),
                avx512vl: is_x86_feature_detected!("avx512vl"),
                neon: false,
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            SimdFeatures {
                neon: std::arch::is_aarch64_feature_detected!("neon"),
                ..Default::default()
            }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            SimdFeatures::default()
        }
    }

    /// The widest extension present, as people name it.
    pub fn best(&self) -> &'static str {
        if self.avx512f && self.avx512bw {
            "AVX-512"
        } else if self.avx2 && self.fma {
            "AVX2+FMA"
        } else if self.sse4_2 {
            "SSE4.2"
        } else if self.neon {
            "NEON"
        } else {
            "scalar"
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct HostInfo {
    pub cpu_model: String,
    pub arch: &'static str,
    pub threads: usize,
    pub simd: SimdFeatures,
}

impl HostInfo {
    pub fn detect() -> Self {
        HostInfo {
            cpu_model: cpu_model().unwrap_or_else(|| "unknown".into()),
            arch: std::env::consts::ARCH,
            threads: threads(),
            simd: SimdFeatures::detect(),
        }
    }
}

/// Worker threads available to this process (affinity and cgroup limits respected).
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find_map(|l| {
            let (key, value) = l.split_once(':')?;
            matches!(key.trim(), "model name" | "Model" | "Hardware")
                .then(|| value.trim().to_owned())
        })
        .filter(|m| !m.is_empty())
}

/// Runs `op` once untimed, then `runs` times (at least once), and returns the wall-clock
/// seconds of each timed run: the CPU counterpart of [`crate::cuda::time_gpu`].
pub fn time_cpu(runs: usize, mut op: impl FnMut()) -> Vec<f64> {
    op();
    (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            op();
            t.elapsed().as_secs_f64()
        })
        .collect()
}

/// Result of [`copy_bandwidth`].
#[derive(Clone, Debug, Serialize)]
pub struct HostCopyBench {
    pub bytes: usize,
    pub threads: usize,
    pub runs: usize,
    pub median_s: f64,
    /// Read + write bytes per second, in GB/s (1e9).
    pub gb_per_s: f64,
}

/// Copies `bytes` between two buffers with `threads` threads, `runs` times after one warm-up,
/// and reports the median. Read and write traffic are both counted, as for the GPU copy.
/// Fails, rather than aborting, when the two buffers cannot be allocated.
pub fn copy_bandwidth(bytes: usize, threads: usize, runs: usize) -> std::io::Result<HostCopyBench> {
    let words = (bytes / 8).max(threads.max(1));
    let threads = threads.clamp(1, words);
    let buffer = |fill: fn(usize) -> u64| -> std::io::Result<Vec<u64>> {
        let mut v = Vec::new();
        v.try_reserve_exact(words).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                format!("cannot allocate 2 × {} MiB", (words * 8) >> 20),
            )
        })?;
        v.extend((0..words).map(fill));
        Ok(v)
    };
    let src = buffer(|i| i as u64)?;
    let mut dst = buffer(|_| 0)?;
    let chunk = words.div_ceil(threads);
    let mut samples = time_cpu(runs, || {
        std::thread::scope(|s| {
            for (d, c) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
                s.spawn(move || d.copy_from_slice(c));
            }
        })
    });
    std::hint::black_box(&dst);
    let median_s = crate::cuda::median(&mut samples);
    Ok(HostCopyBench {
        bytes: words * 8,
        threads,
        runs: samples.len(),
        median_s,
        gb_per_s: 2.0 * (words * 8) as f64 / median_s / 1e9,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_a_consistent_feature_set() {
        let f = SimdFeatures::detect();
        // AVX2 implies SSE4.2 on every x86-64 part; AVX-512BW implies AVX-512F.
        assert!(!f.avx2 || f.sse4_2);
        assert!(!f.avx512bw || f.avx512f);
        assert!(!HostInfo::detect().cpu_model.is_empty());
    }

    #[test]
    fn copy_bench_reports_positive_bandwidth() {
        let b = copy_bandwidth(1 << 20, 2, 3).unwrap();
        assert_eq!(b.runs, 3);
        assert!(b.gb_per_s > 0.0 && b.median_s > 0.0);
    }
}

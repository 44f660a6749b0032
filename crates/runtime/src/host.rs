//! The host CPU: what it is, which SIMD extensions it has (detected at run time, so one binary
//! serves every x86-64 machine), and how fast it can stream memory.

use serde::Serialize;
use std::time::Instant;

/// Declares [`CpuArch`] from one table: each field, the name `is_x86_feature_detected!` knows
/// it by, and the name people use. Detection and the printed list cannot drift apart.
macro_rules! cpu_arch {
    ($($field:ident: $x86:tt, $shown:literal;)*) => {
        /// The instruction-set extensions of the host CPU that sigpu's CPU kernels dispatch on.
        ///
        /// Detected once per process ([`CpuArch::host`]) and passed down to the code that picks
        /// an instruction set, so every crate sees the same answer and tests can force a
        /// narrower one ([`CpuArch::scalar`], or any subset). A function compiled with
        /// `#[target_feature]` may run only when every feature it was compiled with is `true`
        /// here.
        #[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
        pub struct CpuArch {
            $(
                #[doc = concat!("The CPU has ", $shown, ".")]
                pub $field: bool,
            )*
            /// NEON (aarch64); always `false` on x86-64.
            pub neon: bool,
        }

        impl CpuArch {
            /// Asks the CPU (uncached; [`CpuArch::host`] is the cached answer).
            pub fn detect() -> CpuArch {
                #[cfg(target_arch = "x86_64")]
                {
                    CpuArch {
                        $($field: std::arch::is_x86_feature_detected!($x86),)*
                        neon: false,
                    }
                }
                #[cfg(target_arch = "aarch64")]
                {
                    CpuArch {
                        neon: std::arch::is_aarch64_feature_detected!("neon"),
                        ..CpuArch::default()
                    }
                }
                #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
                {
                    CpuArch::default()
                }
            }

            /// Only the extensions both `self` and the host CPU have. Dispatchers take a
            /// `CpuArch` from their caller to narrow the choice (tests, comparisons); passing it
            /// through this first means a description the CPU does not match can never select
            /// an instruction set the CPU lacks.
            pub fn within_host(self) -> CpuArch {
                let host = CpuArch::host();
                CpuArch {
                    $($field: self.$field && host.$field,)*
                    neon: self.neon && host.neon,
                }
            }

            /// The extensions present, as people name them ("SSE4.1 SSE4.2 AVX2 FMA …"), or
            /// "none".
            pub fn feature_list(&self) -> String {
                let all = [$((self.$field, $shown),)* (self.neon, "NEON")];
                let names: Vec<&str> = all.iter().filter(|(on, _)| *on).map(|(_, n)| *n).collect();
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(" ")
                }
            }
        }
    };
}

cpu_arch! {
    sse4_1: "sse4.1", "SSE4.1";
    sse4_2: "sse4.2", "SSE4.2";
    avx: "avx", "AVX";
    avx2: "avx2", "AVX2";
    fma: "fma", "FMA";
    bmi2: "bmi2", "BMI2";
    avx512f: "avx512f", "AVX-512F";
    avx512bw: "avx512bw", "AVX-512BW";
    avx512vl: "avx512vl", "AVX-512VL";
    avx512cd: "avx512cd", "AVX-512CD";
    avx512dq: "avx512dq", "AVX-512DQ";
    avx512vbmi: "avx512vbmi", "AVX-512VBMI";
}

impl CpuArch {
    /// The host's extensions, detected on first use and cached for the process.
    pub fn host() -> CpuArch {
        static HOST: std::sync::OnceLock<CpuArch> = std::sync::OnceLock::new();
        *HOST.get_or_init(CpuArch::detect)
    }

    /// No extension at all: every dispatcher takes its portable scalar path.
    pub fn scalar() -> CpuArch {
        CpuArch::default()
    }

    /// AVX2 and FMA: the 256-bit float paths.
    pub fn avx2_fma(&self) -> bool {
        self.avx2 && self.fma
    }

    /// AVX-512 F, BW and VL: the 512-bit integer and byte paths (and their 256-bit forms).
    pub fn avx512_bw_vl(&self) -> bool {
        self.avx512f && self.avx512bw && self.avx512vl
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

/// The instruction sets sigpu's CPU kernels are written for: one vocabulary for every SIMD
/// dispatcher of the workspace. A dispatcher lists the sets it has code for and asks
/// [`Isa::best_of`] which one to run; its per-set code stays in its own module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Isa {
    /// Portable Rust, no extension.
    #[serde(rename = "scalar")]
    Scalar,
    /// SSE4.1 (128-bit integer lanes).
    #[serde(rename = "SSE4.1")]
    Sse41,
    /// AVX2 without relying on FMA (256-bit integer lanes).
    #[serde(rename = "AVX2")]
    Avx2,
    /// AVX2 and FMA (256-bit float lanes with fused multiply-add).
    #[serde(rename = "AVX2+FMA")]
    Avx2Fma,
    /// AVX-512 F, BW and VL (512-bit lanes, mask registers, and their 256-bit forms).
    #[serde(rename = "AVX-512")]
    Avx512,
}

impl Isa {
    /// The name people write (as `sigpu info` and reports print it).
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Sse41 => "SSE4.1",
            Isa::Avx2 => "AVX2",
            Isa::Avx2Fma => "AVX2+FMA",
            Isa::Avx512 => "AVX-512",
        }
    }

    /// Whether code compiled for this set may run on a CPU with the extensions `arch`.
    pub fn runs_on(self, arch: &CpuArch) -> bool {
        let x86 = cfg!(target_arch = "x86_64");
        match self {
            Isa::Scalar => true,
            Isa::Sse41 => x86 && arch.sse4_1,
            Isa::Avx2 => x86 && arch.avx2,
            Isa::Avx2Fma => x86 && arch.avx2_fma(),
            Isa::Avx512 => x86 && arch.avx512_bw_vl(),
        }
    }

    /// The widest of `offered` that `arch`, narrowed to the host's extensions, runs; `Scalar`
    /// when none does. Passing `arch` through [`CpuArch::within_host`] first means a
    /// description the CPU does not match can never select a set the CPU lacks.
    pub fn best_of(arch: &CpuArch, offered: &[Isa]) -> Isa {
        let arch = arch.within_host();
        offered
            .iter()
            .copied()
            .filter(|isa| isa.runs_on(&arch))
            .max()
            .unwrap_or(Isa::Scalar)
    }
}

impl std::fmt::Display for Isa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What `sigpu info` says about the host.
#[derive(Clone, Debug, Serialize)]
pub struct HostInfo {
    /// The CPU's model name, or `unknown`.
    pub cpu_model: String,
    /// The target architecture the binary was built for, e.g. `x86_64`.
    pub arch: &'static str,
    /// Worker threads available ([`threads`]).
    pub threads: usize,
    /// The SIMD extensions detected ([`CpuArch::host`]).
    pub simd: CpuArch,
}

impl HostInfo {
    /// Gathers the facts about this host (the SIMD extensions from the cached detection).
    pub fn detect() -> Self {
        HostInfo {
            cpu_model: cpu_model().unwrap_or_else(|| "unknown".into()),
            arch: std::env::consts::ARCH,
            threads: threads(),
            simd: CpuArch::host(),
        }
    }
}

/// Worker threads available to this process (affinity and cgroup limits respected).
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Memory this process can still take, in bytes: the kernel's `MemAvailable`, lowered to the
/// headroom of a cgroup v2 memory limit when one is set; `None` where neither can be read.
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("MemAvailable:"))
                .and_then(|v| v.trim().strip_suffix("kB"))
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(|kb| kb * 1024)
        });
    let read = |name: &str| -> Option<u64> {
        std::fs::read_to_string(format!("/sys/fs/cgroup/{name}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    let cgroup =
        read("memory.max").map(|max| max.saturating_sub(read("memory.current").unwrap_or(0)));
    match (meminfo, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Share of the available memory one command may plan to take.
const MEMORY_SHARE: f64 = 0.9;

/// Refuses, before any allocation, work that needs `need` bytes when `available` bytes (see
/// [`available_memory`]; `None`: unknown, allowed) cannot hold it with a margin. The error
/// says what needs how much, what is available, and `change` (what to change).
pub fn check_memory(
    need: u64,
    available: Option<u64>,
    what: &str,
    change: &str,
) -> Result<(), String> {
    match available {
        Some(free) if need as f64 > MEMORY_SHARE * free as f64 => Err(format!(
            "{what} needs about {} of memory and {} is available: {change}",
            show_bytes(need),
            show_bytes(free)
        )),
        _ => Ok(()),
    }
}

/// Bytes as GiB (or MiB below 1 GiB), one decimal.
pub fn show_bytes(bytes: u64) -> String {
    let gib = bytes as f64 / (1u64 << 30) as f64;
    if gib >= 1.0 {
        format!("{gib:.1} GiB")
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
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
    /// Bytes in each buffer; each copy moves twice this (read + write).
    pub bytes: usize,
    /// Threads that copied, each its own slice.
    pub threads: usize,
    /// Timed runs after the warm-up.
    pub runs: usize,
    /// Median time of one copy, seconds.
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
    fn isa_picks_the_widest_offered_set_the_cpu_runs() {
        let none = CpuArch::scalar();
        let all = [
            Isa::Scalar,
            Isa::Sse41,
            Isa::Avx2,
            Isa::Avx2Fma,
            Isa::Avx512,
        ];
        assert_eq!(Isa::best_of(&none, &all), Isa::Scalar);
        assert_eq!(Isa::best_of(&CpuArch::host(), &[]), Isa::Scalar);
        let host = CpuArch::host();
        let best = Isa::best_of(&host, &all);
        assert!(best.runs_on(&host));
        assert!(all.iter().filter(|i| i.runs_on(&host)).all(|&i| i <= best));
        assert_eq!(Isa::Avx2Fma.to_string(), "AVX2+FMA");
    }

    #[test]
    fn memory_is_checked_against_what_is_available() {
        let gib = 1u64 << 30;
        assert!(check_memory(8 * gib, Some(16 * gib), "x", "y").is_ok());
        let e = check_memory(18 * gib, Some(16 * gib), "the grid", "take --stride 2").unwrap_err();
        assert_eq!(
            e,
            "the grid needs about 18.0 GiB of memory and 16.0 GiB is available: take --stride 2"
        );
        // Unknown: allowed (the allocation itself may still fail cleanly).
        assert!(check_memory(u64::MAX, None, "x", "y").is_ok());
        assert_eq!(show_bytes(3 << 19), "1.5 MiB");
        // On Linux the kernel says something plausible.
        if cfg!(target_os = "linux") {
            let a = available_memory().expect("MemAvailable");
            assert!(a > (16 << 20) && a < (1u64 << 50), "{a}");
        }
    }

    #[test]
    fn detects_a_consistent_feature_set() {
        let f = CpuArch::host();
        // AVX2 implies SSE4.2 on every x86-64 part; AVX-512BW implies AVX-512F.
        assert!(!f.avx2 || (f.sse4_2 && f.sse4_1 && f.avx));
        assert!(!f.avx512bw || f.avx512f);
        assert_eq!(f, CpuArch::detect(), "the cached answer is the CPU's");
        assert_eq!(CpuArch::scalar().best(), "scalar");
        // A description claiming everything is cut down to what the CPU has.
        let all = CpuArch {
            avx512f: true,
            avx512bw: true,
            avx512vl: true,
            avx2: true,
            fma: true,
            neon: true,
            ..CpuArch::scalar()
        };
        let within = all.within_host();
        assert_eq!(within.avx512f, f.avx512f);
        assert_eq!(within.neon, f.neon);
        assert!(!CpuArch::scalar().within_host().avx2);
        assert!(!HostInfo::detect().cpu_model.is_empty());
    }

    #[test]
    fn copy_bench_reports_positive_bandwidth() {
        let b = copy_bandwidth(1 << 20, 2, 3).unwrap();
        assert_eq!(b.runs, 3);
        assert!(b.gb_per_s > 0.0 && b.median_s > 0.0);
    }
}

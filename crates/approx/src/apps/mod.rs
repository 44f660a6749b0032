//! The application suite: kernels re-expressed from the paper's Table 6, each written with the
//! accurate standard functions (`kernels/apps/*.cu`), turned into λ kernels by
//! [`transform`](crate::transform) and scored by its own quality metric against its
//! accurate output. Inputs come from fixed seeds at sizes that fill an H100.

mod suite;
mod workload;

pub use workload::{Extra, Workload};

use crate::catalog::Precision;
use crate::error::ApproxError;
use crate::numeric::Values;
use rand::SeedableRng;
use rayon::prelude::*;
use serde::Serialize;
use sigpu_runtime::cuda::{Gpu, KernelSource, Result};

/// How an app's output is scored against its accurate output (higher is worse).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Mean of |a − r| / |r| over outputs with r ≠ 0 (the paper's footnote 5).
    MeanRelative,
    /// Σ|a − r| / Σ|r| (the CUDA samples' L1 norm).
    L1Relative,
    /// ‖a − r‖₂ / ‖r‖₂.
    RelativeL2,
}

impl Metric {
    /// The error of `got` against `reference`; NaN in `got` where the reference is a number
    /// makes it infinite.
    pub fn error(self, got: &Values, reference: &Values) -> f64 {
        let n = reference.len().min(got.len());
        let (num, den, count) = (0..n)
            .into_par_iter()
            .map(|i| {
                let (a, r) = (got.get(i), reference.get(i));
                let d = if a.is_nan() && r.is_nan() {
                    0.0
                } else {
                    (a - r).abs()
                };
                let d = if d.is_nan() { f64::INFINITY } else { d };
                match self {
                    Metric::MeanRelative if r != 0.0 => (d / r.abs(), 0.0, 1usize),
                    Metric::MeanRelative => (0.0, 0.0, 0),
                    Metric::L1Relative => (d, r.abs(), 1),
                    Metric::RelativeL2 => (d * d, r * r, 1),
                }
            })
            .reduce(|| (0.0, 0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
        if got.len() != reference.len() {
            return f64::INFINITY;
        }
        match self {
            Metric::MeanRelative => num / count.max(1) as f64,
            Metric::L1Relative => num / den,
            Metric::RelativeL2 => (num / den).sqrt(),
        }
    }
}

/// One application of the suite.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct App {
    /// The name `--app` takes, e.g. `blackscholes`.
    pub name: &'static str,
    /// The paper's abbreviation (Table 6).
    pub abbr: &'static str,
    /// One line: what it computes, and at what size.
    pub about: &'static str,
    /// Standard functions the kernel calls.
    pub functions: &'static str,
    /// Element type of its data and kernel.
    pub precision: Precision,
    /// How its output is scored against the accurate run's.
    pub metric: Metric,
    /// The kernel the transformation rewrites.
    pub kernel: &'static str,
    /// The kernel's file name, as NVRTC's messages show it.
    #[serde(skip)]
    pub file: &'static str,
    /// The kernel's CUDA source, embedded.
    #[serde(skip)]
    pub code: &'static str,
    #[serde(skip)]
    build: fn(&Gpu, &KernelSource, &mut rand_chacha::ChaCha8Rng) -> Result<Workload>,
}

impl App {
    /// The kernel source as written (accurate functions only).
    pub fn source(&self) -> KernelSource {
        KernelSource::embedded(self.file, self.code)
    }

    /// Uploads the app's inputs (drawn from `seed`) and allocates its outputs; `src` is the
    /// module the app's helper kernels are taken from.
    pub fn workload(&self, gpu: &Gpu, src: &KernelSource, seed: u64) -> Result<Workload> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (self.build)(gpu, src, &mut rng)
    }
}

macro_rules! app_source {
    ($file:literal) => {
        include_str!(concat!("../../kernels/apps/", $file))
    };
}

/// The suite, in the paper's Table 6 order.
pub const APPS: &[App] = &[
    App {
        name: "blackscholes",
        abbr: "BLA",
        about: "Black-Scholes option pricing, 16M options",
        functions: "sqrt, div, log, exp, rcp",
        precision: Precision::F32,
        metric: Metric::L1Relative,
        kernel: "blackscholes",
        file: "blackscholes.cu",
        code: app_source!("blackscholes.cu"),
        build: suite::blackscholes,
    },
    App {
        name: "montecarlo",
        abbr: "MCO",
        about: "Monte-Carlo option pricing, 1024 options x 65536 paths",
        functions: "exp, sqrt, div",
        precision: Precision::F32,
        metric: Metric::MeanRelative,
        kernel: "montecarlo",
        file: "montecarlo.cu",
        code: app_source!("montecarlo.cu"),
        build: suite::montecarlo,
    },
    App {
        name: "cp",
        abbr: "COP",
        about: "Coulombic potential, 1024x1024 lattice x 1000 atoms",
        functions: "div, sqrt",
        precision: Precision::F32,
        metric: Metric::RelativeL2,
        kernel: "cp",
        file: "cp.cu",
        code: app_source!("cp.cu"),
        build: suite::cp,
    },
    App {
        name: "lavamd",
        abbr: "LAV",
        about: "lavaMD-style pair potential, 4096 boxes x 100 particles",
        functions: "exp",
        precision: Precision::F32,
        metric: Metric::RelativeL2,
        kernel: "lavamd",
        file: "lavamd.cu",
        code: app_source!("lavamd.cu"),
        build: suite::lavamd,
    },
    App {
        name: "nbody",
        abbr: "NBO",
        about: "all-pairs n-body accelerations, 65536 bodies",
        functions: "rsqrt (1/sqrt)",
        precision: Precision::F32,
        metric: Metric::RelativeL2,
        kernel: "nbody",
        file: "nbody.cu",
        code: app_source!("nbody.cu"),
        build: suite::nbody,
    },
    App {
        name: "corr",
        abbr: "COR",
        about: "correlation preprocessing (mean, std, scale), 512 x 32768, f64",
        functions: "div, sqrt",
        precision: Precision::F64,
        metric: Metric::RelativeL2,
        kernel: "corr",
        file: "corr.cu",
        code: app_source!("corr.cu"),
        build: suite::corr,
    },
    App {
        name: "gaussian",
        abbr: "GUS",
        about: "Gaussian elimination Fan1 + Fan2, 1024 x 1024, solution by back substitution",
        functions: "div",
        precision: Precision::F32,
        metric: Metric::RelativeL2,
        kernel: "fan1",
        file: "gaussian.cu",
        code: app_source!("gaussian.cu"),
        build: suite::gaussian,
    },
    App {
        name: "boxmuller",
        abbr: "MEN",
        about: "Box-Muller (Mersenne BoxMullerGPU), 16M normals",
        functions: "log, sqrt, sin, cos",
        precision: Precision::F32,
        metric: Metric::L1Relative,
        kernel: "boxmuller",
        file: "boxmuller.cu",
        code: app_source!("boxmuller.cu"),
        build: suite::boxmuller,
    },
    App {
        name: "cfd",
        abbr: "CFD",
        about: "CFD compute_step_factor, 8M cells, f64",
        functions: "sqrt, rcp, div",
        precision: Precision::F64,
        metric: Metric::MeanRelative,
        kernel: "cfd",
        file: "cfd.cu",
        code: app_source!("cfd.cu"),
        build: suite::cfd,
    },
    App {
        name: "mriq",
        abbr: "MRQ",
        about: "MRI-Q, 262144 voxels x 2048 k-space samples",
        functions: "sin, cos",
        precision: Precision::F32,
        metric: Metric::RelativeL2,
        kernel: "mriq",
        file: "mriq.cu",
        code: app_source!("mriq.cu"),
        build: suite::mriq,
    },
    App {
        name: "bilateral",
        abbr: "BIF",
        about: "bilateral filter, 2048x2048, radius 5",
        functions: "div, exp",
        precision: Precision::F32,
        metric: Metric::MeanRelative,
        kernel: "bilateral",
        file: "bilateral.cu",
        code: app_source!("bilateral.cu"),
        build: suite::bilateral,
    },
    App {
        name: "srad",
        abbr: "SRD",
        about: "SRAD diffusion coefficient, 4096x4096",
        functions: "rcp, div",
        precision: Precision::F32,
        metric: Metric::L1Relative,
        kernel: "srad",
        file: "srad.cu",
        code: app_source!("srad.cu"),
        build: suite::srad,
    },
];

/// The app called `name` (or its abbreviation), or an error listing the suite.
pub fn find(name: &str) -> std::result::Result<&'static App, ApproxError> {
    APPS.iter()
        .find(|a| a.name == name || a.abbr.eq_ignore_ascii_case(name))
        .ok_or_else(|| ApproxError::UnknownApp {
            name: name.to_owned(),
            known: APPS.iter().map(|a| a.name).collect::<Vec<_>>().join(", "),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::transform;

    #[test]
    fn every_app_transforms() {
        for app in APPS {
            let t = transform(app.code, app.kernel).unwrap_or_else(|e| panic!("{}: {e}", app.name));
            assert!(!t.rewrites.is_empty(), "{}", app.name);
        }
        assert_eq!(APPS.len(), 12);
    }

    #[test]
    fn metrics() {
        let r = Values::F32(vec![1.0, -2.0, 4.0]);
        let g = Values::F32(vec![1.1, -2.0, 4.0]);
        assert!((Metric::L1Relative.error(&g, &r) - 0.1 / 7.0).abs() < 1e-6);
        assert!((Metric::MeanRelative.error(&g, &r) - 0.1 / 3.0).abs() < 1e-6);
        assert!((Metric::RelativeL2.error(&g, &r) - (0.01f64 / 21.0).sqrt()).abs() < 1e-6);
        assert_eq!(Metric::RelativeL2.error(&r, &r), 0.0);
        let nan = Values::F32(vec![f32::NAN, -2.0, 4.0]);
        assert!(Metric::L1Relative.error(&nan, &r).is_infinite());
    }

    #[test]
    fn unknown_app_lists_the_suite() {
        let e = find("blackscholez").unwrap_err().to_string();
        assert!(e.contains("blackscholes") && e.contains("srad"), "{e}");
        assert_eq!(find("MRQ").unwrap().name, "mriq");
    }
}

//! The filter front door: a spec (SciPy's `(b, a)`, a signature, or second-order sections),
//! [`FilterOptions`] and a [`Target`] go in; the accuracy contract ([`crate::Lfilter`],
//! [`crate::Sos`]) picks the method once, the planner picks the engine that runs that method on
//! the target, and one object behind one trait, [`Recurrence`], comes out. The CLI, the Python
//! package and the lab call this and nothing else, so a method the contract chose is never
//! swapped for another on some face.
//!
//! | target | plr / fir | pole-cascade | sos | serial, sos-serial |
//! |---|---|---|---|---|
//! | CPU | blocked CPU engines | CPU (or `sections`) | CPU | CPU (or `sections`) |
//! | GPU, host data | PLR kernel | numerator on the CPU, pole sections on the GPU | fused sections | CPU |
//! | GPU, device data | PLR kernel | numerator (FIR kernel) and pole sections on the GPU; zf refused | fused sections | refused |
//!
//! On the CPU, a (b, a) filter the contract sends to `pole-cascade` or `serial` runs as
//! second-order sections converted from its zeros and poles (method `sections`, module
//! `sections`) where their bound keeps the contract: one blocked pass, the speed of `sosfilt`.
//! Where the contract keeps a filter only serially, device data is refused with the reason and
//! the way out (host arrays, or the filter as second-order sections), never run by a kernel
//! the contract did not choose. Integer signatures run exactly (wrapping) with the blocked
//! method everywhere.
//!
//! ```
//! use sigpu_recurrence::planner::{plan, FilterSpec};
//! use sigpu_recurrence::{FilterOptions, Method};
//! use sigpu_runtime::Target;
//!
//! let spec = FilterSpec::ba(&[0.2], &[1.0, -0.8]);
//! let filter = plan::<f64>(&spec, FilterOptions::default(), &Target::cpu())?;
//! assert_eq!(filter.report().method, Method::Plr);
//! let (y, zf) = filter.apply(&[1.0, 0.0, 0.0], None)?;
//! assert!((y[2] - 0.128).abs() < 1e-15 && (zf[0] - 0.1024).abs() < 1e-15);
//! # Ok::<(), sigpu_recurrence::FilterError>(())
//! ```

mod gpu;
mod sections;
mod spec;

use crate::design::Lfilter;
use crate::elem::{DType, Element};
pub use crate::engine::{Batch, DeviceBatch, Recurrence, Timing};
use crate::error::FilterError;
use crate::filter::{check_finite, FilterOptions};
use crate::sos::Sos;
use sigpu_runtime::Target;
pub use spec::FilterSpec;
use std::any::Any;
use std::sync::{Arc, Mutex, OnceLock};

/// A planned filter of any element type.
pub type Planned<T> = Arc<dyn Recurrence<T>>;

/// Plans filters and keeps what it built: computing the contract's bounds, the factor tables
/// and (on a GPU) compiling kernels is done once per filter, element type, options and target.
/// On a GPU the key includes the stream, since launches of one compiled filter share its
/// look-back state and must be ordered.
pub struct FilterPlanner {
    cache: Mutex<Vec<(Key, Arc<dyn Any + Send + Sync>)>>,
}

type Key = (Vec<u64>, String, DType, Option<(usize, usize)>);

/// The accuracy contract in one paragraph, as `sigpu filter --help` shows it.
pub const CONTRACT: &str = "\
Accuracy contract: for every stable filter the output is within 4x the error of \
scipy.signal.lfilter / sosfilt at the same dtype, against the exact output of the coefficients \
as given. Before running, the error of each method is predicted from the filter (growth of the \
block correction factors, impulse-response norms); a (b, a) filter runs blocked (plr), as its \
FIR part followed by all-pole second-order sections from its poles (pole-cascade), on the CPU \
as second-order sections from its zeros and poles (sections), or serially (serial) - whichever \
keeps the contract fastest. --json reports \"method\" and \"error_bound\" \
(predicted max|error| / max|x|). Unstable filters (exact step-down test) are refused unless \
--allow-unstable. Integer element types (i32, i64, --signature only) wrap on overflow like \
two's-complement C integers, with no error: exact modulo 2^32 / 2^64.";

/// Filters a planner keeps; the oldest goes first.
const KEEP: usize = 64;

impl Default for FilterPlanner {
    fn default() -> Self {
        FilterPlanner::new()
    }
}

impl FilterPlanner {
    /// An empty planner.
    pub fn new() -> FilterPlanner {
        FilterPlanner {
            cache: Mutex::new(Vec::new()),
        }
    }

    /// True when a filter planned for `spec`, `options`, `T` and `target` is kept (the next
    /// [`FilterPlanner::plan`] of it returns it without set-up).
    pub fn holds<T: Element>(
        &self,
        spec: &FilterSpec,
        options: FilterOptions,
        target: &Target,
    ) -> bool {
        let key = Self::key::<T>(spec, options, target).1;
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.iter().any(|(k, _)| *k == key)
    }

    /// The options as the filter is built with them (a CPU target's narrowing applied) and the
    /// cache key.
    fn key<T: Element>(
        spec: &FilterSpec,
        options: FilterOptions,
        target: &Target,
    ) -> (FilterOptions, Key) {
        let options = match target {
            Target::Cpu(c) => FilterOptions {
                threads: c.threads.or(options.threads),
                cpu: if c.arch == sigpu_runtime::host::CpuArch::host() {
                    options.cpu
                } else {
                    c.arch
                },
                ..options
            },
            Target::Gpu(_) => options,
        };
        let place = target
            .gpu()
            .map(|g| (g.gpu().ordinal(), g.stream().cu_stream() as usize));
        let key: Key = (spec.key(), format!("{options:?}"), T::DTYPE, place);
        (options, key)
    }

    /// The filter `spec` in element type `T` on `target`, the method chosen by the accuracy
    /// contract (see the module docs for the engine each method gets). A CPU target's
    /// instruction sets and threads, where narrowed, replace the options'.
    pub fn plan<T: Element>(
        &self,
        spec: &FilterSpec,
        options: FilterOptions,
        target: &Target,
    ) -> Result<Planned<T>, FilterError> {
        let (options, key) = Self::key::<T>(spec, options, target);
        {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((_, hit)) = cache.iter().find(|(k, _)| *k == key) {
                if let Some(f) = hit.downcast_ref::<Planned<T>>() {
                    return Ok(f.clone());
                }
            }
        }
        let built = build::<T>(spec, options, target)?;
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= KEEP {
            cache.remove(0);
        }
        cache.push((key, Arc::new(built.clone())));
        Ok(built)
    }
}

/// The process's planner: [`plan`], [`crate::lfilter`] and the functions of
/// [`crate::signal`] plan through it.
pub fn planner() -> &'static FilterPlanner {
    static PLANNER: OnceLock<FilterPlanner> = OnceLock::new();
    PLANNER.get_or_init(FilterPlanner::new)
}

/// [`FilterPlanner::plan`] on the process's planner.
pub fn plan<T: Element>(
    spec: &FilterSpec,
    options: FilterOptions,
    target: &Target,
) -> Result<Planned<T>, FilterError> {
    planner().plan(spec, options, target)
}

/// SciPy's `scipy.signal.lfilter(b, a, x, zi=zi)` on one channel, on the CPU with the method the
/// accuracy contract picks: returns y and zf. Rejects non-finite input values, naming the first.
/// (For N-d arrays with an axis: [`crate::signal::lfilter`]; for a GPU: [`plan`].)
pub fn lfilter<T: Element>(
    b: &[f64],
    a: &[f64],
    x: &[T],
    zi: Option<&[T]>,
) -> Result<(Vec<T>, Vec<T>), FilterError> {
    let filter = plan::<T>(
        &FilterSpec::ba(b, a),
        FilterOptions::default(),
        &Target::cpu(),
    )?;
    if let Some(zi) = zi {
        check_finite(zi, "zi")?;
    }
    let mut y = crate::cpu::output_vec(x.len());
    let mut zf = vec![T::ZERO; filter.state_len()];
    filter.run(Batch {
        x,
        channels: 1,
        y: &mut y,
        zi,
        zf: Some(&mut zf),
        fresh: Some("x"),
    })?;
    Ok((y, zf))
}

/// The contract's method for `spec`, then the engine that runs it on `target`.
fn build<T: Element>(
    spec: &FilterSpec,
    options: FilterOptions,
    target: &Target,
) -> Result<Planned<T>, FilterError> {
    let method = match spec {
        FilterSpec::Ba { b, a } => Method::Ba(Lfilter::<T>::new(b, a, options)?),
        FilterSpec::Signature(s) => Method::Ba(Lfilter::<T>::from_signature(s, options)?),
        FilterSpec::Sos(rows) => Method::Sos(Sos::<T>::new(rows, options)?),
    };
    match (target, method) {
        // On the CPU a (b, a) filter the contract keeps off the blocked (b, a) method runs as
        // sections where they keep the contract (module `sections`).
        (Target::Cpu(_), Method::Ba(f)) => match sections::convert(f) {
            Ok(s) => Ok(Arc::new(s)),
            Err(f) => Ok(Arc::new(*f)),
        },
        (Target::Cpu(_), Method::Sos(s)) => Ok(Arc::new(s)),
        (Target::Gpu(g), Method::Ba(f)) => gpu::ba(g, f),
        (Target::Gpu(g), Method::Sos(s)) => gpu::sections(g, s),
    }
}

/// The CPU filter the contract built for a spec.
enum Method<T: Element> {
    Ba(Lfilter<T>),
    Sos(Sos<T>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Method as M;

    #[test]
    fn the_planner_keeps_the_contract_and_reuses_what_it_built() {
        let planner = FilterPlanner::new();
        let spec = FilterSpec::ba(&[0.5], &[1.0, -0.5]);
        let a = planner
            .plan::<f32>(&spec, FilterOptions::default(), &Target::cpu())
            .unwrap();
        let b = planner
            .plan::<f32>(&spec, FilterOptions::default(), &Target::cpu())
            .unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.report().method, M::Plr);
        assert!(a.device().starts_with("cpu ("));
        let other = planner
            .plan::<f64>(&spec, FilterOptions::default(), &Target::cpu())
            .unwrap();
        assert_eq!(other.state_len(), 1);
        let sos = FilterSpec::Sos(vec![[1.0, 0.0, 0.0, 1.0, -0.5, 0.0]]);
        let s = planner
            .plan::<f64>(&sos, FilterOptions::default(), &Target::cpu())
            .unwrap();
        assert_eq!((s.sections(), s.state_len()), (Some(1), 2));
        let (y, _) = s.apply(&[1.0, 0.0], None).unwrap();
        assert_eq!(y, [1.0, 0.5]);
    }
}

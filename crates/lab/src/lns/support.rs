//! Timing for operations that fail with a crate's own error (`LnsError`).

use sigpu_runtime::cuda::{time_gpu, Error, Gpu, Timing};

/// [`time_gpu`] for operations that fail with their crate's error (`LnsError`): the first
/// error stops the operation (the remaining runs enqueue nothing) and is returned instead of
/// the timing.
pub fn time_op<E: From<Error>>(
    gpu: &Gpu,
    warmup: usize,
    runs: usize,
    mut op: impl FnMut() -> Result<(), E>,
) -> Result<Timing, E> {
    let mut failed = None;
    let timing = time_gpu(gpu, warmup, runs, || {
        if failed.is_none() {
            failed = op().err();
        }
        Ok(())
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(timing),
    }
}

//! Shared pieces of the axis self-checks: random words, merging reports, one matmul case.

use crate::axis::MatShape;
use crate::error::LnsError;
use crate::format::Format;
use crate::gpu::axis::GpuAxis;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{compare_exact, CheckReport, DeviceSlice, DeviceSliceMut, Gpu};
use sigpu_runtime::GpuTarget;

/// A random word: mostly finite over a spread of binades, rarely a special.
pub(super) fn word(rng: &mut ChaCha8Rng, f: Format, specials: bool) -> u32 {
    if specials && rng.random_range(0..50) == 0 {
        return [
            f.zero(),
            f.nan(),
            f.from_f64(f64::INFINITY),
            f.from_f64(f64::NEG_INFINITY),
        ][rng.random_range(0..4)];
    }
    let x = rng.random_range(-12.0..12.0f64).exp2();
    f.from_f64(if rng.random_bool(0.5) { x } else { -x })
}

/// Adds `b`'s report (of the case `label`) to `a`'s; the first mismatch's note is kept.
pub(super) fn merge(a: &mut CheckReport, b: CheckReport, label: String) {
    if b.mismatches > 0 && a.mismatches == 0 {
        a.note = format!("{label}: {}", b.note);
    }
    a.elements += b.elements;
    a.mismatches += b.mismatches;
    a.max_error = a.max_error.max(b.max_error);
}

/// The product of `a` and `b` (words of `axis`'s format) on the device vs the CPU twin, in
/// u32 words and, for formats of ≤ 16 bits, u16 words.
pub(super) fn matmul_case(
    gpu: &Gpu,
    axis: &GpuAxis,
    target: &GpuTarget,
    shape: MatShape,
    a: &[u32],
    b: &[u32],
    report: &mut CheckReport,
) -> Result<(), LnsError> {
    let want = axis.format.matmul(a, b, shape)?;
    let (da, db) = (gpu.upload(a)?, gpu.upload(b)?);
    let mut out = gpu.alloc_poisoned::<u32>(want.len())?;
    axis.matmul(
        target,
        &DeviceSlice::of(&da),
        &DeviceSlice::of(&db),
        shape,
        &mut DeviceSliceMut::of(&mut out),
    )?;
    merge(
        report,
        compare_exact(&gpu.download(&out)?, &want),
        format!("matmul {shape:?}"),
    );
    if axis.format.word_bits() <= 16 {
        let narrow = |v: &[u32]| v.iter().map(|&w| w as u16).collect::<Vec<u16>>();
        let (da, db) = (gpu.upload(&narrow(a))?, gpu.upload(&narrow(b))?);
        let mut out = gpu.alloc_poisoned::<u16>(want.len())?;
        axis.matmul(
            target,
            &DeviceSlice::of(&da),
            &DeviceSlice::of(&db),
            shape,
            &mut DeviceSliceMut::of(&mut out),
        )?;
        let got: Vec<u32> = gpu.download(&out)?.into_iter().map(u32::from).collect();
        merge(
            report,
            compare_exact(&got, &want),
            format!("u16 matmul {shape:?}"),
        );
    }
    Ok(())
}

//! Exact element-wise products and quotients of LNS words on the device, and the word types
//! of device arrays.

use super::Geo;
use crate::error::LnsError;
use crate::format::Format;
use sigpu_runtime::cuda::{equal_lengths, DeviceBuffer, DeviceSlice, DeviceSliceMut, Gpu};
use sigpu_runtime::GpuTarget;

/// A public element-wise op over [`mul_div`]: `divide` says whether b divides.
macro_rules! mul_div_op {
    ($(#[$doc:meta])* $name:ident, $divide:literal) => {
        $(#[$doc])*
        pub fn $name(
            gpu: &Gpu,
            format: Format,
            a: &DeviceBuffer<u32>,
            b: &DeviceBuffer<u32>,
            out: &mut DeviceBuffer<u32>,
        ) -> Result<(), LnsError> {
            mul_div(gpu, format, [a, b], out, $divide)
        }
    };
}

mul_div_op!(
    /// out[i] = a[i] · b[i] on LNS words of `format`, exact (as [`Format::mul`]).
    mul,
    false
);
mul_div_op!(
    /// out[i] = a[i] / b[i] on LNS words of `format`, exact (as [`Format::div`]).
    div,
    true
);

fn mul_div(
    gpu: &Gpu,
    format: Format,
    [a, b]: [&DeviceBuffer<u32>; 2],
    out: &mut DeviceBuffer<u32>,
    div: bool,
) -> Result<(), LnsError> {
    let target = GpuTarget::new(gpu.clone());
    let (a, b) = (DeviceSlice::of(a), DeviceSlice::of(b));
    mul_div_on(&target, format, &a, &b, &mut DeviceSliceMut::of(out), div)
}

/// out[i] = a[i] · b[i], or a[i] / b[i] when `divide`, on u32 device views (the caller's
/// tensors or sigpu's buffers), exact, enqueued on `target`'s stream without waiting.
pub fn mul_div_on(
    target: &GpuTarget,
    format: Format,
    a: &DeviceSlice<'_, u32>,
    b: &DeviceSlice<'_, u32>,
    out: &mut DeviceSliceMut<'_, u32>,
    divide: bool,
) -> Result<(), LnsError> {
    let gpu = target.gpu();
    let n = equal_lengths("LNS mul/div", &[a.len(), b.len(), out.len()])?;
    if n == 0 {
        return Ok(());
    }
    let geo = Geo {
        f: format.frac_bits as i32,
        log_bits: format.log_bits() as i32,
        ..Geo::default()
    };
    let (source, config) = super::streaming(gpu, n);
    let kernel = gpu.kernel(&source, "lns_mul_div_words")?;
    let (n64, op) = (n as u64, divide as i32);
    target
        .launch(&kernel)
        .arg(&geo)
        .slice(a)
        .slice(b)
        .slice_mut(out)
        .arg(&n64)
        .arg(&op)
        .run(config)?;
    Ok(())
}

/// Refuses words narrower than `format`'s.
pub(crate) fn check_word<W: LnsWord>(format: Format) -> Result<(), LnsError> {
    if format.word_bits() > W::BITS {
        return Err(LnsError::Unsupported(format!(
            "{} words hold {}-bit {} values: use u32 words",
            W::NAME,
            format.word_bits(),
            format
        )));
    }
    Ok(())
}

/// Device word types of LNS arrays: `u32` for every format, `u16` for formats of ≤ 16 bits.
pub trait LnsWord: sigpu_runtime::cuda::Plain + sealed::Sealed {
    /// Bits in the word: the widest format ([`Format::word_bits`]) it holds.
    const BITS: u32;
    /// The Rust type's name, for error messages.
    const NAME: &'static str;
    /// Kernel name suffix.
    const SUFFIX: &'static str;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u16 {}
}

impl LnsWord for u32 {
    const BITS: u32 = 32;
    const NAME: &'static str = "u32";
    const SUFFIX: &'static str = "";
}

impl LnsWord for u16 {
    const BITS: u32 = 16;
    const NAME: &'static str = "u16";
    const SUFFIX: &'static str = "_u16";
}

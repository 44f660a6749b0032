//! Element-wise add, sub, mul and div of random words on the GPU against `Format`'s.

use super::codes::Subject;
use super::{codes_apart, in_codes};
use crate::arith::AddSub;
use crate::error::LnsError;
use crate::format::Format;
use crate::gpu::{div, mul, GpuMethod};
use crate::value::Class;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sigpu_runtime::cuda::{CheckReport, DeviceBuffer, Gpu};

/// Mismatches found so far, with a note on the first.
#[derive(Default)]
struct Tally {
    elements: usize,
    mismatches: usize,
    max_error: i64,
    note: String,
}

impl Tally {
    fn mismatch(&mut self, note: impl FnOnce() -> String) {
        if self.mismatches == 0 {
            self.note = note();
        }
        self.mismatches += 1;
    }
}

/// About 2^20 random operand pairs: specials one in 64, magnitudes within 2^±12 of each other
/// (so most sums need s_b or d_b), and every 97th pair an exact cancellation x + (−x).
fn operands(rng: &mut ChaCha8Rng, format: Format) -> (Vec<u32>, Vec<u32>) {
    let n = (1 << 20) + rng.random_range(0..1000);
    let specials = [
        format.zero(),
        format.nan(),
        format.encode(Class::Inf { negative: false }),
    ];
    let word = |rng: &mut ChaCha8Rng| -> u32 {
        if rng.random_range(0..64) == 0 {
            return specials[rng.random_range(0..specials.len())];
        }
        let log = rng.random_range(-(12i64 << format.frac_bits)..(12i64 << format.frac_bits));
        format.encode(Class::Finite {
            negative: rng.random(),
            log,
        })
    };
    let a: Vec<u32> = (0..n).map(|_| word(rng)).collect();
    let mut b: Vec<u32> = (0..n).map(|_| word(rng)).collect();
    for i in (0..n).step_by(97) {
        b[i] = format.neg(a[i]);
    }
    (a, b)
}

/// The words `a op b` on the GPU against the CPU: add and sub through the method (within
/// `tol` codes), the exact mul and div (no tolerance).
#[allow(clippy::too_many_arguments)]
fn compare_ops(
    gpu: &Gpu,
    m: &GpuMethod,
    twin: &dyn AddSub,
    tol: i64,
    (a, b): (&[u32], &[u32]),
    (da, db): (&DeviceBuffer<u32>, &DeviceBuffer<u32>),
    out: &mut DeviceBuffer<u32>,
    tally: &mut Tally,
) -> Result<(), LnsError> {
    let format = m.format;
    for op in ["+", "-", "*", "/"] {
        gpu.poison(out)?;
        match op {
            "+" => m.add(da, db, out)?,
            "-" => m.sub(da, db, out)?,
            "*" => mul(gpu, format, da, db, out)?,
            _ => div(gpu, format, da, db, out)?,
        }
        let got = gpu.download(out)?;
        let op_tol = if op == "+" || op == "-" { tol } else { 0 };
        for i in 0..a.len() {
            let want = match op {
                "+" => format.add(twin, a[i], b[i]),
                "-" => format.sub(twin, a[i], b[i]),
                "*" => format.mul(a[i], b[i]),
                _ => format.div(a[i], b[i]),
            };
            let err = codes_apart(format, got[i], want);
            tally.max_error = tally.max_error.max(err);
            if err > op_tol {
                tally.mismatch(|| {
                    format!(
                        "first mismatch at [{i}]: {:#x} {op} {:#x} gave {:#x}, want {want:#x}",
                        a[i], b[i], got[i]
                    )
                });
            }
        }
        tally.elements += a.len();
    }
    Ok(())
}

/// u16 words (formats of ≤ 16 bits): the same sums and differences as the u32 kernel, bit for
/// bit.
fn compare_u16(
    gpu: &Gpu,
    m: &GpuMethod,
    (a, b): (&[u32], &[u32]),
    (da, db): (&DeviceBuffer<u32>, &DeviceBuffer<u32>),
    out: &mut DeviceBuffer<u32>,
    tally: &mut Tally,
) -> Result<(), LnsError> {
    let narrow = |v: &[u32]| v.iter().map(|&w| w as u16).collect::<Vec<u16>>();
    let (a16, b16) = (gpu.upload(&narrow(a))?, gpu.upload(&narrow(b))?);
    let mut out16 = gpu.alloc_poisoned::<u16>(a.len())?;
    for negate in [false, true] {
        gpu.poison(out)?;
        if negate {
            m.sub(&a16, &b16, &mut out16)?;
            m.sub(da, db, out)?;
        } else {
            m.add(&a16, &b16, &mut out16)?;
            m.add(da, db, out)?;
        }
        let (got16, got32) = (gpu.download(&out16)?, gpu.download(out)?);
        for i in 0..a.len() {
            tally.elements += 1;
            if got16[i] as u32 != got32[i] {
                tally.mismatch(|| {
                    format!(
                        "u16 words at [{i}]: {:#x} vs the u32 kernel's {:#x}",
                        got16[i], got32[i]
                    )
                });
            }
        }
    }
    Ok(())
}

/// GPU element-wise add of random words (specials included) vs `Format::add` with the CPU
/// twin: table methods bit for bit; formula methods within the certificate's codes.
pub(super) fn check(mut rng: ChaCha8Rng, s: &Subject) -> Result<CheckReport, LnsError> {
    let gpu = s.m.gpu();
    let (m, tol, format) = (&s.m, s.tol, s.m.format);
    let (a, b) = operands(&mut rng, format);
    let (da, db) = (gpu.upload(&a)?, gpu.upload(&b)?);
    let mut out = gpu.alloc_poisoned::<u32>(a.len())?;
    let mut tally = Tally::default();
    let (words, device) = ((&a[..], &b[..]), (&da, &db));
    compare_ops(gpu, m, &s.twin, tol, words, device, &mut out, &mut tally)?;
    if format.word_bits() <= 16 {
        compare_u16(gpu, m, words, device, &mut out, &mut tally)?;
    }
    let Tally {
        elements,
        mismatches,
        max_error,
        note,
    } = tally;
    Ok(in_codes(elements, mismatches, max_error, tol, note))
}

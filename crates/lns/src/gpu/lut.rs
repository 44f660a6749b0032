//! The texlut method's tables: every s_b and d_b result code of a short format as the texels
//! of one point-sampled 1-D texture per function (`lut_read` in lns.cu).

use crate::arith::{Accurate, AddSub};
use crate::format::Format;

/// 1.5 · 2^23: a code c is stored as the f32 1.5 · 2^23 + c, exact for |c| < 2^22, whose bits
/// minus this value's bits are c (the kernel's one integer subtract).
const OFFSET: f32 = 12_582_912.0;

/// The texels of s_b (`db` false) or d_b for inputs z0 − 1 ..= 0 of `format`: texel i holds the
/// f64 reference's code at z0 − 1 + i (the kernel clamps inputs below to texel 0, code 0).
/// d_b(0) = −∞ is never read (an add of x and −x returns zero before it), its texel is 0.
pub(super) fn texels(format: Format, db: bool) -> Vec<f32> {
    let reference = Accurate(format);
    let first = format.essential_zero_code() - 1;
    (first..=0)
        .map(|z| {
            let code = match (db, z) {
                (true, 0) => 0,
                (true, _) => reference.db(z),
                (false, _) => reference.sb(z),
            };
            debug_assert!(code.abs() < 1 << 22, "a texlut code fits the f32 offset");
            OFFSET + code as f32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texels decode, as the kernel does, to the reference's codes; texel 0 is code 0, so
    /// the clamp below z0 − 1 gives the essential zero's result.
    #[test]
    fn lns16_texels_decode_to_the_reference_codes() {
        let f = Format::LNS16;
        let reference = Accurate(f);
        let first = f.essential_zero_code() - 1;
        for db in [false, true] {
            let t = texels(f, db);
            assert_eq!(t.len() as i64, 1 - first);
            assert_eq!(t[0].to_bits() as i64 - OFFSET.to_bits() as i64, 0);
            for (i, x) in t.iter().enumerate() {
                let z = first + i as i64;
                let code = x.to_bits() as i64 - OFFSET.to_bits() as i64;
                let want = match (db, z) {
                    (true, 0) => 0,
                    (true, _) => reference.db(z),
                    (false, _) => reference.sb(z),
                };
                assert_eq!(code, want, "db {db}, z {z}");
            }
        }
    }
}

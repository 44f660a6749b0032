//! The fused cascade's coefficients: scipy's sos rows checked by the crate's one validator
//! (the CPU cascade's rules and words, [`crate::Sos::new`]) against the kernel's section
//! limit, and rounded once to the element type.

use crate::elem::Element;
use crate::error::FilterError;
use crate::sos_rows::{checked_rows, SectionLimit};

/// Sections beyond this are refused: the kernel unrolls every section.
pub const MAX_SECTIONS: usize = 64;

/// scipy's sos rows `[b0 b1 b2 a0 a1 a2]`, checked and rounded once to `T`: what every path
/// of the cascade computes with. Sections with poles on the unit circle (an integrator) are
/// taken, as scipy and the CPU cascade take them; a pole strictly outside is refused.
pub fn sos_coefficients<T: Element>(sos: &[[f64; 6]]) -> Result<Vec<[T; 6]>, FilterError> {
    let limit = SectionLimit {
        max: MAX_SECTIONS,
        engine: "the GPU cascade",
    };
    let rows = checked_rows::<T>(sos, limit, true)?;
    Ok(rows.iter().map(|r| r.map(T::from_f64)).collect())
}

/// Whether a section 1 + a1·z⁻¹ + a2·z⁻² is run: both poles inside or on the unit circle,
/// decided exactly ([`crate::stability::section_verdict`], the verdict the CPU cascade takes).
pub fn section_stable(a1: f64, a2: f64) -> bool {
    crate::stability::section_verdict(a1, a2).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::FilterOptions;
    use crate::sos::Sos;
    use crate::testing::BUTTER8_01;

    #[test]
    fn bad_rows_are_refused_with_their_place() {
        let mut s = BUTTER8_01;
        s[2][3] = 0.5;
        let e = sos_coefficients::<f32>(&s).unwrap_err().to_string();
        assert!(
            e.contains("sos[2, 3] (a0 of section 2) is 0.5") && e.contains("a0 = 1"),
            "{e}"
        );
        let mut s = BUTTER8_01;
        s[1][4] = f64::NAN;
        let e = sos_coefficients::<f64>(&s).unwrap_err().to_string();
        assert!(
            e.contains("sos[1, 4]") && e.contains("must be finite"),
            "{e}"
        );
        let e = sos_coefficients::<f32>(&[]).unwrap_err().to_string();
        assert!(e.contains("no sections"), "{e}");
        let e = sos_coefficients::<f32>(&[[1.0, 0.0, 0.0, 1.0, 0.0, 1e300]])
            .unwrap_err()
            .to_string();
        assert!(e.contains("sos[0, 5]") && e.contains("f32"), "{e}");
        let e = sos_coefficients::<f64>(&[[1.0, 0.0, 0.0, 1.0, -2.5, 1.0]])
            .unwrap_err()
            .to_string();
        assert!(e.contains("unstable"), "{e}");
        let e = sos_coefficients::<i32>(&BUTTER8_01)
            .unwrap_err()
            .to_string();
        assert!(e.contains("f32 or f64"), "{e}");
        let e = sos_coefficients::<f32>(&vec![BUTTER8_01[1]; MAX_SECTIONS + 1])
            .unwrap_err()
            .to_string();
        assert!(e.contains("the GPU cascade takes at most 64"), "{e}");
    }

    /// The CPU and the GPU cascades take one verdict: a marginal section (a pure integrator, a
    /// double pole at 1, poles at ±i) runs on both, as in scipy; a pole strictly outside the
    /// unit circle is refused by both, with the same words.
    #[test]
    fn cpu_and_gpu_agree_on_marginal_and_unstable_sections() {
        let marginal = [
            [1.0, 0.0, 0.0, 1.0, -1.0, 0.0],
            [1.0, 0.0, 0.0, 1.0, -2.0, 1.0],
            [1.0, 0.0, 0.0, 1.0, 0.0, 1.0],
        ];
        let unstable = [
            [1.0, 0.0, 0.0, 1.0, -2.5, 1.0],
            [1.0, 0.0, 0.0, 1.0, -1.0 - 1e-9, 0.0],
            [1.0, 0.0, 0.0, 1.0, 0.0, 1.0 + 1e-6],
        ];
        for row in marginal {
            assert!(section_stable(row[4], row[5]), "{row:?}");
            assert!(sos_coefficients::<f32>(&[row]).is_ok(), "{row:?}");
            assert!(sos_coefficients::<f64>(&[row]).is_ok(), "{row:?}");
            assert!(Sos::<f32>::new(&[row], FilterOptions::default()).is_ok());
            assert!(Sos::<f64>::new(&[row], FilterOptions::default()).is_ok());
        }
        for row in unstable {
            assert!(!section_stable(row[4], row[5]), "{row:?}");
            let gpu = sos_coefficients::<f64>(&[row]).unwrap_err();
            let cpu = Sos::<f64>::new(&[row], FilterOptions::default()).unwrap_err();
            assert!(matches!(gpu, FilterError::Unstable { .. }), "{gpu}");
            assert_eq!(gpu.to_string(), cpu.to_string());
        }
    }
}

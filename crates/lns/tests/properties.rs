//! Property tests on lns32 (too large to test exhaustively, unlike lns16): identities that must
//! hold exactly, and the half-ulp bound of the reference add.

use proptest::prelude::*;
use sigpu_lns::{Accurate, Class, Format};
use std::cmp::Ordering;

const F: Format = Format::LNS32;

/// Finite lns32 words with logs in [−60, 60] (room for products and quotients).
fn finite() -> impl Strategy<Value = u32> {
    (any::<bool>(), -60i64 << 23..60i64 << 23)
        .prop_map(|(negative, log)| F.encode(Class::Finite { negative, log }))
}

proptest! {
    #[test]
    fn products_and_quotients_are_exact(x in finite(), y in finite()) {
        prop_assert_eq!(F.div(F.mul(x, y), y), x);
        prop_assert_eq!(F.mul(F.div(x, y), y), x);
        prop_assert_eq!(F.recip(F.recip(x)), x);
        prop_assert_eq!(F.sqrt(F.mul(x, x)), F.abs(x));
        prop_assert_eq!(F.powi(x, 3), F.mul(x, F.mul(x, x)));
    }

    #[test]
    fn sums_cancel_commute_and_keep_zero(x in finite(), y in finite()) {
        let m = Accurate(F);
        prop_assert_eq!(F.add(&m, x, F.neg(x)), F.zero());
        prop_assert_eq!(F.add(&m, x, F.zero()), x);
        prop_assert_eq!(F.add(&m, x, y), F.add(&m, y, x));
        prop_assert_eq!(F.sub(&m, x, y), F.add(&m, x, F.neg(y)));
        prop_assert_eq!(F.neg(F.sub(&m, x, y)), F.sub(&m, y, x));
    }

    #[test]
    fn the_reference_add_is_within_half_an_ulp(x in finite(), y in finite()) {
        let m = Accurate(F);
        let exact = F.to_f64(x) + F.to_f64(y);
        let got = F.to_f64(F.add(&m, x, y));
        if exact == 0.0 {
            prop_assert_eq!(got, 0.0);
        } else if got != 0.0 {
            // The exact sum in f64 carries ~2^-52 relative error: far below 2^-23.
            let err = (got.abs().log2() - exact.abs().log2()).abs() / F.ulp();
            prop_assert!(err <= 0.5 + 1e-6, "{} + {} = {} (exact {}), {} ulp", F.to_f64(x), F.to_f64(y), got, exact, err);
            prop_assert_eq!(got.is_sign_negative(), exact.is_sign_negative());
        }
    }

    #[test]
    fn comparison_agrees_with_the_values(x in finite(), y in finite()) {
        prop_assert_eq!(F.compare(x, y), F.to_f64(x).partial_cmp(&F.to_f64(y)));
        prop_assert_eq!(F.compare(x, x), Some(Ordering::Equal));
    }

    #[test]
    fn conversions_round_trip(x in finite()) {
        prop_assert_eq!(F.from_f64(F.to_f64(x)), x);
    }
}

use super::*;

fn words(f: Format, xs: &[f64]) -> Vec<u32> {
    xs.iter().map(|&x| f.from_f64(x)).collect()
}

/// A deterministic spread of values of both signs over many binades.
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let u = (s >> 11) as f64 / (1u64 << 53) as f64;
            let sign = if s & 1 == 0 { 1.0 } else { -1.0 };
            sign * (20.0 * u - 10.0).exp2()
        })
        .collect()
}

/// The error of a word against an exact value, in ulps of the log.
fn log_err(f: Format, w: u32, exact: f64) -> f64 {
    (f.to_f64(w).abs().log2() - exact.abs().log2()).abs() / f.ulp()
}

#[test]
fn row_sums_are_within_half_an_ulp_and_agree_with_the_fused_sum() {
    for f in [Format::LNS16, Format::LNS32] {
        let xs = words(f, &values(4000, 7));
        let sums = f.reduce_rows(Reduce::Sum, &xs, 100).unwrap();
        assert_eq!(sums.len(), 40);
        for (row, &s) in xs.chunks(100).zip(&sums) {
            let exact: f64 = row.iter().map(|&w| f.to_f64(w)).sum();
            // f64's own sum carries ~1e-16 relative error, far below the bound's slack.
            assert!(log_err(f, s, exact) <= 0.5 + 1e-3, "{f}");
            let old = f.sum(row);
            assert!(
                (old as i64 - s as i64).abs() <= 1,
                "{f}: {old:#x} vs {s:#x}"
            );
        }
    }
}

#[test]
fn cancellation_is_exact_wherever_the_terms_sit() {
    let f = Format::LNS32;
    let mut xs = words(f, &values(257, 3));
    let negs: Vec<u32> = xs.iter().rev().map(|&w| f.neg(w)).collect();
    xs.extend(negs);
    assert_eq!(
        f.reduce_rows(Reduce::Sum, &xs, xs.len()).unwrap(),
        vec![f.zero()]
    );
}

#[test]
fn products_and_extremes_are_exact_with_specials() {
    let f = Format::LNS16;
    let row = words(f, &[2.0, -3.0, 0.5, 4.0]);
    let p = f.reduce_rows(Reduce::Prod, &row, 4).unwrap()[0];
    assert_eq!(p, f.mul(f.mul(row[0], row[1]), f.mul(row[2], row[3])));
    assert_eq!(f.reduce_rows(Reduce::Max, &row, 4).unwrap()[0], row[3]);
    assert_eq!(f.reduce_rows(Reduce::Min, &row, 4).unwrap()[0], row[1]);
    // 300 · 300 · (1/300) overflows in a fold of rounded products, not in the exact one.
    let row = words(f, &[300.0, 300.0, 1.0 / 300.0]);
    let p = f.reduce_rows(Reduce::Prod, &row, 3).unwrap()[0];
    assert!((f.to_f64(p) - 300.0).abs() < 1.0);
    let specials = [f.nan(), f.from_f64(1.0)];
    assert_eq!(
        f.decode(f.reduce_rows(Reduce::Max, &specials, 2).unwrap()[0]),
        Class::NaN
    );
    assert_eq!(Reduce::Prod.empty(f), f.from_f64(1.0));
    assert!(f.reduce_rows(Reduce::Sum, &row, 2).is_err());
    assert!(f.reduce_rows(Reduce::Sum, &row, 0).is_err());
    assert!("mean".parse::<Reduce>().is_err());
}

#[test]
fn matmul_is_a_fused_dot_per_output() {
    let f = Format::LNS32;
    let shape = MatShape {
        batch: 2,
        m: 3,
        k: 50,
        n: 4,
    };
    let a = words(f, &values(2 * 3 * 50, 11));
    let b = words(f, &values(2 * 50 * 4, 12));
    let c = f.matmul(&a, &b, shape).unwrap();
    for p in 0..2 {
        for i in 0..3 {
            for j in 0..4 {
                let arow = &a[(p * 3 + i) * 50..][..50];
                let bcol: Vec<u32> = (0..50).map(|t| b[p * 200 + t * 4 + j]).collect();
                let exact: f64 = arow
                    .iter()
                    .zip(&bcol)
                    .map(|(&x, &y)| f.to_f64(x) * f.to_f64(y))
                    .sum();
                let got = c[(p * 3 + i) * 4 + j];
                let old = f.dot(arow, &bcol).unwrap();
                assert!((old as i64 - got as i64).abs() <= 1);
                // Mixed signs: κ may be large, so compare with the f64 dot loosely.
                assert!(log_err(f, got, exact) <= 0.5 + 1e-2 || exact.abs() < 1e-6);
            }
        }
    }
    assert!(f.matmul(&a, &b[1..], shape).is_err());
}

#[test]
fn logsumexp_and_log_softmax_keep_their_bound() {
    let f = Format::LNS32;
    let x: Vec<f64> = (0..600)
        .map(|i| ((i * 37) % 101) as f64 * -0.3 + 2.0)
        .collect();
    let got = logsumexp_rows(f, &x, 200).unwrap();
    let bound = std::f64::consts::LN_2 * f.ulp() * 1.001;
    for (row, &g) in x.chunks(200).zip(&got) {
        let m = row.iter().cloned().fold(f64::MIN, f64::max);
        let exact = m + row.iter().map(|&v| (v - m).exp()).sum::<f64>().ln();
        assert!((g - exact).abs() <= bound + 1e-14, "{g} vs {exact}");
    }
    let ls = log_softmax_rows(f, &x, 200).unwrap();
    for (i, &v) in ls.iter().enumerate() {
        let exact = x[i] - got[i / 200];
        assert!((v - exact).abs() <= bound + 1e-14);
    }
    let special =
        logsumexp_rows(f, &[f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0, f64::NAN], 2).unwrap();
    assert_eq!(special[0], f64::NEG_INFINITY);
    assert!(special[1].is_nan());
}

#[test]
fn conversions_agree_with_the_format_s_own() {
    for f in [Format::LNS16, Format::LNS32, Format::new(6, 13).unwrap()] {
        let xs = values(20_000, 5);
        let mut special = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e300,
            1e-300,
            5e-324,
            1.0,
            -2.0,
        ];
        special.extend(xs);
        let ws = f.words_of(&special);
        for (&x, &w) in special.iter().zip(&ws) {
            // Both round log2|x| to nearest; they may differ only within ~1e-7 codes of a tie.
            let old = f.from_f64(x);
            assert!(
                (old as i64 - w as i64).abs() <= 1,
                "{f} {x}: {old:#x} vs {w:#x}"
            );
        }
        let back = f.values_of(&ws);
        for (&w, &v) in ws.iter().zip(&back) {
            let want = f.to_f64(w);
            assert!(
                v == want
                    || (v - want).abs() <= 4.0 * f64::EPSILON * want.abs()
                    || (v.is_nan() && want.is_nan()),
                "{f} {w:#x}: {v} vs {want}"
            );
        }
    }
}

#[test]
fn the_bit_exact_method_is_faithful_on_every_format_up_to_f16() {
    use crate::{certify, Method, Which};
    for f in 5..=16u32 {
        for i in [2u32, 5, 8] {
            let Ok(format) = Format::new(i, f) else {
                continue;
            };
            let m = Method::bit_exact(format).expect("f32split takes 5 ≤ F ≤ 23");
            let eval = m.cpu(format).unwrap().unwrap();
            for func in [Which::Sb, Which::Db] {
                let c = certify(&eval, func, "f32split", &|_| {});
                assert!(c.faithful, "{format} {func:?}: {} ulps", c.max_error_ulps);
            }
        }
    }
    assert_eq!(Method::bit_exact(Format::new(8, 4).unwrap()), None);
}

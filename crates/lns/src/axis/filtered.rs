//! A model of the short-row logsumexp kernel's filtered path (`ax_row_lse_filtered` in
//! kernels/axis_rows.cu) and the tests that it gives the exact path's code wherever it
//! answers. The path sums the exact path's terms in plain f64 instead of the 128-bit integer
//! and answers only where the rounding of the sum's log cannot differ: the rows it declines go
//! to the exact path, so the words stay [`super::logsumexp_rows`]'s.

use super::exact::Consts;
use super::{fused, nat_class};
use crate::format::Format;
use crate::value::Class;

/// Largest |x| at the row's top the filtered path takes (`AX_FILTER_X`).
const X_MAX: f64 = 1048576.0;
/// Elements further below the top are raised to top − SPAN (`AX_FILTER_SPAN`).
const SPAN: f64 = 42.0;
/// Terms below 2^-KK of the top count as 2^-KK (`AX_FILTER_KK`).
const KK: i64 = 60;
/// The path answers where p is more than 2^(F − MARGIN) codes from a tie (`AX_FILTER_MARGIN`).
const MARGIN: i64 = 37;
/// Elements a lane holds (`AX_ROW_CAP`).
const CAP: usize = 16;

/// The filtered path's term 2^(frac·2^-F): the exact path's for F ≤ 12, else the table's
/// 2^(j/256) (every 16th entry of the exact path's) times the exact path's cubic in the
/// remaining r < 2^(F−8) codes.
fn term(c: &Consts, frac: u64) -> f64 {
    if c.f <= 12 {
        return c.exp_frac(frac);
    }
    let esh = c.f - 8;
    let t = c.exp[((frac >> esh) << 4) as usize];
    let r = (frac & ((1 << esh) - 1)) as f64;
    let [c1, c2, c3] = c.exp_poly;
    t.mul_add(r * r.mul_add(r.mul_add(c3, c2), c1), t)
}

/// The code offset of the filtered path for a row held by `lanes` lanes reading vectors of
/// `v` elements (lane l holds elements (l + lanes·q)·v + i), or None where the kernel hands
/// the row to the exact path. f32 inputs (`f32`) take the float max and the raised floor in
/// f32, as the kernel's T. Sums in the kernel's order: each lane over its elements in two chains
/// ([`two_chains`]), then the butterfly.
fn filtered(c: &Consts, row: &[f64], lanes: usize, v: usize, f32: bool) -> Option<i64> {
    let (top, p) = offset(c, row, lanes, v, f32)?;
    let magic = 6755399441055744.0f64;
    let n = (p + magic) - magic; // ties to even, as the kernel's 2^52 trick
    if ((p - n).abs() - 0.5).abs() <= ((c.f as i64 - MARGIN) as f64).exp2() {
        return None;
    }
    Some(top + n as i64)
}

/// The top code and p, the sum's log offset from it in codes before rounding, as the
/// filtered path computes them (None where it declines the row before summing).
fn offset(c: &Consts, row: &[f64], lanes: usize, v: usize, f32: bool) -> Option<(i64, f64)> {
    let f = c.f as i64;
    if f > 24 {
        return None;
    }
    let as_t = |x: f64| if f32 { x as f32 as f64 } else { x };
    let magic = 6755399441055744.0f64;
    let s = |x: f64| x * c.codes_per_nat + magic;
    let at = |l: usize, j: usize| (l + lanes * (j / v)) * v + j % v;
    let vals: Vec<Vec<f64>> = (0..lanes)
        .map(|l| {
            (0..CAP)
                .map(|j| row.get(at(l, j)).copied().unwrap_or(f64::NEG_INFINITY))
                .collect()
        })
        .collect();
    let all = vals.iter().flatten();
    let xmax = all
        .clone()
        .fold(f64::NEG_INFINITY, |m, &x| if x > m { x } else { m });
    if !all.clone().all(|&x| x <= X_MAX) || xmax.is_nan() || xmax < -X_MAX {
        return None;
    }
    let stop = s(xmax);
    let toplo = stop.to_bits() as u32;
    let xlow = as_t(xmax - SPAN);
    let mut sums: Vec<f64> = vals
        .iter()
        .map(|lane| {
            two_chains(lane.iter().map(|&x| {
                let lo = s(if x > xlow { x } else { xlow }).to_bits() as u32;
                let d = (lo.wrapping_sub(toplo) as i32 as i64).max(-(KK << f));
                term(c, (d & ((1 << f) - 1)) as u64) * ((d >> f) as f64).exp2()
            }))
        })
        .collect();
    let mut o = lanes / 2;
    while o > 0 {
        sums = (0..lanes).map(|l| sums[l] + sums[l ^ o]).collect();
        o /= 2;
    }
    let (e, lm) = c.log2_split(sums[0]);
    let p = lm.mul_add((f as f64).exp2(), (e << f) as f64);
    Some((stop.to_bits() as i64 - 0x4338000000000000, p))
}

/// A lane's sum as the filtered kernels add it: the even-indexed and the odd-indexed terms in
/// two chains, each started by its first term, then the two chains' sums.
fn two_chains(terms: impl Iterator<Item = f64>) -> f64 {
    let mut sums = [None::<f64>; 2];
    for (j, t) in terms.enumerate() {
        let s = &mut sums[j & 1];
        *s = Some(s.map_or(t, |a| a + t));
    }
    sums[0].unwrap_or(0.0) + sums[1].unwrap_or(0.0)
}

/// The word the filtered row-sum path (`ax_row_sum_filtered`) gives for a row of words held
/// by `lanes` lanes (lane l holds elements l + lanes·j), or None where it declines the row.
fn filtered_sum(c: &Consts, format: Format, row: &[u32], lanes: usize) -> Option<u32> {
    let f = c.f as i64;
    if f > 24 {
        return None;
    }
    let lb = format.log_bits();
    let special = format.special_code();
    let nan_word = (1u32 << lb) | (1u32 << (lb - 1));
    let zero = 1u32 << (lb - 1);
    let up = 32 - lb;
    let code = |w: u32| ((w << up) as i32 >> up) as i64;
    let vals: Vec<Vec<u32>> = (0..lanes)
        .map(|l| {
            (0..CAP)
                .map(|j| row.get(l + lanes * j).copied().unwrap_or(zero))
                .collect()
        })
        .collect();
    let all = vals.iter().flatten();
    let top = all.clone().map(|&w| code(w)).max().unwrap();
    let zsel = (lb as i64) - 1 - f < 7;
    if all.clone().any(|&w| w == nan_word)
        || top == -special - 1
        || top == special
        || (!zsel && top - special < (KK + 1) << f)
    {
        return None;
    }
    let mut sums: Vec<f64> = vals
        .iter()
        .map(|lane| {
            two_chains(lane.iter().map(|&w| {
                let d = if zsel && code(w) == special {
                    -(KK << f)
                } else {
                    (code(w) - top).max(-(KK << f))
                };
                let t = term(c, (d & ((1 << f) - 1)) as u64) * ((d >> f) as f64).exp2();
                if (w >> lb) & 1 == 1 {
                    -t
                } else {
                    t
                }
            }))
        })
        .collect();
    let mut o = lanes / 2;
    while o > 0 {
        sums = (0..lanes).map(|l| sums[l] + sums[l ^ o]).collect();
        o /= 2;
    }
    signed_word(
        c,
        format,
        top,
        sums[0],
        (lanes * CAP) as f64 * (-38f64).exp2(),
    )
}

/// The word of a signed f64 sum of terms relative to the code `top`, within `err` of the
/// exact path's sum, where the filtered paths answer (`ax_row_sum_filtered`,
/// `ax_matmul_filtered`): |sum| ≥ 2^20·err and p = 2^F·log2|sum| more than
/// 2^F·(1.5·err/|sum| + 2^-47) from a tie; None elsewhere.
fn signed_word(c: &Consts, format: Format, top: i64, sum: f64, err: f64) -> Option<u32> {
    let f = c.f as i64;
    let a = sum.abs();
    if a < err * 2f64.powi(20) {
        return None;
    }
    let (e, lm) = c.log2_split(a);
    let p = lm.mul_add((f as f64).exp2(), (e << f) as f64);
    let magic = 6755399441055744.0f64;
    let n = (p + magic) - magic;
    let half = ((p - n).abs() - 0.5).abs();
    if half * a <= (f as f64).exp2() * a.mul_add((-47f64).exp2(), 1.5 * err) {
        return None;
    }
    Some(format.encode(Class::Finite {
        negative: sum < 0.0,
        log: top + n as i64,
    }))
}

/// The word the filtered matrix product (`ax_matmul_filtered`, F ≤ 12) gives for one output
/// from its row of A and column of B, summing in index order, or None where it declines.
fn filtered_dot(c: &Consts, format: Format, a: &[u32], b: &[u32]) -> Option<u32> {
    let f = c.f as i64;
    let lb = format.log_bits();
    let special = format.special_code();
    let up = 32 - lb;
    let code = |w: u32| ((w << up) as i32 >> up) as i64;
    let finite = |w: u32| code(w) != special && code(w) != -special - 1;
    if a.iter()
        .chain(b)
        .any(|&w| !finite(w) && (code(w) != special || (w >> lb) & 1 == 1))
    {
        return None; // NaN or ∞ factors: the kernel writes the flags' word (not modelled)
    }
    let prods: Vec<(i64, bool)> = a
        .iter()
        .zip(b)
        .filter(|(&x, &y)| finite(x) && finite(y))
        .map(|(&x, &y)| (code(x) + code(y), ((x ^ y) >> lb) & 1 == 1))
        .collect();
    let top = prods.iter().map(|p| p.0).max()?;
    let sum = prods.iter().fold(0.0, |acc, &(p, neg)| {
        let d = (p - top).max(-(KK << f));
        let t = c.exp_frac((d & ((1 << f) - 1)) as u64) * ((d >> f) as f64).exp2();
        acc + if neg { -t } else { t }
    });
    let k = a.len() as f64;
    signed_word(c, format, top, sum, k * (k + 2.0) * (-53f64).exp2())
}

/// The code the long-row logsumexp (`ax_log_block_filtered`, one block of 256 threads per
/// row) gives, or None where it declines: the exact path's terms (Consts::exp_frac) of logs
/// raised to top − 42, thread t summing elements t, t + 256, …, the threads' sums added.
fn filtered_block(c: &Consts, row: &[f64]) -> Option<i64> {
    const BLOCK: usize = 256;
    let f = c.f as i64;
    let xm = row.iter().fold(f64::NEG_INFINITY, |m, &x| {
        if x.is_nan() || m.is_nan() {
            f64::NAN
        } else {
            m.max(x)
        }
    });
    if !(-X_MAX..=X_MAX).contains(&xm) {
        return None;
    }
    let magic = 6755399441055744.0f64;
    let s = |x: f64| x * c.codes_per_nat + magic;
    let stop = s(xm);
    let toplo = stop.to_bits() as u32;
    let xlow = xm - SPAN;
    let cached = row.len() <= 16 * BLOCK;
    let per_thread = if cached {
        16
    } else {
        row.len().div_ceil(BLOCK)
    };
    let sum: f64 = (0..BLOCK)
        .map(|t| {
            (0..per_thread).fold(0.0, |acc, j| {
                let x = row.get(t + j * BLOCK).copied().unwrap_or(f64::NEG_INFINITY);
                let lo = s(x.max(xlow)).to_bits() as u32;
                let d = (lo.wrapping_sub(toplo) as i32 as i64).max(-(KK << f));
                acc + c.exp_frac((d & ((1 << f) - 1)) as u64) * ((d >> f) as f64).exp2()
            })
        })
        .sum();
    let (e, lm) = c.log2_split(sum);
    let p = lm.mul_add((f as f64).exp2(), (e << f) as f64);
    let n = (p + magic) - magic;
    let err = (per_thread as f64 + 8.0) * (1.01 * f64::EPSILON / 2.0);
    let margin = (f as f64).exp2() * 1.443f64.mul_add(err, (-48f64).exp2());
    if ((p - n).abs() - 0.5).abs() <= margin {
        return None;
    }
    Some((stop.to_bits() as i64 - 0x4338000000000000) + n as i64)
}

/// The value the exact path rounds to its code, less the top: 2^F·log2 of its 128-bit sum
/// (`Consts::log_code` before its rounding), for a row with finite terms.
fn exact_offset(c: &Consts, row: &[f64]) -> f64 {
    let classes: Vec<Class> = row.iter().map(|&x| nat_class(c, x)).collect();
    let top = classes
        .iter()
        .filter_map(|t| match t {
            Class::Finite { log, .. } => Some(*log),
            _ => None,
        })
        .max()
        .unwrap();
    let mut acc = super::exact::Acc::default();
    for t in &classes {
        if let Class::Finite { log, negative } = t {
            acc.add(c.term_fixed(log - top), *negative);
        }
    }
    let u = acc.0.unsigned_abs();
    let lz = u.leading_zeros();
    let norm = u << lz;
    let y = ((norm >> 64) as u64 | ((norm as u64 != 0) as u64)) as f64;
    let (e, lm) = c.log2_split(y);
    let int = e + 64 - lz as i64 - super::exact::FIX_BITS as i64;
    (int as f64 + lm) * (c.f as f64).exp2()
}

/// The exact path's code of a row's logsumexp (finite rows only).
fn exact(c: &Consts, row: &[f64]) -> i64 {
    match fused(c, row.iter().map(|&x| nat_class(c, x))) {
        Class::Finite { log, .. } => log,
        other => panic!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::axis::{MatShape, Reduce};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Lanes per row as the host picks them (`group_lanes` in gpu/axis.rs).
    fn lanes(len: usize) -> usize {
        len.div_ceil(CAP).next_power_of_two().clamp(1, 32)
    }

    fn normal(rng: &mut ChaCha8Rng) -> f64 {
        let u: f64 = rng.random::<f64>().max(1e-300);
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * rng.random::<f64>()).cos()
    }

    #[test]
    fn the_filtered_path_gives_the_exact_code_wherever_it_answers() {
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        for format in [Format::LNS16, Format::LNS32, "i6f13".parse().unwrap()] {
            let c = Consts::new(format);
            let (mut answered, mut rows) = (0, 0);
            for case in 0..3000 {
                let len = 1 + rng.random_range(0..255usize);
                let scale = [0.01, 1.0, 4.0, 30.0][case % 4];
                let f32 = case % 3 != 0;
                let mut row: Vec<f64> = (0..len).map(|_| scale * normal(&mut rng)).collect();
                if f32 {
                    row.iter_mut().for_each(|x| *x = *x as f32 as f64);
                }
                if case % 7 == 0 {
                    // Masked entries (−∞) as in attention rows.
                    let k = rng.random_range(0..len);
                    row[k..]
                        .iter_mut()
                        .step_by(2)
                        .for_each(|x| *x = f64::NEG_INFINITY);
                }
                if row.iter().all(|x| *x == f64::NEG_INFINITY) {
                    continue;
                }
                rows += 1;
                let v = if f32 { 4 } else { 2 };
                for v in [1, v] {
                    if let Some(code) = filtered(&c, &row, lanes(len), v, f32) {
                        answered += 1;
                        assert_eq!(code, exact(&c, &row), "{format} len {len} case {case}");
                    }
                }
            }
            // Nearly every row is answered (declines: near-ties, none seen in these rows).
            assert!(
                answered >= 2 * rows * 99 / 100,
                "{format}: {answered} of {}",
                2 * rows
            );
        }
    }

    #[test]
    fn the_filtered_offset_is_within_its_bound_of_the_exact_one() {
        // |p − Q| ≤ 2^(F − 37.8) (the kernel's comment), with room to 2^(F − MARGIN).
        let mut rng = ChaCha8Rng::seed_from_u64(43);
        for format in [Format::LNS16, Format::LNS32] {
            let c = Consts::new(format);
            let mut worst = 0.0f64;
            for case in 0..1500 {
                let len = 1 + rng.random_range(0..255usize);
                let scale = [0.01, 1.0, 4.0, 30.0][case % 4];
                let row: Vec<f64> = (0..len).map(|_| scale * normal(&mut rng)).collect();
                let (top, p) = offset(&c, &row, lanes(len), 1, false).unwrap();
                let q = exact_offset(&c, &row);
                let top_exact = exact(&c, &row) - (q.round_ties_even() as i64);
                assert_eq!(top, top_exact, "{format}");
                worst = worst.max((p - q).abs() / (c.f as f64 - 37.8).exp2());
            }
            assert!(worst < 1.0, "{format}: {worst}");
        }
    }

    #[test]
    fn the_filtered_row_sum_gives_the_exact_word_wherever_it_answers() {
        let mut rng = ChaCha8Rng::seed_from_u64(47);
        for format in [Format::LNS16, Format::LNS32, "i6f13".parse().unwrap()] {
            let c = Consts::new(format);
            let (mut answered, mut rows) = (0, 0);
            for case in 0..2000 {
                let len = 1 + rng.random_range(0..255usize);
                let scale = [0.5, 1.0, 8.0, 100.0][case % 4];
                let mut xs: Vec<f64> = (0..len).map(|_| scale * normal(&mut rng)).collect();
                if case % 5 == 0 {
                    // One sign, as a sum of probabilities.
                    xs.iter_mut().for_each(|x| *x = x.abs());
                }
                if case % 7 == 0 {
                    xs[rng.random_range(0..len)] = 0.0;
                }
                if case % 11 == 0 && len > 1 {
                    // Terms that cancel: the filter must decline or still be right.
                    xs[1] = -xs[0];
                }
                let row: Vec<u32> = xs.iter().map(|&x| format.from_f64(x)).collect();
                let want = format.reduce_rows(Reduce::Sum, &row, len).unwrap()[0];
                rows += 1;
                if let Some(w) = filtered_sum(&c, format, &row, lanes(len)) {
                    answered += 1;
                    assert_eq!(w, want, "{format} len {len} case {case}");
                }
            }
            assert!(
                answered >= rows * 97 / 100,
                "{format}: {answered} of {rows}"
            );
        }
    }

    #[test]
    fn row_sums_it_cannot_vouch_for_go_to_the_exact_path() {
        let f = Format::LNS32;
        let c = Consts::new(f);
        let w = |x: f64| f.from_f64(x);
        // x + (−x) = 0, a NaN, an ∞, and a row at the bottom of the range beside zeros.
        for row in [
            vec![w(1.5), w(-1.5)],
            vec![w(1.0), f.encode(Class::NaN)],
            vec![w(1.0), w(f64::INFINITY)],
            vec![w(2f64.powi(-120)), w(0.0)],
            vec![w(0.0); 3],
        ] {
            assert_eq!(filtered_sum(&c, f, &row, 1), None, "{row:x?}");
        }
        let row = vec![w(1.0), w(0.0), w(-0.25), w(3.0)];
        assert_eq!(
            filtered_sum(&c, f, &row, 1),
            Some(f.reduce_rows(Reduce::Sum, &row, 4).unwrap()[0])
        );
    }

    #[test]
    fn the_filtered_product_gives_the_exact_word_wherever_it_answers() {
        let mut rng = ChaCha8Rng::seed_from_u64(53);
        for format in [Format::LNS16, "i5f12".parse().unwrap()] {
            let c = Consts::new(format);
            let (m, k, n) = (9, 700, 11);
            let mut a: Vec<u32> = (0..m * k)
                .map(|_| format.from_f64(normal(&mut rng)))
                .collect();
            let b: Vec<u32> = (0..k * n)
                .map(|_| format.from_f64(normal(&mut rng)))
                .collect();
            // Row 0 cancels against itself (columns 2t, 2t + 1 of A opposite, rows of B equal).
            for t in (0..k).step_by(2) {
                a[t + 1] = format.neg(a[t]);
            }
            a[m * k - 1] = format.zero();
            let want = format
                .matmul(&a, &b, MatShape { batch: 1, m, k, n })
                .unwrap();
            let (mut answered, mut declined_cancelling) = (0, 0);
            for i in 0..m {
                for j in 0..n {
                    let col: Vec<u32> = (0..k).map(|t| b[t * n + j]).collect();
                    let mut colb = col.clone();
                    if i == 0 {
                        // the cancelling row: make B's rows 2t, 2t + 1 equal
                        for t in (0..k).step_by(2) {
                            colb[t + 1] = colb[t];
                        }
                    }
                    let row = &a[i * k..(i + 1) * k];
                    let got = filtered_dot(&c, format, row, &colb);
                    if i == 0 {
                        let exact = format
                            .matmul(
                                row,
                                &colb,
                                MatShape {
                                    batch: 1,
                                    m: 1,
                                    k,
                                    n: 1,
                                },
                            )
                            .unwrap()[0];
                        assert_eq!(exact, format.zero());
                        declined_cancelling += got.is_none() as usize;
                        continue;
                    }
                    if let Some(w) = got {
                        answered += 1;
                        assert_eq!(w, want[i * n + j], "{format} ({i}, {j})");
                    }
                }
            }
            assert_eq!(declined_cancelling, n, "{format}");
            assert!(answered >= (m - 1) * n * 98 / 100, "{format}: {answered}");
        }
    }

    #[test]
    fn the_filtered_long_row_logsumexp_gives_the_exact_code_wherever_it_answers() {
        let mut rng = ChaCha8Rng::seed_from_u64(59);
        for format in [Format::LNS16, Format::LNS32] {
            let c = Consts::new(format);
            let mut answered = 0;
            for (case, len) in [256usize, 300, 1000, 4096, 5000, 777]
                .into_iter()
                .enumerate()
            {
                for rep in 0..3 {
                    let scale = [0.5, 2.0, 20.0][rep];
                    let mut row: Vec<f64> = (0..len)
                        .map(|_| (scale * normal(&mut rng)) as f32 as f64)
                        .collect();
                    if case % 2 == 0 {
                        row.iter_mut()
                            .step_by(3)
                            .for_each(|x| *x = f64::NEG_INFINITY);
                    }
                    if let Some(code) = filtered_block(&c, &row) {
                        answered += 1;
                        assert_eq!(code, exact(&c, &row), "{format} len {len}");
                    }
                }
            }
            assert_eq!(answered, 18, "{format}");
            let mut row = vec![0.5; 300];
            row[7] = f64::NAN;
            assert_eq!(filtered_block(&c, &row), None);
        }
    }

    #[test]
    fn every_lns16_pair_and_a_stride_of_lns32_pairs_round_as_the_exact_path() {
        // Rows (0, x): the sum's log is s_b of the code difference, every one of them for
        // lns16 down to where the term is 2^-40, a stride through lns32's.
        for (format, step) in [(Format::LNS16, 1i64), (Format::LNS32, 4099)] {
            let c = Consts::new(format);
            let f = c.f as i64;
            let mut d = 0i64;
            while d > -(40 << f) {
                let x = d as f64 / c.codes_per_nat;
                let row = [0.0, x];
                if let Some(code) = filtered(&c, &row, 1, 1, false) {
                    assert_eq!(code, exact(&c, &row), "{format} d {d}");
                }
                d -= step;
            }
        }
    }

    #[test]
    fn rows_it_cannot_vouch_for_go_to_the_exact_path() {
        let c = Consts::new(Format::LNS32);
        for bad in [f64::NAN, f64::INFINITY, 2.0 * X_MAX] {
            let row = [0.5, bad, 2.0, 0.25];
            assert_eq!(filtered(&c, &row, 1, 1, true), None, "{bad}");
        }
        // All −∞, and a top below −X_MAX.
        assert_eq!(filtered(&c, &[f64::NEG_INFINITY; 3], 1, 1, true), None);
        assert_eq!(
            filtered(&c, &[-3.0 * X_MAX, -3.0 * X_MAX + 1.0], 1, 1, false),
            None
        );
        // Logs far below the top (and −∞) are answered, their terms counted as 2^-60.
        for f32 in [false, true] {
            let row = [
                0.0,
                -1e30,
                f64::NEG_INFINITY,
                1.0,
                1.0 - SPAN,
                1.0 - SPAN - 1e-3,
            ];
            assert_eq!(filtered(&c, &row, 1, 1, f32), Some(exact(&c, &row)));
            let row = [9e5, -3.0 * X_MAX, 9e5 - 30.0];
            assert_eq!(filtered(&c, &row, 1, 1, f32), Some(exact(&c, &row)));
        }
    }
}

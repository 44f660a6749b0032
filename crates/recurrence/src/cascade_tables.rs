//! The section cascade's set-up in double-double: its factor tables (the output over a segment
//! for each unit state, zero input) and its transfer matrix (the state after a segment).
//!
//! Both were computed by running the cascade forward from each of the 2S unit states for a
//! whole segment: O(S²·SEG) double-double steps, 2.3 s for 128 sections. Here:
//!
//! - **tables by the adjoint recursion**: table_j[i] = C·M^i·e_j, where M is one zero-input
//!   step of the cascade and C its output row, so the row vector w_i = C·M^i holds entry i of
//!   every table at once, and w_(i+1) = w_i·M is one step of the cascade run backwards
//!   (reverse-mode: the same O(S) operations as a forward step). O(S·SEG) in all;
//! - **the transfer matrix M^SEG by binary powering** of the step matrix (12 squarings and 3
//!   products for SEG = 2,072): the matrices are block lower triangular (a unit state in
//!   section s leaves the sections before it at zero), so a product costs (2S)³/6 multiply-adds.
//!   O(S³·log SEG), split over the host's threads by rows.
//!
//! Every value is computed in double-double from the coefficients as given and rounded once by
//! the caller, as before; the two recursions differ from the forward one only in the order of
//! their (double-double) roundings.

use crate::dd::Dd;

/// One zero-input step of the cascade on the state `st` ([z0, z1] per section, SciPy's
/// transposed direct form II); returns the step's output (computed from the state before it).
fn step(coef: &[[f64; 6]], st: &mut [Dd]) -> Dd {
    let mut v = Dd::ZERO;
    for (c, z) in coef.iter().zip(st.chunks_mut(2)) {
        let out = v.mul_f64(c[0]).add(z[0]);
        let z0 = v.mul_f64(c[1]).sub(out.mul_f64(c[4])).add(z[1]);
        let z1 = v.mul_f64(c[2]).sub(out.mul_f64(c[5]));
        z[0] = z0;
        z[1] = z1;
        v = out;
    }
    v
}

/// The adjoint of [`step`]: the cotangent of the state before a step from the cotangents of
/// the state after it (`after`) and of its output (`out`); that is, after·M + out·C.
fn pull(coef: &[[f64; 6]], after: &[Dd], out: Dd) -> Vec<Dd> {
    let mut before = vec![Dd::ZERO; after.len()];
    // The cotangent of the value flowing out of the section being undone.
    let mut v = out;
    for (s, c) in coef.iter().enumerate().rev() {
        let (z0, z1) = (after[2 * s], after[2 * s + 1]);
        let o = v.sub(z0.mul_f64(c[4])).sub(z1.mul_f64(c[5]));
        before[2 * s] = o;
        before[2 * s + 1] = z0;
        v = o.mul_f64(c[0]).add(z0.mul_f64(c[1])).add(z1.mul_f64(c[2]));
    }
    before
}

/// The cascade's output for each unit state over `len` samples of zero input:
/// `tables[j][i]` = C·M^i·e_j, rounded once to f64.
pub(crate) fn unit_state_tables(coef: &[[f64; 6]], len: usize) -> Vec<Vec<f64>> {
    let s2 = 2 * coef.len();
    let mut tables = vec![Vec::with_capacity(len); s2];
    let mut w = pull(coef, &vec![Dd::ZERO; s2], Dd::new(1.0));
    for i in 0..len {
        for (t, v) in tables.iter_mut().zip(&w) {
            t.push(v.to_f64());
        }
        if i + 1 < len {
            w = pull(coef, &w, Dd::ZERO);
        }
    }
    tables
}

/// The state after `len` samples of zero input for each unit state: M^len, row-major 2S × 2S,
/// in double-double (column j is the state a unit state j leaves).
pub(crate) fn transfer(coef: &[[f64; 6]], len: usize) -> Vec<Dd> {
    let s2 = 2 * coef.len();
    // The step matrix, column by column.
    let mut m = vec![Dd::ZERO; s2 * s2];
    for j in 0..s2 {
        let mut st = vec![Dd::ZERO; s2];
        st[j] = Dd::new(1.0);
        step(coef, &mut st);
        for (r, v) in st.into_iter().enumerate() {
            m[r * s2 + j] = v;
        }
    }
    let mut result: Option<Vec<Dd>> = None;
    let mut e = len;
    while e > 0 {
        if e & 1 == 1 {
            result = Some(match result {
                None => m.clone(),
                Some(r) => product(&r, &m, s2),
            });
        }
        e >>= 1;
        if e > 0 {
            m = product(&m, &m, s2);
        }
    }
    result.unwrap_or_else(|| {
        let mut id = vec![Dd::ZERO; s2 * s2];
        for j in 0..s2 {
            id[j * s2 + j] = Dd::new(1.0);
        }
        id
    })
}

/// A matrix in double-double as two planes (high and low parts), row-major, so that the
/// product's inner loop runs over contiguous values in SIMD lanes.
struct Planes {
    hi: Vec<f64>,
    lo: Vec<f64>,
}

impl Planes {
    fn of(m: &[Dd]) -> Planes {
        Planes {
            hi: m.iter().map(|v| v.hi).collect(),
            lo: m.iter().map(|v| v.lo).collect(),
        }
    }
}

/// a·b for block lower-triangular n×n matrices (2×2 blocks, row-major), rows split over the
/// host's threads.
fn product(a: &[Dd], b: &[Dd], n: usize) -> Vec<Dd> {
    let (pa, pb) = (Planes::of(a), Planes::of(b));
    let fma = sigpu_runtime::host::CpuArch::host().avx2_fma();
    let rows = |first: usize, hi: &mut [f64], lo: &mut [f64]| {
        for (dr, (hrow, lrow)) in hi.chunks_mut(n).zip(lo.chunks_mut(n)).enumerate() {
            let r = first + dr;
            // Row r of a is zero past its section's last column, and row i of b past its own.
            for i in 0..=(r | 1) {
                let (ah, al) = (pa.hi[r * n + i], pa.lo[r * n + i]);
                if ah == 0.0 {
                    continue;
                }
                let width = (i | 1) + 1;
                let (bh, bl) = (&pb.hi[i * n..i * n + width], &pb.lo[i * n..i * n + width]);
                let (h, l) = (&mut hrow[..width], &mut lrow[..width]);
                #[cfg(target_arch = "x86_64")]
                if fma {
                    // SAFETY: the CPU has AVX2 and FMA (checked above).
                    unsafe { axpy_fma(h, l, ah, al, bh, bl) };
                    continue;
                }
                axpy(h, l, ah, al, bh, bl);
            }
        }
    };
    let mut hi = vec![0.0; n * n];
    let mut lo = vec![0.0; n * n];
    let threads = crate::filter::host_threads().min(n / 16).max(1);
    if threads == 1 {
        rows(0, &mut hi, &mut lo);
    } else {
        // Later rows hold more work (the triangle widens): cut the rows so that each thread
        // gets about the same share of Σ_r r².
        let total: f64 = (0..n).map(|r| (r as f64 + 1.0).powi(2)).sum();
        let mut cuts = vec![0usize];
        let mut acc = 0.0;
        for r in 0..n {
            acc += (r as f64 + 1.0).powi(2);
            if acc >= total * cuts.len() as f64 / threads as f64 && cuts.len() < threads {
                cuts.push(r + 1);
            }
        }
        cuts.push(n);
        cuts.dedup();
        std::thread::scope(|scope| {
            let (mut hrest, mut lrest): (&mut [f64], &mut [f64]) = (&mut hi, &mut lo);
            for w in cuts.windows(2) {
                let (hm, ht) = hrest.split_at_mut((w[1] - w[0]) * n);
                let (lm, lt) = lrest.split_at_mut((w[1] - w[0]) * n);
                (hrest, lrest) = (ht, lt);
                let first = w[0];
                let rows = &rows;
                scope.spawn(move || rows(first, hm, lm));
            }
        });
    }
    hi.into_iter()
        .zip(lo)
        .map(|(hi, lo)| {
            // Renormalised, as the other double-double values are.
            let s = hi + lo;
            Dd {
                hi: s,
                lo: lo - (s - hi),
            }
        })
        .collect()
}

/// (h, l) += a·(bh, bl) in double-double, lane by lane: the product's error term exact
/// (`prod_err(x, y, x·y)` = x·y − fl(x·y)), the sum's high parts by an exact two-sum and the
/// low parts added (the accumulated terms are few and of one sign pattern per matrix; the
/// result is rounded to f64 in the end).
#[inline(always)]
fn axpy_with(
    h: &mut [f64],
    l: &mut [f64],
    ah: f64,
    al: f64,
    bh: &[f64],
    bl: &[f64],
    prod_err: impl Fn(f64, f64, f64) -> f64,
) {
    for c in 0..h.len() {
        let p = ah * bh[c];
        let e = prod_err(ah, bh[c], p) + (ah * bl[c] + al * bh[c]);
        let (s, t) = crate::dd::two_sum(h[c], p);
        h[c] = s;
        l[c] += t + e;
    }
}

/// [`axpy_with`] on any CPU (Dekker's exact product through [`Dd::mul_f64`]).
fn axpy(h: &mut [f64], l: &mut [f64], ah: f64, al: f64, bh: &[f64], bl: &[f64]) {
    axpy_with(h, l, ah, al, bh, bl, |x, y, _| Dd::new(x).mul_f64(y).lo);
}

/// [`axpy_with`] with fused multiply-adds, in AVX2 lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn axpy_fma(h: &mut [f64], l: &mut [f64], ah: f64, al: f64, bh: &[f64], bl: &[f64]) {
    axpy_with(h, l, ah, al, bh, bl, |x, y, p| x.mul_add(y, -p));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sections with poles of radius r near the unit circle, zeros at −1.
    fn cascade(n: usize, r: f64) -> Vec<[f64; 6]> {
        (0..n)
            .map(|s| {
                let th = 0.1 + 0.37 * s as f64;
                let (a1, a2) = (-2.0 * r * th.cos(), r * r);
                let g = (1.0 + a1 + a2) / 4.0;
                [g, 2.0 * g, g, 1.0, a1, a2]
            })
            .collect()
    }

    #[test]
    fn adjoint_tables_and_powered_transfer_equal_the_forward_run() {
        for (sections, r, len) in [
            (1, 0.5, 7),
            (3, 0.999, 300),
            (6, 0.97, 2072),
            (20, 0.99, 333),
        ] {
            let coef = cascade(sections, r);
            let s2 = 2 * sections;
            let tables = unit_state_tables(&coef, len);
            let t = transfer(&coef, len);
            for j in 0..s2 {
                // The forward run from unit state j.
                let mut st = vec![Dd::ZERO; s2];
                st[j] = Dd::new(1.0);
                let mut peak = 0.0f64;
                for (i, &got) in tables[j].iter().enumerate() {
                    let y = step(&coef, &mut st).to_f64();
                    peak = peak.max(y.abs());
                    assert!(
                        (got - y).abs() <= 1e-15 * peak.max(1e-300) + 1e-300,
                        "table {j}[{i}]: {got} vs {y}"
                    );
                }
                let norm = st.iter().fold(0.0f64, |m, v| m.max(v.to_f64().abs()));
                for (row, want) in st.iter().enumerate() {
                    let got = t[row * s2 + j].to_f64();
                    let want = want.to_f64();
                    assert!(
                        (got - want).abs() <= 1e-15 * norm.max(1e-300),
                        "{sections} sections, transfer[{row}][{j}]: {got} vs {want}"
                    );
                }
            }
        }
        // Zero samples: the identity.
        let t = transfer(&cascade(2, 0.9), 0);
        assert_eq!(t[0].to_f64(), 1.0);
        assert_eq!(t[1].to_f64(), 0.0);
    }
}

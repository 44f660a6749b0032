//! Pole magnitudes of a recurrence, to reject unstable filters before they overflow.
//!
//! The poles are the roots of z^k − b1·z^(k−1) − … − bk, found with the Durand–Kerner
//! (Weierstrass) iteration in complex f64. Simple roots converge quadratically; a multiple
//! root (e.g. the double pole at 1 of a 2nd-order prefix sum) only to about √ε, which is why
//! [`STABILITY_SLACK`] exists.

/// A pole this far above magnitude 1 still counts as on the unit circle: multiple roots are
/// found only to about 1e-8, and marginal recurrences (prefix sums) are legitimate.
pub const STABILITY_SLACK: f64 = 1e-6;

#[derive(Clone, Copy, Debug, PartialEq)]
struct C(f64, f64);

impl C {
    fn add(self, o: C) -> C {
        C(self.0 + o.0, self.1 + o.1)
    }
    fn sub(self, o: C) -> C {
        C(self.0 - o.0, self.1 - o.1)
    }
    fn mul(self, o: C) -> C {
        C(self.0 * o.0 - self.1 * o.1, self.0 * o.1 + self.1 * o.0)
    }
    fn div(self, o: C) -> C {
        let d = o.0 * o.0 + o.1 * o.1;
        C(
            (self.0 * o.0 + self.1 * o.1) / d,
            (self.1 * o.0 - self.0 * o.1) / d,
        )
    }
    fn abs(self) -> f64 {
        self.0.hypot(self.1)
    }
}

/// The largest |z| over the roots of z^k − b[0]·z^(k−1) − … − b[k−1] (0 when every b is 0).
pub fn max_root_magnitude(b: &[f64]) -> f64 {
    roots(b)
        .iter()
        .fold(0.0, |m, &(re, im)| m.max(re.hypot(im)))
}

/// The roots of z^k − b[0]·z^(k−1) − … − b[k−1] as (re, im), zeros for trailing zero
/// coefficients included; Durand–Kerner in f64 (polish with [`polish`] where it matters).
pub(crate) fn roots(b: &[f64]) -> Vec<(f64, f64)> {
    // Building one (b, a) filter asks for the same roots twice (the stability magnitude of
    // the coefficients as T holds them, then the pole cascade's sections; equal for f64):
    // the last answer of each thread is kept.
    type Last = (Vec<u64>, Vec<(f64, f64)>);
    thread_local! {
        static LAST: std::cell::RefCell<Last> =
            const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
    }
    let key: Vec<u64> = b.iter().map(|v| v.to_bits()).collect();
    if let Some(hit) = LAST.with(|l| {
        let l = l.borrow();
        (l.0 == key && !key.is_empty()).then(|| l.1.clone())
    }) {
        return hit;
    }
    let found = durand_kerner(b);
    LAST.with(|l| *l.borrow_mut() = (key, found.clone()));
    found
}

/// [`roots`] without the memory of the last answer.
fn durand_kerner(b: &[f64]) -> Vec<(f64, f64)> {
    let all = b.len();
    // Trailing zero coefficients are roots at 0: drop them.
    let k = b.iter().rposition(|&v| v != 0.0).map_or(0, |i| i + 1);
    if k == 0 {
        return vec![(0.0, 0.0); all];
    }
    // Monic p(z) = z^k + c1 z^(k-1) + … + ck with ci = −b[i-1].
    let c: Vec<f64> = b[..k].iter().map(|&v| -v).collect();
    let eval = |z: C| {
        c.iter()
            .fold(C(1.0, 0.0), |acc, &ci| acc.mul(z).add(C(ci, 0.0)))
    };
    let radius = 1.0 + c.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let seed = C(0.4, 0.9);
    let mut roots: Vec<C> = Vec::with_capacity(k);
    let mut z = C(radius, 0.0);
    for _ in 0..k {
        z = z.mul(seed);
        roots.push(z);
    }
    for _ in 0..5000 {
        let mut moved = 0.0f64;
        for i in 0..k {
            let zi = roots[i];
            let denom = roots
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .fold(C(1.0, 0.0), |acc, (_, &zj)| acc.mul(zi.sub(zj)));
            if denom.abs() == 0.0 {
                // Two estimates collided: nudge one apart.
                roots[i] = zi.add(C(1e-9, 1e-9));
                moved = f64::INFINITY;
                continue;
            }
            let step = eval(zi).div(denom);
            roots[i] = zi.sub(step);
            moved = moved.max(step.abs());
        }
        if moved < 1e-15 * radius {
            break;
        }
    }
    let mut out: Vec<(f64, f64)> = roots.iter().map(|r| (r.0, r.1)).collect();
    out.resize(all, (0.0, 0.0));
    out
}

/// Newton's method on the roots of z^N + a[0]·z^(N−1) + … + a[N−1], with the polynomial
/// evaluated in double-double so the roots come out accurate to f64 rounding even where the
/// polynomial is ill-conditioned (f64 evaluation stalls at an error of cond·ε). Returns false
/// when some root did not settle (a multiple root, or a start too far off).
pub(crate) fn polish(a: &[f64], roots: &mut [(f64, f64)]) -> bool {
    use crate::dd::Cdd;
    let mut ok = true;
    for r in roots.iter_mut() {
        let mut settled = false;
        for _ in 0..30 {
            let (zr, zi) = *r;
            let mut p = Cdd::default().add_f64(1.0);
            let mut d = C(0.0, 0.0);
            let mut pf = C(1.0, 0.0);
            for &c in a {
                d = d.mul(C(zr, zi)).add(pf);
                pf = pf.mul(C(zr, zi)).add(C(c, 0.0));
                p = p.mul_c(zr, zi).add_f64(c);
            }
            let pv = C(p.re.to_f64(), p.im.to_f64());
            if pv.abs() == 0.0 {
                settled = true;
                break;
            }
            if d.abs() == 0.0 {
                break;
            }
            let step = pv.div(d);
            *r = (zr - step.0, zi - step.1);
            if step.abs() <= 4.0 * f64::EPSILON * C(zr, zi).abs().max(f64::MIN_POSITIVE) {
                settled = true;
                break;
            }
        }
        ok &= settled;
    }
    ok
}

/// Roots paired into real quadratic factors `[1, c1, c2]` (z² + c1·z + c2, or z + c1 for a
/// lone real root, c2 = 0), each with its largest root magnitude, sorted by it (nearest the
/// unit circle last, as SciPy's `zpk2sos` orders poles): conjugate pairs, then the real roots
/// two at a time in order of magnitude. None when the roots do not pair into conjugates
/// (those with an imaginary part above 1e-9 of the largest magnitude must come with their
/// conjugates).
pub(crate) fn quadratic_factors(roots: &[(f64, f64)]) -> Option<Vec<(f64, [f64; 3])>> {
    use crate::dd::Dd;
    let scale = roots
        .iter()
        .fold(0.0f64, |m, r| m.max(r.0.hypot(r.1)))
        .max(1e-300);
    let tol = 1e-9 * scale;
    let complex: Vec<(f64, f64)> = roots.iter().copied().filter(|r| r.1 > tol).collect();
    let mut real: Vec<f64> = roots
        .iter()
        .filter(|r| r.1.abs() <= tol)
        .map(|r| r.0)
        .collect();
    if 2 * complex.len() + real.len() != roots.len() {
        return None;
    }
    let mut out: Vec<(f64, [f64; 3])> = complex
        .iter()
        .map(|&(re, im)| {
            let c2 = Dd::new(re)
                .mul(Dd::new(re))
                .add(Dd::new(im).mul(Dd::new(im)))
                .to_f64();
            (re.hypot(im), [1.0, -2.0 * re, c2])
        })
        .collect();
    real.sort_by(|p, q| p.abs().total_cmp(&q.abs()));
    for pair in real.chunks(2) {
        let row = match pair {
            [p, q] => [1.0, -(p + q), p * q],
            [p] => [1.0, -p, 0.0],
            _ => unreachable!(),
        };
        out.push((pair.iter().fold(0.0f64, |m, v| m.max(v.abs())), row));
    }
    out.sort_by(|p, q| p.0.total_cmp(&q.0));
    Some(out)
}

/// How far a product of quadratic factors (each `[c0, c1, c2]`, computed in double-double)
/// lies from `want` (shorter sequences padded with zeros): (Σ|Π − want|, the largest
/// difference relative to the sum of the magnitudes of the products that made that
/// coefficient — how many roundings it is off).
pub(crate) fn product_residual<'a>(
    factors: impl IntoIterator<Item = &'a [f64; 3]>,
    want: &[f64],
) -> (f64, f64) {
    let (diff, scale) = product_difference(factors, want);
    let total = diff.iter().map(|v| v.abs()).sum();
    let worst = diff.iter().zip(&scale).fold(0.0f64, |m, (d, s)| {
        m.max(d.abs() / s.max(f64::MIN_POSITIVE))
    });
    (total, worst)
}

/// Π factors − want coefficient by coefficient (the product in double-double, the
/// difference rounded once), with the sum of the magnitudes of the products behind each
/// coefficient.
pub(crate) fn product_difference<'a>(
    factors: impl IntoIterator<Item = &'a [f64; 3]>,
    want: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    use crate::dd::Dd;
    let mut prod = vec![Dd::new(1.0)];
    let mut scale = vec![1.0f64];
    for r in factors {
        let mut next = vec![Dd::ZERO; prod.len() + 2];
        let mut next_scale = vec![0.0f64; prod.len() + 2];
        for (i, p) in prod.iter().enumerate() {
            for (j, &c) in r.iter().enumerate() {
                next[i + j] = next[i + j].add(p.mul_f64(c));
                next_scale[i + j] += scale[i] * c.abs();
            }
        }
        prod = next;
        scale = next_scale;
    }
    let len = prod.len().max(want.len());
    scale.resize(len, 0.0);
    let diff = (0..len)
        .map(|i| {
            let p = prod.get(i).copied().unwrap_or(Dd::ZERO);
            p.sub(Dd::new(want.get(i).copied().unwrap_or(0.0))).to_f64()
        })
        .collect();
    (diff, scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_roots() {
        assert!((max_root_magnitude(&[0.5]) - 0.5).abs() < 1e-14);
        assert!((max_root_magnitude(&[-0.9]) - 0.9).abs() < 1e-14);
        // (z - 0.5)(z + 0.25) = z^2 - 0.25 z - 0.125.
        assert!((max_root_magnitude(&[0.25, 0.125]) - 0.5).abs() < 1e-12);
        // Complex pair of radius 0.95: z^2 - 2 r cos(t) z + r^2.
        let (r, t) = (0.95f64, 0.3f64);
        assert!((max_root_magnitude(&[2.0 * r * t.cos(), -r * r]) - r).abs() < 1e-12);
        // Triple root at 1: z^3 - 3z^2 + 3z - 1.
        assert!((max_root_magnitude(&[3.0, -3.0, 1.0]) - 1.0).abs() < 1e-4);
        // Unstable 8th order: z^8 = 1.5^8.
        let mut b = vec![0.0; 8];
        b[7] = 1.5f64.powi(8);
        assert!((max_root_magnitude(&b) - 1.5).abs() < 1e-9);
        assert_eq!(max_root_magnitude(&[0.0, 0.0]), 0.0);
    }
}

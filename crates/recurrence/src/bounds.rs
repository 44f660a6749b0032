//! Error bounds of the accuracy contract from impulse responses: the ℓ1 norms of a (b, a)
//! filter's and a section cascade's responses, and the bounds of a cascade run serially and
//! blocked (see [`crate::Lfilter`] and [`crate::Sos`] for where they are used).

/// Impulse responses are followed until they decay below 1e-17 of their ℓ1 norm, at most
/// this many samples (beyond, the filter counts as non-decaying).
const IMPULSE_CAP: usize = 1 << 18;

/// ℓ1 norm of the impulse response of `b / a` (a monic: a[0] = 1), serial f64, and whether
/// it decayed within the cap.
pub(crate) fn l1_impulse(b: &[f64], a: &[f64]) -> (f64, bool) {
    let k = a.len() - 1;
    let mut hist = vec![0.0f64; k.max(1)];
    let mut total = 0.0;
    let mut window = 0.0;
    for n in 0..IMPULSE_CAP {
        let mut v = b.get(n).copied().unwrap_or(0.0);
        for j in 1..=k {
            v -= a[j] * hist[j - 1];
        }
        if k > 0 {
            hist.rotate_right(1);
            hist[0] = v;
        }
        total += v.abs();
        window += v.abs();
        if !total.is_finite() {
            return (f64::INFINITY, false);
        }
        if n % 512 == 511 {
            if n > b.len() + 2 * k && window <= 1e-17 * total {
                return (total, true);
            }
            window = 0.0;
        }
    }
    (total, false)
}

/// A cascade's impulse response (sections `[b0 b1 b2 1 a1 a2]`) followed until it decays
/// below 1e-17 of its ℓ1 norm over a 512-sample window: the norm (infinite when it
/// overflows), the samples followed, and whether it decayed within the cap.
fn cascade_impulse(sections: &[[f64; 6]]) -> (f64, usize, bool) {
    let mut z = vec![[0.0f64; 2]; sections.len()];
    let (mut total, mut window) = (0.0, 0.0);
    for n in 0..IMPULSE_CAP {
        let mut v = if n == 0 { 1.0 } else { 0.0 };
        for (c, st) in sections.iter().zip(z.iter_mut()) {
            let out = c[0] * v + st[0];
            st[0] = c[1] * v - c[4] * out + st[1];
            st[1] = c[2] * v - c[5] * out;
            v = out;
        }
        total += v.abs();
        window += v.abs();
        if !total.is_finite() {
            return (f64::INFINITY, n + 1, false);
        }
        if n % 512 == 511 {
            if window <= 1e-17 * total {
                return (total, n + 1, true);
            }
            window = 0.0;
        }
    }
    (total, IMPULSE_CAP, false)
}

/// ℓ1 norm of a cascade's impulse response, and whether it decayed within the cap.
pub(crate) fn l1_cascade(sections: &[[f64; 6]]) -> (f64, bool) {
    let (total, _, decayed) = cascade_impulse(sections);
    (total, decayed)
}

/// Samples until the cascade's impulse response has decayed, at most the cap.
fn decay_len(sections: &[[f64; 6]]) -> usize {
    cascade_impulse(sections).1
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct SosBounds {
    pub serial: f64,
    pub blocked: f64,
}

/// Bounds for a cascade run serially and blocked (see the module docs), per unit max|x|.
pub(crate) fn sos_bounds(coef: &[[f64; 6]], factors: &[Vec<f64>], u: f64) -> SosBounds {
    let s = coef.len();
    // m[i]: max|signal| after section i per unit input (m[0]: the input); r[i]: the gain
    // from an error injected in section i's output to the cascade output. Impulse responses
    // of every prefix and suffix of the cascade, over the whole cascade's decay length.
    let len = decay_len(coef);
    let run = |sec: &[f64; 6], h: &mut [f64]| {
        let (mut z0, mut z1) = (0.0, 0.0);
        for v in h.iter_mut() {
            let x = *v;
            let out = sec[0] * x + z0;
            z0 = sec[1] * x - sec[4] * out + z1;
            z1 = sec[2] * x - sec[5] * out;
            *v = out;
        }
    };
    let l1 = |h: &[f64]| h.iter().map(|v| v.abs()).sum::<f64>();
    let mut m = vec![1.0f64; s + 1];
    let mut h = vec![0.0f64; len];
    h[0] = 1.0;
    for i in 0..s {
        run(&coef[i], &mut h);
        m[i + 1] = l1(&h);
    }
    let mut r = vec![1.0f64; s + 1];
    h.fill(0.0);
    h[0] = 1.0;
    for i in (0..s).rev() {
        run(&coef[i], &mut h);
        r[i] = l1(&h);
    }
    let mut serial = 0.0;
    let mut blocked = 0.0;
    for (i, c) in coef.iter().enumerate() {
        // Section i: 5 roundings on values of size ≤ m[i], m[i+1], through sections i.. (its
        // own recursion included).
        let size = (c[0].abs() + c[1].abs() + c[2].abs()) * m[i]
            + (1.0 + c[4].abs() + c[5].abs()) * m[i + 1];
        serial += 2.0 * size * r[i];
        // Blocking: each state's carry times its factor table, summed in f64 (the carries are
        // true states, so only the f64 rounding of the correction is new).
        let state = (c[1].abs() + c[2].abs()) * m[i] + (c[4].abs() + c[5].abs()) * m[i + 1];
        for f in &factors[2 * i..2 * i + 2] {
            let peak = f.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            blocked += 2.0 * f64::EPSILON / 2.0 * peak * state;
        }
    }
    SosBounds {
        serial: u * serial,
        blocked: u * serial + blocked,
    }
}

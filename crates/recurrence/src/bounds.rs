//! Error bounds of the accuracy contract from impulse responses: the ℓ1 norms of a (b, a)
//! filter's and a section cascade's responses, and the bounds of a cascade run serially and
//! blocked (see [`crate::Lfilter`] and [`crate::Sos`] for where they are used).

/// Impulse responses are followed until they decay below 1e-17 of their ℓ1 norm, at most
/// this many samples (beyond, the filter counts as non-decaying).
const IMPULSE_CAP: usize = 1 << 18;

/// The longest signal (at most `cap` samples) on which the serial loop's bound,
/// `u·(k + 1)·ℓ1(1/A)·(Σ|b| + Σ|a|·ℓ1(B/A))` with both norms over the first n samples of
/// their impulse responses, stays within `limit`: 0 when even one sample exceeds it. The
/// serial loop's error needs time to grow through the poles; on short signals it is small
/// where the full-length norms (the plan's bound) are huge.
pub(crate) fn serial_bound_holds_until(
    b: &[f64],
    a: &[f64],
    u: f64,
    limit: f64,
    cap: usize,
) -> usize {
    let k = a.len() - 1;
    let (sb, sa) = (
        b.iter().map(|v| v.abs()).sum::<f64>(),
        a.iter().map(|v| v.abs()).sum::<f64>(),
    );
    let (mut ha, mut h) = (vec![0.0f64; k.max(1)], vec![0.0f64; k.max(1)]);
    let (mut l1a, mut l1h) = (0.0f64, 0.0f64);
    for n in 0..cap {
        let mut va = if n == 0 { 1.0 } else { 0.0 };
        let mut vh = b.get(n).copied().unwrap_or(0.0);
        for j in 1..=k {
            va -= a[j] * ha[j - 1];
            vh -= a[j] * h[j - 1];
        }
        if k > 0 {
            ha.rotate_right(1);
            ha[0] = va;
            h.rotate_right(1);
            h[0] = vh;
        }
        l1a += va.abs();
        l1h += vh.abs();
        let bound = u * (k + 1) as f64 * l1a * (sb + sa * l1h);
        if bound.is_nan() || bound > limit {
            return n;
        }
    }
    cap
}

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

/// ℓ1 norm of an impulse response followed over `h`; where it had not decayed by then (the
/// cap: poles within 10⁻⁵ of the unit circle ring for millions of samples), the rest is
/// bounded from the largest pole radius `rho`: at most twice the last 1,024 samples' mean
/// magnitude per sample, decaying as rho^n.
fn l1_with_tail(h: &[f64], decayed: bool, rho: f64) -> f64 {
    let total = h.iter().map(|v| v.abs()).sum::<f64>();
    if decayed || h.len() < 1024 {
        return total;
    }
    let mean = h[h.len() - 1024..].iter().map(|v| v.abs()).sum::<f64>() / 1024.0;
    if rho < 1.0 {
        total + 2.0 * mean * rho / (1.0 - rho)
    } else {
        f64::INFINITY
    }
}

/// The largest pole radius of a cascade of rows `[b0 b1 b2 1 a1 a2]`.
pub fn max_pole_radius(coef: &[[f64; 6]]) -> f64 {
    coef.iter()
        .map(|c| {
            let (a1, a2) = (c[4], c[5]);
            let disc = a1 * a1 - 4.0 * a2;
            if disc < 0.0 {
                a2.abs().sqrt()
            } else {
                let q = -0.5 * (a1 + a1.signum() * disc.sqrt());
                let r1 = q.abs();
                let r2 = if q != 0.0 { (a2 / q).abs() } else { 0.0 };
                r1.max(r2)
            }
        })
        .fold(0.0, f64::max)
}

/// A cascade's error bounds per unit max|x| (zero initial state).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SosBounds {
    /// SciPy's serial loop with its state and arithmetic in the signal's type (rounding u).
    pub serial: f64,
    /// The section engine: blocked or serial with its state and arithmetic in f64, the output
    /// rounded once to the signal's type (the blocked run's correction included).
    pub blocked: f64,
}

/// Bounds for a cascade run serially at unit roundoff `u` and by the section engine (f64 state
/// and arithmetic, output rounded once at `u`; see the module docs), per unit max|x|.
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
    let rho = max_pole_radius(coef);
    let l1 = |h: &[f64]| l1_with_tail(h, len < IMPULSE_CAP, rho);
    let mut m = vec![1.0f64; s + 1];
    let mut h = vec![0.0f64; len];
    h[0] = 1.0;
    for i in 0..s {
        run(&coef[i], &mut h);
        m[i + 1] = l1(&h);
    }
    // r[i]: from section i's input; r_state[i]: from a unit value in section i's state, which
    // passes its recursion 1/A_i but not its zeros (a band-pass section's b = g·[1, 0, −1] with a
    // small g attenuates its input, not the rounding of its state).
    let mut r = vec![1.0f64; s + 1];
    let mut r_state = vec![1.0f64; s];
    let mut poles = vec![0.0f64; len];
    h.fill(0.0);
    h[0] = 1.0;
    for i in (0..s).rev() {
        poles.copy_from_slice(&h);
        let c = &coef[i];
        run(&[1.0, 0.0, 0.0, 1.0, c[4], c[5]], &mut poles);
        r_state[i] = l1(&poles);
        run(c, &mut h);
        r[i] = l1(&h);
    }
    let mut serial = 0.0;
    let mut blocked = 0.0;
    for (i, c) in coef.iter().enumerate() {
        // Section i: roundings on values of size ≤ m[i], m[i+1]: at most 2u·size into each of
        // its two states (through its recursion and the sections after it) and u·size into its
        // output (through the sections after it).
        let size = (c[0].abs() + c[1].abs() + c[2].abs()) * m[i]
            + (1.0 + c[4].abs() + c[5].abs()) * m[i + 1];
        serial += size * (4.0 * r_state[i] + r[i + 1]);
        // Blocking: each state's carry times its factor table, summed in f64 (the carries are
        // true states, so only the f64 rounding of the correction is new).
        let state = (c[1].abs() + c[2].abs()) * m[i] + (c[4].abs() + c[5].abs()) * m[i + 1];
        for f in &factors[2 * i..2 * i + 2] {
            let peak = f.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            blocked += 2.0 * f64::EPSILON / 2.0 * peak * state;
        }
    }
    // The engine's own rounding is f64's whatever the signal's type (u: the signal type's unit
    // roundoff); its output is rounded once to that type: u of max|y| ≤ ℓ1(h)·max|x| (m[s]).
    let wide = f64::EPSILON / 2.0;
    SosBounds {
        serial: u * serial,
        blocked: u * m[s] + wide * serial + blocked,
    }
}

/// ‖h_given − h_held‖₁: how far, per unit max|x|, the output of the cascade `held` (the
/// coefficients as a kernel holds them, rounded to f32) can lie from that of `given` — the part
/// of a bound against the given coefficients that the rounding of the coefficients adds. Both
/// impulse responses in f64 until both have decayed below 2⁻⁶⁰ of their peak (at most 2¹⁸
/// samples; stable cascades within radius 0.999 decay within about 40,000).
pub(crate) fn coefficient_shift_l1(given: &[[f64; 6]], held: &[[f64; 6]]) -> f64 {
    let step = |rows: &[[f64; 6]], state: &mut [f64], u: f64| {
        let mut v = u;
        for (r, s) in rows.iter().zip(state.chunks_exact_mut(2)) {
            let y = r[0] * v + s[0];
            s[0] = r[1] * v - r[4] * y + s[1];
            s[1] = r[2] * v - r[5] * y;
            v = y;
        }
        v
    };
    let (mut a, mut b) = (vec![0.0; 2 * given.len()], vec![0.0; 2 * held.len()]);
    let (mut sum, mut peak, mut quiet) = (0.0f64, 0.0f64, 0usize);
    for i in 0..(1usize << 18) {
        let u = if i == 0 { 1.0 } else { 0.0 };
        let (p, q) = (step(given, &mut a, u), step(held, &mut b, u));
        sum += (p - q).abs();
        peak = peak.max(p.abs()).max(q.abs());
        let small = p.abs().max(q.abs()) <= peak * f64::powi(2.0, -60);
        quiet = if small { quiet + 1 } else { 0 };
        if quiet > 64
            && a.iter()
                .chain(&b)
                .all(|s| s.abs() <= peak * f64::powi(2.0, -60))
        {
            break;
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    #[test]
    fn coefficient_shift_is_the_l1_distance_of_the_impulse_responses() {
        // One pole each: Σ|qⁿ − pⁿ| = 1/(1 − q) − 1/(1 − p) for 0 < p < q < 1.
        let (p, q) = (0.9f64, 0.9001f64);
        let one = |r: f64| [[1.0, 0.0, 0.0, 1.0, -r, 0.0]];
        let shift = super::coefficient_shift_l1(&one(p), &one(q));
        let exact = 1.0 / (1.0 - q) - 1.0 / (1.0 - p);
        assert!((shift - exact).abs() <= 1e-9 * exact, "{shift} vs {exact}");
        assert_eq!(super::coefficient_shift_l1(&one(p), &one(p)), 0.0);
    }
}

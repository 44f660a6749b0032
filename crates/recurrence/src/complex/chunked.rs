//! The chunked scan for long complex64 signals with few channels on a GPU, and its CPU twin.
//!
//! One GPU thread per channel (the serial kernel) leaves a long signal with few channels to a
//! handful of threads. Instead, each channel is cut into chunks of [`CHUNK`] samples, and
//! the filter's linearity splits the work into three passes (`kernels/complex_serial.cu`):
//! 1. every chunk runs SciPy's loop from the zero state (its end state e_c);
//! 2. one thread per channel carries the true states across chunks, s₀ = zi,
//!    s_{c+1} = e_c + Φ·s_c, with Φ the state transition of `CHUNK` zero-input steps
//!    (computed in double-double at planning by repeated squaring, rounded once to f64);
//! 3. every chunk reruns the loop from s_c, writing y; the last chunk's state is zf.
//!
//! All in f64. The result differs from the serial loop only by the carried states' roundings,
//! which the filter then forgets as it forgets any state: [`plan`] bounds that difference
//! (module docs of [`super`]: the error bound is the worse of the serial loop's and this) and
//! builds the scan only where the bound stays within 4× SciPy's complex64 error — so only for
//! complex64 data, whose contract is f32's (f64 roundings carried through Φ would not keep
//! complex128's). [`run`] is the twin: the same operations in the same order.

use super::c64::C64;
use super::serial::Serial;
use crate::dd::{Cdd, Dd};
use crate::elem::Element;

/// Samples per chunk: 65536 chunks for 2^28 samples, and a carry of n / 4096 steps.
pub const CHUNK: usize = 4096;

/// The largest state (complex values per channel) the scan is built for: the carry multiplies
/// by the STATE × STATE matrix Φ in registers.
pub const MAX_STATE: usize = 16;

/// Device calls with fewer channels than this and at least [`MIN_LENGTH`] samples run the
/// scan; others one thread per channel.
pub const MAX_CHANNELS: usize = 1024;

/// The shortest signal the scan runs (16 chunks).
pub const MIN_LENGTH: usize = 16 * CHUNK;

/// The scan's constants: Φ (row-major, state × state) and its error bound.
#[derive(Clone, Debug)]
pub struct Scan {
    /// The transition of `CHUNK` zero-input steps, Φ[i·k + j] = state i after starting from
    /// the unit state j.
    pub phi: Vec<C64>,
    /// Bound on max|y − y_exact| / max|x| of the scan (from a zero state), complex64 output.
    pub bound: f64,
}

/// One step of the serial loop in double-double (the reference arithmetic).
pub(super) fn dd_step(serial: &Serial, z: &mut [Cdd], xn: Cdd) -> Cdd {
    let add = |p: Cdd, q: Cdd| Cdd {
        re: p.re.add(q.re),
        im: p.im.add(q.im),
    };
    let sub = |p: Cdd, q: Cdd| Cdd {
        re: p.re.sub(q.re),
        im: p.im.sub(q.im),
    };
    let times = |p: Cdd, c: C64| p.mul_c(c.re, c.im);
    match serial {
        Serial::Ba { b, a } => {
            let k = b.len() - 1;
            if k == 0 {
                return times(xn, b[0]);
            }
            let y = add(z[0], times(xn, b[0]));
            for j in 0..k - 1 {
                z[j] = sub(add(z[j + 1], times(xn, b[j + 1])), times(y, a[j + 1]));
            }
            z[k - 1] = sub(times(xn, b[k]), times(y, a[k]));
            y
        }
        Serial::Sos(rows) => {
            let mut cur = xn;
            for (s, r) in rows.iter().enumerate() {
                let new = add(times(cur, r[0]), z[2 * s]);
                z[2 * s] = add(sub(times(cur, r[1]), times(new, r[4])), z[2 * s + 1]);
                z[2 * s + 1] = sub(times(cur, r[2]), times(new, r[5]));
                cur = new;
            }
            cur
        }
    }
}

/// Φ in double-double rounded to f64, and max over the chunk's steps of Σ_j |y_t from unit
/// state j| (how much a state error can show in one output). Φ is the one-step transition
/// (each column one double-double step from a unit state) squared log₂(CHUNK) times.
fn transition(serial: &Serial, k: usize) -> (Vec<C64>, f64) {
    let zero = Cdd::default();
    let mut step = vec![zero; k * k];
    let mut out = vec![C64::ZERO; k];
    for j in 0..k {
        let mut z = vec![zero; k];
        z[j] = Cdd {
            re: Dd::new(1.0),
            im: Dd::new(0.0),
        };
        let y = dd_step(serial, &mut z, zero);
        out[j] = C64::new(y.re.to_f64(), y.im.to_f64());
        for (i, v) in z.iter().enumerate() {
            step[i * k + j] = *v;
        }
    }
    // The output row c·A^t over the chunk (f64: an estimate, given a margin below).
    let step64: Vec<C64> = step
        .iter()
        .map(|v| C64::new(v.re.to_f64(), v.im.to_f64()))
        .collect();
    let mut row = out;
    let mut next = vec![C64::ZERO; k];
    let mut reach: f64 = 0.0;
    for t in 0..CHUNK {
        let size = row.iter().map(|c| c.abs()).sum::<f64>();
        reach = reach.max(size);
        // Died away (the margin below covers what a non-normal A could still regrow).
        if t > 4 * k && size < 1e-20 * reach {
            break;
        }
        for (j, o) in next.iter_mut().enumerate() {
            *o = (0..k).fold(C64::ZERO, |acc, i| acc + row[i] * step64[i * k + j]);
        }
        std::mem::swap(&mut row, &mut next);
    }
    let mut phi = step;
    let mut steps = 1;
    while steps < CHUNK {
        phi = dd_square(&phi, k);
        steps *= 2;
    }
    debug_assert_eq!(steps, CHUNK, "CHUNK is a power of two");
    let phi = phi
        .iter()
        .map(|v| C64::new(v.re.to_f64(), v.im.to_f64()))
        .collect();
    (phi, reach * 1.01)
}

/// M·M for a k × k complex matrix in double-double.
fn dd_square(m: &[Cdd], k: usize) -> Vec<Cdd> {
    let mul = |p: Cdd, q: Cdd| Cdd {
        re: p.re.mul(q.re).sub(p.im.mul(q.im)),
        im: p.re.mul(q.im).add(p.im.mul(q.re)),
    };
    let mut out = vec![Cdd::default(); k * k];
    for i in 0..k {
        for l in 0..k {
            let a = m[i * k + l];
            for j in 0..k {
                let p = mul(a, m[l * k + j]);
                let o = &mut out[i * k + j];
                *o = Cdd {
                    re: o.re.add(p.re),
                    im: o.im.add(p.im),
                };
            }
        }
    }
    out
}

/// ‖M‖_∞ (largest row sum of moduli) of a k × k complex matrix.
fn norm_inf(m: &[C64], k: usize) -> f64 {
    m.chunks(k.max(1))
        .map(|row| row.iter().map(|c| c.abs()).sum::<f64>())
        .fold(0.0, f64::max)
}

/// Σ_{m ≥ 0} ‖Φ^m‖_∞, or None when it does not settle below 1e-18 of the sum in 4096 terms.
fn power_sum(phi: &[C64], k: usize) -> Option<f64> {
    if k == 0 {
        return Some(1.0);
    }
    let mut p = phi.to_vec();
    let mut sum = 1.0;
    for _ in 0..4096 {
        let n = norm_inf(&p, k);
        if !n.is_finite() {
            return None;
        }
        sum += n;
        if n <= 1e-18 * sum {
            return Some(sum * 1.01);
        }
        let mut next = vec![C64::ZERO; k * k];
        for i in 0..k {
            for l in 0..k {
                let a = p[i * k + l];
                for j in 0..k {
                    next[i * k + j] = next[i * k + j] + a * phi[l * k + j];
                }
            }
        }
        p = next;
    }
    None
}

/// What the bound is built from: the serial loop's f64 bound factor `serial` (relative to
/// max|x|), ‖a‖₁, the state's growth G = ‖b‖₁ + ‖a‖₁·‖h‖₁ (|state| ≤ G·max|x|), ‖h‖₁, and
/// SciPy's complex64 bound `reference`.
pub(super) struct Norms {
    pub serial: f64,
    pub a1: f64,
    pub growth: f64,
    pub h1: f64,
    pub reference: f64,
}

/// The scan for `serial` (state `k` ≤ [`MAX_STATE`]) when its bound keeps the complex64
/// contract (within 4× `reference`), else None.
///
/// Bound: each carried state s_{c+1} = e_c + Φ·s_c picks up at most
/// ρ = ‖a‖₁·serial + γ_s·G (e_c's roundings: the outputs' error feeding the state through a,
/// and the state's own roundings, γ_s = (2k + 4)·√5·u) + u·‖Φ‖_∞·G (Φ rounded once) +
/// γ·(1 + ‖Φ‖_∞)·G (the k + 1 complex products and sums, γ = (k + 2)·√5·u), times max|x|; the errors then pass through powers of Φ, so a state is off by at most
/// Σ‖Φ^m‖_∞·ρ, and one output by that times max_t Σ_j |y_t from unit state j|. The rerun adds
/// the serial loop's own error and the complex64 output its rounding.
pub(super) fn plan(serial: &Serial, k: usize, norms: &Norms) -> Option<Scan> {
    if k > MAX_STATE {
        return None;
    }
    let (phi, reach) = transition(serial, k);
    let sum = power_sum(&phi, k)?;
    let u = f64::EPSILON / 2.0;
    let phi_norm = norm_inf(&phi, k);
    let gamma = (k + 2) as f64 * 5f64.sqrt() * u;
    let g = norms.growth;
    let gamma_s = (2 * k + 4) as f64 * 5f64.sqrt() * u;
    let rho =
        norms.a1 * norms.serial + gamma_s * g + u * phi_norm * g + gamma * (1.0 + phi_norm) * g;
    let u32 = f32::EPSILON as f64 / 2.0;
    let bound = norms.serial + reach * sum * rho + std::f64::consts::SQRT_2 * u32 * norms.h1;
    (bound.is_finite() && bound <= 4.0 * norms.reference).then_some(Scan { phi, bound })
}

/// The twin of the three passes for one channel of `n = x.len() / 2 ≥ 1` complex samples
/// (interleaved), from `z` (the state, k values; zi or zero) — which ends as zf.
pub(super) fn run<T: Element>(serial: &Serial, phi: &[C64], x: &[T], y: &mut [T], z: &mut [C64]) {
    let k = z.len();
    let n = x.len() / 2;
    let chunks = n.div_ceil(CHUNK);
    let read = |i: usize| C64::new(x[2 * i].to_f64(), x[2 * i + 1].to_f64());
    // Pass 1: each chunk from zero.
    let mut ends = vec![C64::ZERO; chunks * k];
    for (c, e) in ends.chunks_mut(k.max(1)).enumerate().take(chunks) {
        let mut s = vec![C64::ZERO; k];
        for i in c * CHUNK..n.min((c + 1) * CHUNK) {
            serial.step(&mut s, read(i));
        }
        e[..k].copy_from_slice(&s);
    }
    // Pass 2: the carry, each row summed from e_c, columns in order.
    let mut starts = vec![C64::ZERO; chunks * k];
    let mut s = z.to_vec();
    for c in 0..chunks {
        starts[c * k..(c + 1) * k].copy_from_slice(&s);
        let next: Vec<C64> = (0..k)
            .map(|i| {
                let mut acc = ends[c * k + i];
                for j in 0..k {
                    acc = acc + phi[i * k + j] * s[j];
                }
                acc
            })
            .collect();
        s = next;
    }
    // Pass 3: each chunk again from its true state.
    for c in 0..chunks {
        let mut s = starts[c * k..(c + 1) * k].to_vec();
        for i in c * CHUNK..n.min((c + 1) * CHUNK) {
            let yn = serial.step(&mut s, read(i));
            y[2 * i] = T::from_f64(yn.re);
            y[2 * i + 1] = T::from_f64(yn.im);
        }
        if c + 1 == chunks {
            z.copy_from_slice(&s);
        }
    }
}

//! The correction tables of the fused cascade, computed exactly: powers of each section's
//! state transition in double-double (a 2×2 matrix), rounded once to f64 (the kernel computes
//! in f64 whatever the element type: see `kernels/sos.cuh`), and the decay that decides between
//! the tail carry and the look-back.

use super::config::SosConfig;
use crate::dd::Dd;
use crate::elem::{DType, Element};

/// A 2×2 matrix in double-double, row-major.
#[derive(Clone, Copy, Debug)]
struct M2([Dd; 4]);

impl M2 {
    fn identity() -> M2 {
        M2([Dd::new(1.0), Dd::ZERO, Dd::ZERO, Dd::new(1.0)])
    }
    /// A section's state transition with no input: [[-a1, 1], [-a2, 0]].
    fn transition(a1: f64, a2: f64) -> M2 {
        M2([Dd::new(a1).neg(), Dd::new(1.0), Dd::new(a2).neg(), Dd::ZERO])
    }
    fn mul(&self, o: &M2) -> M2 {
        let (a, b) = (&self.0, &o.0);
        M2([
            a[0].mul(b[0]).add(a[1].mul(b[2])),
            a[0].mul(b[1]).add(a[1].mul(b[3])),
            a[2].mul(b[0]).add(a[3].mul(b[2])),
            a[2].mul(b[1]).add(a[3].mul(b[3])),
        ])
    }
    fn pow(&self, mut e: usize) -> M2 {
        let (mut r, mut b) = (M2::identity(), *self);
        while e > 0 {
            if e & 1 == 1 {
                r = r.mul(&b);
            }
            b = b.mul(&b);
            e >>= 1;
        }
        r
    }
    fn values(&self) -> [f64; 4] {
        self.0.map(Dd::to_f64)
    }
}

/// Every table the kernel (and its emulation) uses, for one cascade, element type and shape.
#[derive(Clone, Debug)]
pub struct SosTables<T> {
    /// The rows `[b0 b1 b2 1 a1 a2]` in `T` ([`super::sos_coefficients`]).
    pub coefs: Vec<[T; 6]>,
    /// The rows the kernel computes with: `T`'s values, or for the f64-arithmetic kernel of f32
    /// signals the rows as given (f64): where it computes in f64 anyway, rounding the
    /// coefficients to f32 would only add their error (near a double pole by DC, f32 rounding
    /// moves a resonator's output by percents).
    pub held: Vec<[f64; 6]>,
    /// The launch shape the tables are for (normalised).
    pub config: SosConfig,
    /// [s][j][i] = (A^i)[0][j], i < V.
    pub f: Vec<[Vec<f64>; 2]>,
    /// [s][j] = max_i |f[s][j][i]|: how far a unit carry-in moves a thread's values (the
    /// kernel's correction peak).
    pub f_peak: Vec<[f64; 2]>,
    /// [s][k] = A^(2^k V), k < 5 (zero where every entry is below ε² of the arithmetic).
    pub warp_merge: Vec<[[f64; 4]; 5]>,
    /// [s][k] = A^(2^k 32 V), k < log2(warps) (at least one entry; zero as `warp_merge`).
    pub block_merge: Vec<Vec<[f64; 4]>>,
    /// [s][w] = A^(w 32 V) in f64.
    pub warp_pow: Vec<Vec<[f64; 4]>>,
    /// [s][l] = A^(l V), l < 32: the device buffer `lane_pow`.
    pub lane_pow: Vec<f64>,
    /// [s][l] = A^(l CHUNK), l ≤ 32, in f64: the device buffer `chunk_pow`.
    pub chunk_pow: Vec<f64>,
    /// [s] = A^(32 V) in f64.
    pub warp_step: Vec<[f64; 4]>,
    /// The largest state the whole cascade keeps, after 32 V samples of zero input, from any
    /// unit initial state of any section.
    pub decay: f64,
    /// Each block recomputes its carry-ins from the previous chunk's last 32 V inputs (no
    /// look-back): `decay` is below a thousandth of `T`'s rounding and not forced off.
    pub tail: bool,
    /// The correction terms' ratio to the output on a steady sinusoid in the pass band
    /// ([`super::passband_correction`]): what the correction check reads on benign input.
    pub passband_correction: f64,
}

impl<T: Element> SosTables<T> {
    /// The tables of `coefs` for the (normalised) shape `config`.
    pub fn new(coefs: Vec<[T; 6]>, config: SosConfig) -> SosTables<T> {
        let held = coefs.iter().map(|r| r.map(|x| x.to_f64())).collect();
        Self::holding(coefs, held, config)
    }

    /// The tables of the rows `held` (for the f64-arithmetic kernel of f32 signals, the rows
    /// as given; otherwise `coefs` in f64) for the shape `config`.
    pub fn holding(coefs: Vec<[T; 6]>, held: Vec<[f64; 6]>, config: SosConfig) -> SosTables<T> {
        let (v, warps) = (config.vpt, config.threads / 32);
        let chunk = config.chunk();
        let rnd = |m: &M2| m.values();
        // A scan merge whose entries are all below ε² of the arithmetic is held as zero, and the
        // kernel computing in f32 leaves its step out (`sos_merge_up`): what it would add is below
        // ε² of the states it merges, and states that large against the output fail the
        // contract's correction check (at most 8× the output) before their ε-rounding could matter.
        let eps = match config.wide {
            true => f64::EPSILON,
            false => f32::EPSILON as f64,
        };
        let merge = |m: &M2| {
            let v = m.values();
            match v.iter().all(|x| x.abs() < eps * eps) {
                true => [0.0; 4],
                false => v,
            }
        };
        let mut t = SosTables {
            coefs,
            held,
            config,
            f: Vec::new(),
            f_peak: Vec::new(),
            warp_merge: Vec::new(),
            block_merge: Vec::new(),
            warp_pow: Vec::new(),
            lane_pow: Vec::new(),
            chunk_pow: Vec::new(),
            warp_step: Vec::new(),
            decay: 0.0,
            tail: false,
            passband_correction: 0.0,
        };
        for c in &t.held {
            let a = M2::transition(c[4], c[5]);
            let mut f = [Vec::with_capacity(v), Vec::with_capacity(v)];
            let mut p = M2::identity();
            for _ in 0..v {
                f[0].push(p.0[0].to_f64());
                f[1].push(p.0[1].to_f64());
                p = p.mul(&a);
            }
            t.f_peak.push(
                f.each_ref()
                    .map(|r| r.iter().fold(0.0f64, |m, x| m.max(x.abs()))),
            );
            t.f.push(f);
            let av = a.pow(v);
            t.warp_merge
                .push(std::array::from_fn(|k| merge(&av.pow(1 << k))));
            let a32 = av.pow(32);
            t.warp_step.push(a32.values());
            let log_warps = scan_steps(warps);
            t.block_merge.push(
                (0..log_warps.max(1))
                    .map(|k| merge(&a32.pow(1 << k)))
                    .collect(),
            );
            t.warp_pow
                .push((0..warps).map(|w| a32.pow(w).values()).collect());
            for l in 0..32 {
                t.lane_pow.extend(rnd(&av.pow(l)));
            }
            let ac = a.pow(chunk);
            for l in 0..=32 {
                t.chunk_pow.extend(ac.pow(l).values());
            }
        }
        t.decay = cascade_decay(&t.held, 32 * v);
        t.passband_correction = super::passband_correction(&t.held, &t.f_peak);
        let eps = if T::DTYPE == DType::F32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        t.tail = !config.force_look_back && t.decay < 1e-3 * eps;
        t
    }

    /// Chunks one block filters: `config.chunks_per_block` with the tail carry, else 1.
    pub fn chunks_per_block(&self) -> usize {
        if self.tail {
            self.config.chunks_per_block.max(1)
        } else {
            1
        }
    }

    /// Threads per block: the chunk's, and the tail warp's.
    pub fn block_threads(&self) -> usize {
        self.config.threads + if self.tail { 32 } else { 0 }
    }

    /// The number of sections.
    pub fn sections(&self) -> usize {
        self.coefs.len()
    }
}

/// The largest state (any section) the cascade holds after `w` samples of zero input, from
/// each unit initial state of each section, in f64: how much a chunk's carry-in still matters
/// `w` samples on (0 when it is far below every rounding).
pub fn cascade_decay(coefs: &[[f64; 6]], w: usize) -> f64 {
    let ns = coefs.len();
    let mut worst = 0.0f64;
    for start in 0..2 * ns {
        let mut z = vec![0.0f64; 2 * ns];
        z[start] = 1.0;
        for _ in 0..w {
            let mut u = 0.0;
            for (s, c) in coefs.iter().enumerate() {
                let yv = c[0] * u + z[2 * s];
                z[2 * s] = c[1] * u - c[4] * yv + z[2 * s + 1];
                z[2 * s + 1] = c[2] * u - c[5] * yv;
                u = yv;
            }
        }
        worst = z.iter().fold(worst, |m, v| m.max(v.abs()));
    }
    worst
}

/// Doubling steps of a scan over `warps` lanes: ⌈log2 warps⌉ (any count, not only powers of 2).
pub fn scan_steps(warps: usize) -> usize {
    if warps <= 1 {
        0
    } else {
        ((warps - 1).ilog2() + 1) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::sos_tables::sos_coefficients;
    use crate::testing::BUTTER8_0005;

    #[test]
    fn warp_counts_that_are_not_powers_of_two_take_enough_steps() {
        assert_eq!(
            (1..=10).map(scan_steps).collect::<Vec<_>>(),
            [0, 1, 2, 2, 3, 3, 3, 3, 4, 4]
        );
    }

    /// butter(8, 0.1) in f32 at 256x32: A^(2^k 32) of its fastest section falls below ε² from
    /// k = 2 (held as zero: the kernel leaves the step out), while the slowest keeps every warp
    /// step; in f64 (ε² 4.9e-32) the fastest keeps A^64 and A^128.
    #[test]
    fn merges_below_epsilon_squared_are_held_as_zero() {
        use crate::testing::BUTTER8_01;
        let t32 = SosTables::new(
            sos_coefficients::<f32>(&BUTTER8_01).unwrap(),
            SosConfig::default().normalized(DType::F32).unwrap(),
        );
        let zero = |m: &[f64; 4]| m.iter().all(|&x| x == 0.0);
        let eps2 = (f32::EPSILON as f64).powi(2);
        for (s, merges) in t32.warp_merge.iter().enumerate() {
            for (k, m) in merges.iter().enumerate() {
                let max = m.iter().fold(0.0f64, |a, x| a.max(x.abs()));
                assert!(zero(m) || max >= eps2, "section {s} step {k}: {m:?}");
            }
        }
        assert!(!zero(&t32.warp_merge[0][1]) && zero(&t32.warp_merge[0][2]));
        assert!(t32.warp_merge[3].iter().all(|m| !zero(m)));
        let config = SosConfig {
            wide: true,
            ..SosConfig::default()
        };
        let t64 = SosTables::new(
            sos_coefficients::<f32>(&BUTTER8_01).unwrap(),
            config.normalized(DType::F32).unwrap(),
        );
        assert!(!zero(&t64.warp_merge[0][2]));
    }

    #[test]
    fn tables_hold_exact_powers() {
        let coefs = sos_coefficients::<f64>(&BUTTER8_0005).unwrap();
        let t = SosTables::new(
            coefs.clone(),
            SosConfig::default().normalized(DType::F64).unwrap(),
        );
        // A^(32 CHUNK) from the table vs 32 CHUNK steps of the recurrence in double-double.
        let (a1, a2) = (coefs[3][4], coefs[3][5]);
        let m = M2::transition(a1, a2);
        let mut p = M2::identity();
        for _ in 0..t.config.chunk() {
            p = p.mul(&m);
        }
        let want = p.values();
        let got = &t.chunk_pow[(3 * 33 + 1) * 4..(3 * 33 + 2) * 4];
        for k in 0..4 {
            assert!(
                (got[k] - want[k]).abs() <= 1e-15 * want[k].abs().max(1e-300),
                "{got:?} {want:?}"
            );
        }
    }
}

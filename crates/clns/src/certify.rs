//! Certificates of S_b methods: errors of the rounded (Re code, Im angle) against the exact
//! S_b, over a dense grid of the whole reduced domain, every input of the singular corner, and
//! random inputs. Errors are in ulps of each part: 2^-F (log2 units) and 2^-P turns.

use crate::format::{ClnsFormat, HALF_TURN};
use crate::sb::{essential_zero_code, sb_exact, Sb};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

/// The (z code, θ angle) inputs a certificate covers: as many of each, z ≤ 0 within an i32
/// (the kernels' code type) and θ ∈ [0, 2^31], so every evaluator and the GPU S_b kernels
/// (which read z[i] and θ[i] for i < len) may take them as they are.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    z: Vec<i64>,
    theta: Vec<u32>,
}

/// Why inputs or results cannot be certified.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CertifyError {
    /// Unequal numbers of z codes and angles.
    #[error("{z} z codes but {theta} angles: inputs come in pairs")]
    Pairs {
        /// z codes given.
        z: usize,
        /// Angles given.
        theta: usize,
    },
    /// An input outside the domain S_b evaluators take.
    #[error("input {index}: (z {z}, θ {theta}) is outside z ∈ [−2^31, 0], θ ∈ [0, 2^31]")]
    Domain {
        /// Its position in the inputs.
        index: usize,
        /// Its z code.
        z: i64,
        /// Its angle, in 2^-32 turns.
        theta: u32,
    },
    /// Not one result per input.
    #[error("{results} results for {inputs} inputs")]
    Results {
        /// Inputs certified.
        inputs: usize,
        /// Results given.
        results: usize,
    },
    /// A grid of more than [`MAX_GRID_POINTS`] inputs.
    #[error(
        "stride {stride}: the grid would hold {points} inputs of {format} (at most {max}); \
         take a larger stride"
    )]
    GridTooLarge {
        /// The format's name.
        format: String,
        /// The stride asked for.
        stride: u32,
        /// Inputs the grid would hold.
        points: u128,
        /// The most allowed, [`MAX_GRID_POINTS`].
        max: u128,
    },
    /// A grid whose certificate needs more memory than the machine has available.
    #[error("{message}")]
    Memory {
        /// What is needed, what is available and the stride that would fit.
        message: String,
    },
}

/// The most grid points [`Inputs::standard_checked`] builds (2^30: about 12 GiB of inputs,
/// and as much again for results and errors).
pub const MAX_GRID_POINTS: u128 = 1 << 30;

impl Inputs {
    /// Inputs from explicit pairs, checked against the domain S_b evaluators take.
    pub fn new(z: Vec<i64>, theta: Vec<u32>) -> Result<Inputs, CertifyError> {
        if z.len() != theta.len() {
            return Err(CertifyError::Pairs {
                z: z.len(),
                theta: theta.len(),
            });
        }
        if let Some(index) =
            (0..z.len()).find(|&i| z[i] > 0 || z[i] < i32::MIN as i64 || theta[i] > HALF_TURN)
        {
            return Err(CertifyError::Domain {
                index,
                z: z[index],
                theta: theta[index],
            });
        }
        Ok(Inputs { z, theta })
    }

    /// The z codes.
    pub fn z(&self) -> &[i64] {
        &self.z
    }

    /// The angles (u32 angle units), one per z code.
    pub fn theta(&self) -> &[u32] {
        &self.theta
    }

    /// How many grid points (before the corner and random inputs) [`Inputs::standard`] makes
    /// for `stride`, without making them.
    pub fn grid_points(format: ClnsFormat, stride: u32) -> u128 {
        let stride = stride.max(1) as u128;
        let z_span = essential_zero_code(format).unsigned_abs() as u128;
        let half = (HALF_TURN >> format.angle_shift()) as u128;
        // 0, −stride, … down to z0, plus z0 itself (likewise θ up to π).
        (z_span / stride + 2) * (half / stride + 2)
    }

    /// [`Inputs::standard`], refused with an error naming the stride when its grid would
    /// exceed [`MAX_GRID_POINTS`] (every input of clns32 is ~10^15 of them).
    pub fn standard_checked(
        format: ClnsFormat,
        stride: u32,
        random: usize,
        seed: u64,
    ) -> Result<Inputs, CertifyError> {
        let points = Inputs::grid_points(format, stride);
        if points > MAX_GRID_POINTS {
            return Err(CertifyError::GridTooLarge {
                format: format.to_string(),
                stride,
                points,
                max: MAX_GRID_POINTS,
            });
        }
        Inputs::check_memory(
            format,
            stride,
            random,
            sigpu_runtime::host::available_memory(),
        )?;
        Ok(Inputs::standard(format, stride, random, seed))
    }

    /// Bytes a certificate over [`Inputs::standard`]'s inputs holds at once: the inputs
    /// (z i64 + θ u32) and one result per input (i64 + u32, padded), on the host.
    pub fn memory_bytes(format: ClnsFormat, stride: u32, random: usize) -> u128 {
        (Inputs::grid_points(format, stride) + 65 * 65 + random as u128) * (12 + 16)
    }

    /// Refuses a grid whose certificate would not fit in `available` bytes, naming the
    /// smallest stride that would.
    pub fn check_memory(
        format: ClnsFormat,
        stride: u32,
        random: usize,
        available: Option<u64>,
    ) -> Result<(), CertifyError> {
        let need =
            |stride: u32| Inputs::memory_bytes(format, stride, random).min(u64::MAX as u128) as u64;
        let fits = |stride: u32| {
            sigpu_runtime::host::check_memory(need(stride), available, "", "").is_ok()
        };
        if fits(stride) {
            return Ok(());
        }
        // The grid shrinks as the stride grows: the first stride that fits, by doubling then
        // bisecting.
        let mut hi = stride.max(1);
        while !fits(hi) && hi < u32::MAX / 2 {
            hi *= 2;
        }
        let mut lo = hi / 2;
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let message = sigpu_runtime::host::check_memory(
            need(stride),
            available,
            &format!(
                "the grid of {} inputs of {format} at stride {stride}",
                Inputs::grid_points(format, stride)
            ),
            &format!("take a stride of at least {hi}"),
        )
        .unwrap_err();
        Err(CertifyError::Memory { message })
    }

    /// Every `stride`-th code of z ∈ [essential zero, 0] × every `stride`-th angle of θ ∈ [0, π]
    /// (both ends included), every input within 64 codes of the singular corner (z = 0,
    /// θ = π), and `random` uniform inputs.
    pub fn standard(format: ClnsFormat, stride: u32, random: usize, seed: u64) -> Inputs {
        let stride = stride.max(1) as i64;
        let z0 = essential_zero_code(format);
        let shift = format.angle_shift();
        let half = (HALF_TURN >> shift) as i64; // π in angle codes
        let mut zs: Vec<i64> = (0..)
            .map(|k| -k * stride)
            .take_while(|&z| z >= z0)
            .collect();
        if *zs.last().expect("z = 0 is always there") != z0 {
            zs.push(z0);
        }
        let mut ts: Vec<i64> = (0..)
            .map(|k| k * stride)
            .take_while(|&t| t <= half)
            .collect();
        if *ts.last().expect("θ = 0 is always there") != half {
            ts.push(half);
        }
        let mut inputs = Inputs::default();
        // Exactly what is pushed below (at most): no doubling of a large vector.
        let count = zs.len() * ts.len() + 65 * 65 + random;
        inputs.z.reserve_exact(count);
        inputs.theta.reserve_exact(count);
        let mut push = |z: i64, t: i64| {
            // Z = −1 exactly never reaches S_b: x + (−x) is zero before it.
            if z == 0 && t == half {
                return;
            }
            inputs.z.push(z);
            inputs.theta.push(((t as u64) << shift) as u32);
        };
        for &z in &zs {
            for &t in &ts {
                push(z, t);
            }
        }
        for z in (-64i64).max(z0)..=0 {
            for t in (half - 64).max(0)..=half {
                push(z, t);
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..random {
            push(rng.random_range(z0..=0), rng.random_range(0..=half));
        }
        inputs
    }

    /// Number of (z, θ) inputs.
    pub fn len(&self) -> usize {
        self.z.len()
    }

    /// Whether there are no inputs.
    pub fn is_empty(&self) -> bool {
        self.z.is_empty()
    }
}

/// Error statistics of one S_b method over a set of inputs, against the exact S_b: how far
/// each rounded part lies from it, in ulps of that part.
#[derive(Clone, Debug, Serialize)]
pub struct Certificate {
    /// The format's name, e.g. `clns16`.
    pub format: String,
    /// The S_b method's name, e.g. `tex`.
    pub method: String,
    /// Where the results were computed: `cpu`, or the GPU's name and architecture.
    pub device: String,
    /// Inputs certified.
    pub inputs: usize,
    /// Largest and mean |Re error| in ulps of 2^-F.
    pub re_max_ulps: f64,
    /// Mean |Re error|, ulps of 2^-F.
    pub re_mean_ulps: f64,
    /// Largest and mean |Im error| in ulps of 2^-P turns.
    pub im_max_ulps: f64,
    /// Mean |Im error|, ulps of 2^-P turns.
    pub im_mean_ulps: f64,
    /// Share of inputs with both parts within 1 ulp (faithful).
    pub share_faithful: f64,
    /// Where each maximum was reached: (z code, θ angle code).
    pub re_worst: (i64, u64),
    /// Where the Im maximum was reached: (z code, θ in P-bit angle units).
    pub im_worst: (i64, u64),
    /// First-order bound on the relative error of one CLNS add from S_b's rounding:
    /// ln 2 · re_max · 2^-F + 2π · im_max · 2^-P (the operands themselves are exact).
    pub add_relative_bound: f64,
}

/// Running error statistics over inputs, merged in any order: maxima with the index where
/// they occur (the largest index on ties, whatever the split), sums, the faithful count.
#[derive(Clone, Copy, Default)]
struct Tally {
    re_max: f64,
    re_at: usize,
    im_max: f64,
    im_at: usize,
    re_sum: f64,
    im_sum: f64,
    faithful: usize,
    n: usize,
}

impl Tally {
    fn add(mut self, i: usize, (re, im): (f64, f64)) -> Tally {
        if re >= self.re_max {
            (self.re_max, self.re_at) = (re, i);
        }
        if im >= self.im_max {
            (self.im_max, self.im_at) = (im, i);
        }
        self.re_sum += re;
        self.im_sum += im;
        self.faithful += (re < 1.0 && im < 1.0) as usize;
        self.n += 1;
        self
    }

    fn merge(self, o: Tally) -> Tally {
        let pick = |a: (f64, usize), b: (f64, usize)| {
            if b.0 > a.0 || (b.0 == a.0 && b.1 > a.1) {
                b
            } else {
                a
            }
        };
        let (re_max, re_at) = pick((self.re_max, self.re_at), (o.re_max, o.re_at));
        let (im_max, im_at) = pick((self.im_max, self.im_at), (o.im_max, o.im_at));
        Tally {
            re_max,
            re_at,
            im_max,
            im_at,
            re_sum: self.re_sum + o.re_sum,
            im_sum: self.im_sum + o.im_sum,
            faithful: self.faithful + o.faithful,
            n: self.n + o.n,
        }
    }
}

/// |error| of the result `(gr, ga)` at input `i`, in ulps of each part.
fn error_at(format: ClnsFormat, inputs: &Inputs, i: usize, (gr, ga): (i64, u32)) -> (f64, f64) {
    let (z, t) = (inputs.z[i], inputs.theta[i]);
    let (re, im) = if z < essential_zero_code(format) {
        (0.0, 0.0)
    } else {
        sb_exact(format, z, t)
    };
    let f_ulp = format.log.ulp();
    let re_err = (gr as f64 * f_ulp - re).abs() / f_ulp;
    // Signed angle difference in turns, wrapped to (−1/2, 1/2].
    let ga_turns = (ga as i32) as f64 / 4_294_967_296.0;
    let d = ga_turns - im;
    let d = d - d.round();
    (re_err, d.abs() / format.angle_ulp_turns())
}

fn certificate(
    format: ClnsFormat,
    method: &str,
    device: &str,
    inputs: &Inputs,
    t: Tally,
) -> Certificate {
    let n = t.n.max(1) as f64;
    let shift = format.angle_shift();
    let at = |i: usize| {
        inputs
            .z
            .get(i)
            .map_or((0, 0), |&z| (z, (inputs.theta[i] >> shift) as u64))
    };
    let (f_ulp, p_ulp) = (format.log.ulp(), format.angle_ulp_turns());
    Certificate {
        format: format.to_string(),
        method: method.to_owned(),
        device: device.to_owned(),
        inputs: t.n,
        re_max_ulps: t.re_max,
        re_mean_ulps: t.re_sum / n,
        im_max_ulps: t.im_max,
        im_mean_ulps: t.im_sum / n,
        share_faithful: t.faithful as f64 / n,
        re_worst: at(t.re_at),
        im_worst: at(t.im_at),
        add_relative_bound: std::f64::consts::LN_2 * t.re_max * f_ulp
            + std::f64::consts::TAU * t.im_max * p_ulp,
    }
}

/// Certifies results `got[i]` = (Re code, Im angle) for `inputs`; the errors are folded as
/// they are computed (no per-input array beside the inputs and results).
pub fn certify_results(
    format: ClnsFormat,
    method: &str,
    device: &str,
    inputs: &Inputs,
    got: &[(i64, u32)],
) -> Result<Certificate, CertifyError> {
    if got.len() != inputs.len() {
        return Err(CertifyError::Results {
            inputs: inputs.len(),
            results: got.len(),
        });
    }
    let tally = (0..inputs.len())
        .into_par_iter()
        .fold(Tally::default, |t, i| {
            t.add(i, error_at(format, inputs, i, got[i]))
        })
        .reduce(Tally::default, Tally::merge);
    Ok(certificate(format, method, device, inputs, tally))
}

/// Certifies a CPU evaluator, each result checked as it is made (nothing per input is kept
/// beside the inputs).
pub fn certify(m: &(impl Sb + ?Sized), method: &str, inputs: &Inputs) -> Certificate {
    let format = m.format();
    let tally = (0..inputs.len())
        .into_par_iter()
        .fold(Tally::default, |t, i| {
            let got = m.sb(inputs.z[i], inputs.theta[i]);
            t.add(i, error_at(format, inputs, i, got))
        })
        .reduce(Tally::default, Tally::merge);
    certificate(format, method, "cpu", inputs, tally)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sb::{Geometry, Method};

    #[test]
    fn f64_is_correctly_rounded_and_tables_are_close() {
        let f = ClnsFormat::CLNS16;
        let inputs = Inputs::standard(f, 509, 2000, 1);
        let g = Geometry::default_for(f);
        let c = certify(&Method::F64.cpu(f, g).unwrap().unwrap(), "f64", &inputs);
        assert!(
            c.re_max_ulps <= 0.5 + 1e-6 && c.im_max_ulps <= 0.5 + 1e-6,
            "{c:?}"
        );
        assert_eq!(c.share_faithful, 1.0);
        for m in [Method::Tex, Method::Fma] {
            let c = certify(&m.cpu(f, g).unwrap().unwrap(), &m.to_string(), &inputs);
            assert!(c.re_max_ulps < 8.0 && c.im_max_ulps < 8.0, "{c:?}");
        }
    }

    #[test]
    fn bad_inputs_and_results_are_refused() {
        let f = ClnsFormat::CLNS16;
        assert!(Inputs::new(vec![0, -1], vec![0, HALF_TURN]).is_ok());
        assert_eq!(
            Inputs::new(vec![0, -1], vec![0]).unwrap_err(),
            CertifyError::Pairs { z: 2, theta: 1 }
        );
        for (z, theta) in [(1, 0), (0, HALF_TURN + 1), (i32::MIN as i64 - 1, 0)] {
            assert!(matches!(
                Inputs::new(vec![-5, z], vec![0, theta]),
                Err(CertifyError::Domain { index: 1, .. })
            ));
        }
        let inputs = Inputs::standard(f, 4099, 10, 1);
        assert_eq!(
            certify_results(f, "x", "cpu", &inputs, &[(0, 0)]).unwrap_err(),
            CertifyError::Results {
                inputs: inputs.len(),
                results: 1
            }
        );
        // The grid count bounds what `standard` makes; every input of clns32 is refused.
        assert!(inputs.len() - 10 - 65 * 65 <= Inputs::grid_points(f, 4099) as usize);
        let e = Inputs::standard_checked(ClnsFormat::CLNS32, 1, 0, 1).unwrap_err();
        assert!(e.to_string().contains("stride 1:"), "{e}");
        assert!(Inputs::standard_checked(f, 4099, 0, 1).is_ok());
    }

    #[test]
    fn a_grid_that_does_not_fit_in_memory_is_refused_with_the_stride_that_does() {
        let f = ClnsFormat::CLNS16;
        let gib = 1u64 << 30;
        // Every input of clns16 (`--stride 1`, the help's "every input") once aborted at 18 GB.
        let need = Inputs::memory_bytes(f, 1, 1_000_000);
        assert!(need > 8 * gib as u128, "{need}");
        let e = Inputs::check_memory(f, 1, 1_000_000, Some(8 * gib))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("at stride 1 needs about") && e.contains("8.0 GiB is available"),
            "{e}"
        );
        let stride: u32 = e.rsplit(' ').next().unwrap().parse().unwrap();
        assert!(
            Inputs::check_memory(f, stride, 1_000_000, Some(8 * gib)).is_ok(),
            "{e}"
        );
        assert!(
            Inputs::check_memory(f, stride - 1, 1_000_000, Some(8 * gib)).is_err(),
            "{e}"
        );
        assert!(
            Inputs::check_memory(f, 1, 0, None).is_ok(),
            "unknown memory: allowed"
        );
    }
}

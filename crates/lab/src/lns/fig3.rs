//! texture-LNS's Fig. 3: worst-case s_b error (in bits) against input precision f = 8..23, with
//! k = 2^(f−8) segments on z ∈ [−1, 0], so the 8-bit filter weight of every input is exact.
//! Each table method is evaluated on all 2^f + 1 inputs by its CPU twin (the texture methods by
//! the H100 filter model of `docs/texture-filtering.md`).

use rayon::prelude::*;
use serde::Serialize;
use sigpu_fnapprox::{tables as tex, FitError, PiecewisePoly};
use sigpu_lns::sb_f64;

/// One point of Fig. 3: a method's worst s_b error at one input precision.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Fig3Point {
    /// The method (`tex1`, `tex2`, `horner2`, `horner3`, ...).
    pub method: String,
    /// Fractional bits of the input z.
    pub f: u32,
    /// Table segments on z ∈ [−1, 0]: k = 2^(f−8).
    pub segments: usize,
    /// max |method(z) − s_b(z)| over the inputs.
    pub max_error: f64,
    /// −log2(max_error): output bits of accuracy.
    pub bits: f64,
}

/// The methods plotted: order-1 texture, order-2 texture, f32 Horner of degree 2 and 3.
pub const FIG3_METHODS: [&str; 4] = ["tex1", "tex2", "horner2", "horner3"];

/// The tables of one input precision f: k = 2^(f−8) segments on [−1, 0].
pub(crate) struct Fig3Tables {
    pub f: u32,
    pub k: usize,
    /// Order-1 texels at the k + 1 segment boundaries.
    pub t1: Vec<f32>,
    pub p2: PiecewisePoly,
    /// The 2k × 2 order-2 texture of `p2`.
    pub t2: Vec<f32>,
    pub p3: PiecewisePoly,
}

impl Fig3Tables {
    pub fn new(f: u32) -> Result<Fig3Tables, FitError> {
        if !(8..=23).contains(&f) {
            return Err(FitError::Invalid(format!(
                "input precision f = {f}: Fig. 3 spans 8..=23"
            )));
        }
        let k = 1usize << (f - 8);
        let p2 = PiecewisePoly::fit(sb_f64, -1.0, 0.0, k, 2)?;
        Ok(Fig3Tables {
            f,
            k,
            t1: tex::order1_texels(sb_f64, -1.0, 0.0, k + 1)?,
            t2: tex::order2_texels(&p2)?,
            p2,
            p3: PiecewisePoly::fit(sb_f64, -1.0, 0.0, k, 3)?,
        })
    }

    /// Inputs z_i = −i·2^-f, i = 0..=2^f.
    pub fn inputs(&self) -> usize {
        (1usize << self.f) + 1
    }

    pub fn z(&self, i: usize) -> f64 {
        -(i as f64) / (1u64 << self.f) as f64
    }

    /// Segment and local variable of z_i on [−1, 0]: exact, 8 fractional bits.
    pub fn site(&self, i: usize) -> (usize, f32) {
        let u = (1usize << self.f) - i; // (z + 1)·2^f
        let w = (u >> 8).min(self.k - 1);
        (w, (u - (w << 8)) as f32 / 256.0)
    }

    /// The CPU twin of `method` (one of [`FIG3_METHODS`]) at input i.
    pub fn eval(&self, method: &str, i: usize) -> f32 {
        let (w, s) = self.site(i);
        match method {
            "tex1" => tex::order1_eval(&self.t1, -1.0, 0.0, self.z(i)),
            "tex2" => tex::order2_eval(&self.t2, self.k, w, s),
            "horner2" => self.p2.eval_horner_f32(w, s),
            _ => self.p3.eval_horner_f32(w, s),
        }
    }

    /// A point of the figure from the values of `method` at every input.
    pub fn point(&self, method: &str, value: impl Fn(usize) -> f64 + Sync) -> Fig3Point {
        let max_error = (0..self.inputs())
            .into_par_iter()
            .map(|i| (value(i) - sb_f64(self.z(i))).abs())
            .reduce(|| 0.0, f64::max);
        Fig3Point {
            method: method.to_owned(),
            f: self.f,
            segments: self.k,
            max_error,
            bits: -max_error.log2(),
        }
    }
}

/// Fig. 3 for input precisions `fs` (each 8..=23), from the CPU twins.
pub fn fig3(fs: impl IntoIterator<Item = u32>) -> Result<Vec<Fig3Point>, FitError> {
    let mut points = Vec::new();
    for f in fs {
        let t = Fig3Tables::new(f)?;
        for method in FIG3_METHODS {
            points.push(t.point(method, |i| t.eval(method, i) as f64));
        }
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_two_beats_order_one_and_accuracy_grows_with_f() {
        let p = fig3([8, 12]).unwrap();
        let bits = |m: &str, f: u32| p.iter().find(|x| x.method == m && x.f == f).unwrap().bits;
        assert!(bits("tex2", 12) > bits("tex1", 12));
        assert!(
            bits("tex1", 12) > bits("tex1", 8) + 6.0,
            "order 1 gains 2 bits per doubling of k"
        );
        assert!(fig3([7]).is_err());
    }
}

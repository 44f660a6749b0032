//! Exhaustive certificates: a method's s_b or d_b at every input code of a format, compared
//! with the exact value.
//!
//! An LNS sum is max(x, y) + s_b(z) (or d_b) with z = −|x − y|, and the final addition of codes
//! is exact, so the error of every add (sub) in the format is the error of s_b (d_b) at one z:
//! certifying the function over all z certifies the operation over all pairs of operands.

use crate::arith::{db_f64, sb_f64, AddSub};
use crate::format::Format;
use rayon::prelude::*;
use serde::Serialize;

/// The function certified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Which {
    /// s_b(z) = log2(1 + 2^z): sums of operands of equal signs.
    Sb,
    /// d_b(z) = log2|1 − 2^z|: sums of operands of opposite signs.
    Db,
}

impl Which {
    /// Every input code worth checking: from one below the essential zero up to 0 (s_b) or −1
    /// (d_b; d_b(0) is the exact x − x = 0 case, handled before any method runs).
    ///
    /// No add meets a z below `min_code − max_code` (the difference of the smallest and the
    /// largest finite code). In formats with few integer bits (i4f20, i3f20, i2f10) that edge
    /// comes before s_b drops below half an ulp, so the essential zero is clamped to it and
    /// "one below" is an input no add can produce, where every method returns 0 by design
    /// although s_b is not 0 there: the check starts at the edge instead.
    pub fn inputs(self, format: Format) -> std::ops::RangeInclusive<i64> {
        let reachable = format.min_code() - format.max_code();
        let lo = (format.essential_zero_code() - 1).max(reachable);
        match self {
            Which::Sb => lo..=0,
            Which::Db => lo..=-1,
        }
    }

    /// The exact value at code `z`, in codes (not rounded).
    pub fn exact(self, format: Format, z: i64) -> f64 {
        let x = z as f64 * format.ulp();
        let v = match self {
            Which::Sb => sb_f64(x),
            Which::Db => db_f64(x),
        };
        v / format.ulp()
    }

    /// A method's rounded code at `z`.
    pub fn eval(self, m: &impl AddSub, z: i64) -> i64 {
        match self {
            Which::Sb => m.sb(z),
            Which::Db => m.db(z),
        }
    }
}

/// What certifying one method's s_b or d_b over every input code of a format found
/// ([`certify`], [`Part::certificate`]): the largest error, where it occurs, and how many results
/// are correctly rounded. Serialises to the JSON the reports print.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Certificate {
    /// The format's name (`lns16`, `i6f13`, ...).
    pub format: String,
    /// The function certified.
    pub func: Which,
    /// The method's name as the caller gave it (a [`Method`](crate::Method)'s own: `horner3`,
    /// `texlut`, ...).
    pub method: String,
    /// Where the method ran: `cpu`, or the GPU's name and architecture.
    pub device: String,
    /// Input codes checked: every one the format has.
    pub inputs: u64,
    /// max |result − exact| in ulps of F.
    pub max_error_ulps: f64,
    /// An input where it occurs.
    pub worst_input: i64,
    /// Every result is one of the two codes around the exact value (error < 1 ulp).
    pub faithful: bool,
    /// Results equal to the exact value rounded to nearest.
    pub correctly_rounded: u64,
    /// `correctly_rounded` / `inputs`, in [0, 1].
    pub share_correctly_rounded: f64,
    /// Inputs whose exact value lies within 1e-7 ulp of a rounding tie, where the f64
    /// reference itself cannot decide the correct rounding (counted as correctly rounded).
    pub near_ties: u64,
}

/// The tally of a certificate over part of a function's inputs ([`certify_part`]). Parts of
/// consecutive input ranges merged in input order ([`Part::merge`]) give the certificate of
/// their union exactly as one pass over it does: counts add, the worst input is the lowest
/// one with the largest error. So the inputs can be split across processes (MPI ranks: each
/// sends [`Part::to_words`]) and the certificate equals one process's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Part {
    max_err: f64,
    worst: i64,
    correct: u64,
    near_ties: u64,
    n: u64,
}

type Tally = Part;

impl Part {
    /// The part as 5 words, for sending between processes.
    pub fn to_words(self) -> [u64; 5] {
        [
            self.max_err.to_bits(),
            self.worst as u64,
            self.correct,
            self.near_ties,
            self.n,
        ]
    }

    /// The part [`Part::to_words`] wrote.
    pub fn from_words(w: [u64; 5]) -> Part {
        Part {
            max_err: f64::from_bits(w[0]),
            worst: w[1] as i64,
            correct: w[2],
            near_ties: w[3],
            n: w[4],
        }
    }

    /// Inputs tallied.
    pub fn inputs(self) -> u64 {
        self.n
    }

    /// This part followed by `later`, the part of the inputs right after this one's.
    pub fn merge(self, later: Part) -> Part {
        Tally::merge_tallies(self, later)
    }

    /// The certificate of `func` by `method` over the inputs tallied, made on `device`.
    pub fn certificate(
        self,
        format: Format,
        func: Which,
        method: &str,
        device: &str,
    ) -> Certificate {
        certificate(format, func, method, device, self)
    }
}

impl Tally {
    fn add(mut self, z: i64, got: i64, exact: f64) -> Tally {
        let err = (got as f64 - exact).abs();
        if err > self.max_err {
            self.max_err = err;
            self.worst = z;
        }
        let tie = (exact - exact.floor() - 0.5).abs() < 1e-7;
        self.near_ties += tie as u64;
        self.correct += (tie && err < 1.0 || got == exact.round() as i64) as u64;
        self.n += 1;
        self
    }

    fn merge_tallies(self, o: Tally) -> Tally {
        let (max_err, worst) = if o.max_err > self.max_err {
            (o.max_err, o.worst)
        } else {
            (self.max_err, self.worst)
        };
        Tally {
            max_err,
            worst,
            correct: self.correct + o.correct,
            near_ties: self.near_ties + o.near_ties,
            n: self.n + o.n,
        }
    }
}

fn certificate(format: Format, func: Which, method: &str, device: &str, t: Tally) -> Certificate {
    Certificate {
        format: format.to_string(),
        func,
        method: method.to_owned(),
        device: device.to_owned(),
        inputs: t.n,
        max_error_ulps: t.max_err,
        worst_input: t.worst,
        faithful: t.max_err < 1.0,
        correctly_rounded: t.correct,
        share_correctly_rounded: t.correct as f64 / t.n.max(1) as f64,
        near_ties: t.near_ties,
    }
}

/// Certifies `m` on the CPU over every input, in parallel, through [`AddSub::eval_codes`] (so
/// a vectorised method is certified in the code its adds run); `progress` is told how many
/// inputs each finished chunk covered.
pub fn certify(
    m: &impl AddSub,
    func: Which,
    method: &str,
    progress: &(dyn Fn(u64) + Sync),
) -> Certificate {
    let format = m.format();
    certify_part(m, func, func.inputs(format), progress).certificate(format, func, method, "cpu")
}

/// [`certify`] over the inputs `inputs` alone (a sub-range of `func.inputs(format)`, possibly
/// empty): the part to merge with the others' ([`Part`]).
pub fn certify_part(
    m: &impl AddSub,
    func: Which,
    inputs: std::ops::RangeInclusive<i64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Part {
    let format = m.format();
    if inputs.is_empty() {
        return Part::default();
    }
    let chunk = 1 << 16;
    let starts: Vec<i64> = inputs.clone().step_by(chunk).collect();
    let end = *inputs.end();
    let tally = starts
        .into_par_iter()
        .map(|start| {
            let stop = (start + chunk as i64 - 1).min(end);
            // Through the method's batch evaluator: its vector path where it has one.
            let zs: Vec<i64> = (start..=stop).collect();
            let mut got = vec![0; zs.len()];
            m.eval_codes(func == Which::Db, &zs, &mut got);
            let t = zs.iter().zip(&got).fold(Tally::default(), |t, (&z, &got)| {
                t.add(z, got, func.exact(format, z))
            });
            progress(t.n);
            t
        })
        .reduce(Tally::default, Tally::merge_tallies);
    tally
}

/// Certifies results computed elsewhere (e.g. on a GPU): `results[i]` is the method's code at
/// input `func.inputs(format).start() + i`.
pub fn certify_results(
    format: Format,
    func: Which,
    method: &str,
    device: &str,
    results: &[i64],
) -> Certificate {
    part_of_results(format, func, *func.inputs(format).start(), results)
        .certificate(format, func, method, device)
}

/// The [`Part`] of results computed elsewhere: `results[i]` is the method's code at input
/// `start + i`.
pub fn part_of_results(format: Format, func: Which, start: i64, results: &[i64]) -> Part {
    results
        .par_iter()
        .enumerate()
        .fold(Tally::default, |t, (i, &got)| {
            let z = start + i as i64;
            t.add(z, got, func.exact(format, z))
        })
        .reduce(Tally::default, Tally::merge_tallies)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::Accurate;
    use crate::tables::{Reader, Tables};

    #[test]
    fn the_f64_reference_is_correctly_rounded_on_lns16() {
        for func in [Which::Sb, Which::Db] {
            let c = certify(&Accurate(Format::LNS16), func, "accurate", &|_| {});
            assert!(c.faithful && c.max_error_ulps <= 0.5 + 1e-9, "{c:?}");
            assert_eq!(c.correctly_rounded, c.inputs, "{c:?}");
            assert_eq!(c.inputs, func.inputs(Format::LNS16).count() as u64);
        }
    }

    #[test]
    fn formats_whose_range_ends_before_the_essential_zero_certify_from_the_edge() {
        // i4f20, i3f20 and i2f10 were all "not faithful", the f64 reference included, at
        // one input below the most negative z an add can produce. i3f10 and i2f10 have the same
        // clamped essential zero with few inputs.
        for format in ["i3f10", "i2f10", "i2f6"] {
            let format: Format = format.parse().unwrap();
            let edge = format.min_code() - format.max_code();
            assert_eq!(format.essential_zero_code(), edge, "{format}: clamped");
            for func in [Which::Sb, Which::Db] {
                assert_eq!(*func.inputs(format).start(), edge, "{format}");
                let c = certify(&Accurate(format), func, "accurate", &|_| {});
                assert_eq!(c.correctly_rounded, c.inputs, "{format} {c:?}");
                assert!(c.faithful, "{c:?}");
                // The edge itself is computed, not cut to 0: s_b there is several ulps.
                if func == Which::Sb {
                    assert!(func.exact(format, edge) > 1.0 && Accurate(format).sb(edge) > 0);
                }
            }
        }
        // Where the essential zero is inside the range, one code below it is still checked.
        let lns16 = Format::LNS16;
        assert!(lns16.essential_zero_code() > lns16.min_code() - lns16.max_code());
        assert_eq!(
            *Which::Sb.inputs(lns16).start(),
            lns16.essential_zero_code() - 1
        );
    }

    #[test]
    fn a_coarse_table_is_caught() {
        let t = Tables::build(Format::LNS16, Reader::Horner(1), 9, 9, 2).unwrap();
        let c = certify(&t, Which::Db, "horner1", &|_| {});
        assert!(!c.faithful && c.max_error_ulps > 2.0, "{c:?}");
        assert!(c.share_correctly_rounded < 1.0);
    }

    #[test]
    fn parts_merged_in_order_certify_as_one_pass() {
        // A coarse table: errors > 1 ulp at many inputs, ties in the worst error included.
        let t = Tables::build(Format::LNS16, Reader::Horner(1), 9, 9, 2).unwrap();
        for func in [Which::Sb, Which::Db] {
            let whole = certify(&t, func, "horner1", &|_| {});
            let inputs = func.inputs(Format::LNS16);
            let n = inputs.clone().count() as u64;
            for parts in [1, 2, 3, 7] {
                let merged = (0..parts)
                    .map(|r| {
                        let s = sigpu_runtime::ranks::share(n, r, parts);
                        let lo = inputs.start() + s.start as i64;
                        let part = certify_part(
                            &t,
                            func,
                            lo..=lo + s.end as i64 - s.start as i64 - 1,
                            &|_| {},
                        );
                        Part::from_words(part.to_words())
                    })
                    .fold(Part::default(), Part::merge);
                assert_eq!(
                    merged.certificate(Format::LNS16, func, "horner1", "cpu"),
                    whole
                );
            }
        }
        assert_eq!(
            certify_part(&t, Which::Sb, std::ops::RangeInclusive::new(1, 0), &|_| {}),
            Part::default()
        );
    }

    #[test]
    fn results_from_elsewhere_certify_alike() {
        let t = Tables::build(Format::LNS16, Reader::Horner(2), 6, 6, 6).unwrap();
        let results: Vec<i64> = Which::Sb.inputs(Format::LNS16).map(|z| t.sb(z)).collect();
        let a = certify(&t, Which::Sb, "h2", &|_| {});
        let b = certify_results(Format::LNS16, Which::Sb, "h2", "cpu", &results);
        assert_eq!(a, b);
    }
}

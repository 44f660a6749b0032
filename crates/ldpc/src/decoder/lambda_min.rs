//! λ-min offset min-sum with λ = 3 ([`super::Algorithm::LambdaMinSum`]) in 8-bit arithmetic,
//! for the lane loops of the 8-bit CPU decoders ([`super::Fixed8Decoder`] and the
//! quasi-cyclic NR decoder's portable kernel, which the AVX-512 path runs for this rule too):
//! the three smallest |v2c| per check and the edges of the first two, then the sum-product's
//! pairwise rule on them through one table.
//!
//! The arithmetic, exactly (all `u8`, magnitudes ≤ 127, `⊖` subtracts down to 0):
//! - t[d] = round(scale · ln(1 + e^(−d/scale))) for d in 0..64 ([`box_plus_table`]);
//! - a ⊞ b for a ≤ b: (a + t[min(a + b, 63)]) ⊖ t[min(b − a, 63)] — never above a, as
//!   a + b ≥ b − a and t does not increase;
//! - with m1 ≤ m2 ≤ m3 (127 where a check has fewer edges; the first edge met wins ties):
//!   the edge of m1 gets (m2 ⊞ m3) ⊖ β, the edge of m2 gets (m1 ⊞ m3) ⊖ β, every other edge
//!   ((m1 ⊞ m2) ⊞ m3) ⊖ β. (The full λ-min rule gives the edge of m3 m1 ⊞ m2; giving it the
//!   others' value needs one index fewer.)

// Lane loops index their arrays by lane, as the other 8-bit lane loops do (they vectorise).
#![allow(clippy::needless_range_loop)]

/// The λ-min rule's table: entry d is round(scale · ln(1 + e^(−d/scale))), the sum-product's
/// correction at a distance of d steps.
pub fn box_plus_table(scale: f32) -> [u8; 64] {
    let mut table = [0u8; 64];
    for (d, t) in table.iter_mut().enumerate() {
        let x = d as f64 / scale as f64;
        *t = (scale as f64 * (-x).exp().ln_1p())
            .round()
            .clamp(0.0, 127.0) as u8;
    }
    table
}

/// The table as its last entry and its drops: t[min(x, 63)] = t[63] + Σ drop over the
/// (d, drop) with x ≤ d — compares and adds that vectorise across lanes, where a lookup per
/// lane would not (AVX-512 BW has no byte permute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Drops {
    last: u8,
    drops: [(u8, u8); 63],
    count: usize,
}

impl Drops {
    /// The drops of `t` (non-increasing).
    pub fn new(t: &[u8; 64]) -> Drops {
        let mut d = Drops {
            last: t[63],
            drops: [(0, 0); 63],
            count: 0,
        };
        for i in 0..63 {
            let drop = t[i].wrapping_sub(t[i + 1]);
            if drop != 0 {
                d.drops[d.count] = (i as u8, drop);
                d.count += 1;
            }
        }
        d
    }

    /// t[63].
    pub(super) fn last(&self) -> u8 {
        self.last
    }

    /// The (d, drop) steps: t[min(x, 63)] = t[63] + the drops with x ≤ d.
    pub(super) fn steps(&self) -> &[(u8, u8)] {
        &self.drops[..self.count]
    }

    /// t[min(x, 63)] in every lane.
    #[inline(always)]
    fn lookup<const L: usize>(&self, x: &[u8; L]) -> [u8; L] {
        let mut out = [self.last; L];
        for &(d, drop) in &self.drops[..self.count] {
            for w in 0..L {
                out[w] += if x[w] <= d { drop } else { 0 };
            }
        }
        out
    }

    /// a ⊞ b in every lane, a ≤ b ([`box_plus`]).
    #[inline(always)]
    fn box_plus<const L: usize>(&self, a: &[u8; L], b: &[u8; L]) -> [u8; L] {
        let mut sum = [0u8; L];
        let mut gap = [0u8; L];
        for w in 0..L {
            sum[w] = a[w].saturating_add(b[w]);
            gap[w] = b[w].wrapping_sub(a[w]);
        }
        let (ts, tg) = (self.lookup(&sum), self.lookup(&gap));
        let mut out = [0u8; L];
        for w in 0..L {
            out[w] = (a[w] + ts[w]).saturating_sub(tg[w]);
        }
        out
    }
}

/// a ⊞ b in steps for a ≤ b (see the module documentation): the definition the lane
/// arithmetic ([`Drops::box_plus`]) is tested against.
#[cfg(test)]
fn box_plus(t: &[u8; 64], a: u8, b: u8) -> u8 {
    let sum = a.saturating_add(b).min(63);
    let gap = b.wrapping_sub(a).min(63);
    (a + t[sum as usize]).saturating_sub(t[gap as usize])
}

/// One check's three smallest magnitudes in `L` lanes and the edges of the first two.
pub(super) struct Minima3<const L: usize> {
    m1: [u8; L],
    m2: [u8; L],
    m3: [u8; L],
    at1: [u8; L],
    at2: [u8; L],
}

impl<const L: usize> Minima3<L> {
    /// No edge seen yet.
    #[inline(always)]
    pub fn new() -> Self {
        Minima3 {
            m1: [127; L],
            m2: [127; L],
            m3: [127; L],
            at1: [u8::MAX; L],
            at2: [u8::MAX; L],
        }
    }

    /// Edge `j` of the check, with |v2c| = `a[w]` in lane w.
    #[inline(always)]
    pub fn push(&mut self, j: u8, a: &[u8; L]) {
        for w in 0..L {
            let (below1, below2) = (a[w] < self.m1[w], a[w] < self.m2[w]);
            self.m3[w] = if below2 {
                self.m2[w]
            } else {
                self.m3[w].min(a[w])
            };
            self.m2[w] = if below1 {
                self.m1[w]
            } else {
                self.m2[w].min(a[w])
            };
            self.m1[w] = self.m1[w].min(a[w]);
            self.at2[w] = if below1 {
                self.at1[w]
            } else if below2 {
                j
            } else {
                self.at2[w]
            };
            self.at1[w] = if below1 { j } else { self.at1[w] };
        }
    }

    /// The corrected magnitudes: `(first, second, others, at1, at2)`: what the edge `at1` of
    /// the smallest gets, what the edge `at2` of the second gets, and what every other edge gets.
    #[inline(always)]
    pub fn finish(&self, beta: u8, t: &Drops) -> Corrected<L> {
        let (m1, m2, m3) = (&self.m1, &self.m2, &self.m3);
        let mut c = Corrected {
            first: t.box_plus(m2, m3),
            second: t.box_plus(m1, m3),
            others: t.box_plus(&t.box_plus(m1, m2), m3),
            at1: self.at1,
            at2: self.at2,
        };
        for w in 0..L {
            c.first[w] = c.first[w].saturating_sub(beta);
            c.second[w] = c.second[w].saturating_sub(beta);
            c.others[w] = c.others[w].saturating_sub(beta);
        }
        c
    }
}

/// A check's corrected magnitudes ([`Minima3::finish`]).
pub(super) struct Corrected<const L: usize> {
    first: [u8; L],
    second: [u8; L],
    others: [u8; L],
    at1: [u8; L],
    at2: [u8; L],
}

impl<const L: usize> Corrected<L> {
    /// Edge `j`'s magnitude in every lane.
    #[inline(always)]
    pub fn magnitude(&self, j: u8) -> [u8; L] {
        let mut out = [0u8; L];
        for w in 0..L {
            out[w] = if self.at1[w] == j {
                self.first[w]
            } else if self.at2[w] == j {
                self.second[w]
            } else {
                self.others[w]
            };
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_and_the_pairwise_rule_at_scale_8() {
        // round(8 · ln(1 + e^(−d/8))): 8 · ln 2 = 5.55 at d = 0.
        let t = box_plus_table(8.0);
        assert_eq!(&t[..4], &[6, 5, 5, 4]);
        assert_eq!(t[63], 0);
        assert!(t.windows(2).all(|w| w[0] >= w[1]), "non-increasing: {t:?}");
        // 1.25 ⊞ 2.5 = 1.25 − ln(1 + e^−1.25) + ln(1 + e^−3.75) = 0.99 → 8 steps: 10 + t[30]
        // − t[10] = 10 + 0 − 2.
        assert_eq!(box_plus(&t, 10, 20), 10 + t[30] - t[10]);
        assert_eq!(box_plus(&t, 10, 20), 8);
        // Equal inputs at 0 give 0; a far larger one leaves the smaller.
        assert_eq!(box_plus(&t, 0, 0), 0);
        assert_eq!(box_plus(&t, 40, 127), 40);
    }

    #[test]
    fn the_lane_arithmetic_equals_the_table_definition() {
        // Every a ≤ b ≤ 127 at the scales 8 and 32 (the largest table entries).
        for scale in [8.0, 32.0] {
            let t = box_plus_table(scale);
            let d = Drops::new(&t);
            for a in 0..=127u8 {
                let b: [u8; 128] = std::array::from_fn(|i| (i as u8).max(a));
                let got = d.box_plus(&[a; 128], &b);
                for (i, &g) in got.iter().enumerate() {
                    assert_eq!(g, box_plus(&t, a, b[i]), "scale {scale}: {a} ⊞ {}", b[i]);
                }
            }
        }
    }

    #[test]
    fn the_three_minima_and_what_each_edge_gets() {
        let t = box_plus_table(8.0);
        // One lane, edges with |v2c| 30, 10, 20, 10, 50: m1 = 10 (edge 1, the first met of
        // the tie), m2 = 10 (edge 3), m3 = 20.
        let mut m = Minima3::<1>::new();
        for (j, a) in [30u8, 10, 20, 10, 50].into_iter().enumerate() {
            m.push(j as u8, &[a]);
        }
        let c = m.finish(2, &Drops::new(&t));
        let bp = |a, b| box_plus(&t, a, b);
        assert_eq!(c.magnitude(1), [bp(10, 20) - 2]);
        assert_eq!(c.magnitude(3), [bp(10, 20) - 2]);
        assert_eq!(c.magnitude(0), [bp(bp(10, 10), 20).saturating_sub(2)]);
        assert_eq!(c.magnitude(2), c.magnitude(4));
        // A check of two edges: m3 stays 127 and each edge gets the other's magnitude.
        let mut m = Minima3::<1>::new();
        m.push(0, &[7]);
        m.push(1, &[90]);
        let c = m.finish(0, &Drops::new(&t));
        assert_eq!((c.magnitude(0), c.magnitude(1)), ([90], [7]));
    }
}

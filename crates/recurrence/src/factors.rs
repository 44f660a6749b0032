//! Correction factors: the k-nacci sequences of the seed (slides 12–17).
//!
//! Split a sequence into chunks and run the recurrence `(1 : b1, …, bk)` in each chunk as if
//! the values before it were zero. The true value at position i of a chunk is then the local
//! value plus Σ_j c_j·f_j[i], where c_j is the true value j + 1 places before the chunk (the
//! carries) and f_j is the response of `(0 : b1, …, bk)` to a 1 at that place: a k-nacci
//! sequence. The factors depend only on the recurrence, never on the input, so they are
//! computed once per signature, here, in the recurrence's own element type from the same
//! coefficients the chunks use (mixing f64 factors with f32 chunk coefficients makes the
//! result match neither filter).
//!
//! Domain-specific optimisations (slide 27), all switched off by `optimize = false`:
//! - floats: factors below the smallest normal magnitude are flushed to zero and the tables
//!   are truncated after the last non-zero entry, so decaying filters correct only the first
//!   few hundred elements of a chunk and a chunk's carry-out stops depending on its
//!   predecessor ([`Factors::carry_independent`]);
//! - tables that are all zero are skipped, tables that are all one (prefix sums) add the carry
//!   without a multiplication; the GPU generator also drops zero factors and turns factors of
//!   one into additions one by one.

use crate::elem::Element;

/// What a factor table holds, so a correction can skip it or drop its multiplications.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TableKind {
    Zero,
    Ones,
    General,
}

/// The k factor tables of one recurrence for chunks of up to `chunk` elements.
#[derive(Clone, Debug)]
pub struct Factors<T> {
    chunk: usize,
    optimized: bool,
    /// `tables[j][i]` = f_j[i]: the weight of the carry j + 1 places before the chunk in the
    /// chunk's element i; every table has the same length, at most `chunk`.
    tables: Vec<Vec<T>>,
    kinds: Vec<TableKind>,
}

impl<T: Element> Factors<T> {
    /// The factors of `(1 : feedback…)` for chunks of `chunk` elements.
    pub fn compute(feedback: &[T], chunk: usize, optimize: bool) -> Factors<T> {
        let k = feedback.len();
        let flush = optimize && T::DTYPE.is_float();
        let mut tables: Vec<Vec<T>> = vec![Vec::with_capacity(chunk); k];
        let mut last_nonzero = None;
        // Floats: the recurrence in double-double from the coefficients exactly as T holds them,
        // rounded once (in T it would be off by about ε·max|F|²: 7e3 for butter(8, 0.02)).
        let fb64: Vec<f64> = feedback.iter().map(|v| v.to_f64()).collect();
        for (j, table) in tables.iter_mut().enumerate() {
            // hist[l] = f_j[i-1-l]; before the chunk, f_j is 1 at place j + 1, else 0.
            let mut hist: Vec<T> = (0..k)
                .map(|l| if l == j { T::ONE } else { T::ZERO })
                .collect();
            let mut hist_dd: Vec<crate::dd::Dd> = (0..k)
                .map(|l| crate::dd::Dd::new(if l == j { 1.0 } else { 0.0 }))
                .collect();
            for i in 0..chunk {
                let mut v = T::ZERO;
                if T::DTYPE.is_float() {
                    let mut acc = crate::dd::Dd::ZERO;
                    for (b, h) in fb64.iter().zip(&hist_dd) {
                        acc = acc.add(h.mul_f64(*b));
                    }
                    hist_dd.rotate_right(1);
                    if let Some(h0) = hist_dd.first_mut() {
                        *h0 = acc;
                    }
                    v = T::from_f64(acc.to_f64());
                } else {
                    for (b, h) in feedback.iter().zip(&hist) {
                        v = b.mul(*h).add(v);
                    }
                }
                if flush && v.below_min_normal() {
                    v = T::ZERO;
                }
                if v != T::ZERO && last_nonzero.is_none_or(|l| i > l) {
                    last_nonzero = Some(i);
                }
                table.push(v);
                hist.rotate_right(1);
                if let Some(h0) = hist.first_mut() {
                    *h0 = v;
                }
            }
        }
        if optimize {
            let len = last_nonzero.map_or(0, |l| l + 1);
            for t in &mut tables {
                t.truncate(len);
            }
        }
        let kinds = tables
            .iter()
            .map(|t| match () {
                _ if !optimize => TableKind::General,
                _ if t.iter().all(|&v| v == T::ZERO) => TableKind::Zero,
                _ if t.iter().all(|&v| v == T::ONE) => TableKind::Ones,
                _ => TableKind::General,
            })
            .collect();
        Factors {
            chunk,
            optimized: optimize,
            tables,
            kinds,
        }
    }

    pub fn order(&self) -> usize {
        self.tables.len()
    }

    /// Drops the tables' tail where everything left adds up to at most `tol` (Σ over tables
    /// and positions of |f_j[i]|): a carry c then changes the dropped outputs by at most
    /// tol·|c| in all. With `tol` = ε·2⁻⁸ of the element type that is far below one rounding
    /// of the output (carries are output values), as in the section engine's tables; decaying
    /// f64 filters, whose tables reach DBL_MIN only after thousands of places, then correct a
    /// few hundred elements per chunk and their chunks' carry-outs stop depending on the
    /// carry-ins ([`Factors::carry_independent`]). Only with the optimisations on.
    pub fn truncate_negligible(&mut self, tol: f64) {
        if !self.optimized || !T::DTYPE.is_float() {
            return;
        }
        let mut tail = 0.0f64;
        let mut len = self.len();
        while len > 0 {
            let here: f64 = self.tables.iter().map(|t| t[len - 1].to_f64().abs()).sum();
            if tail + here > tol {
                break;
            }
            tail += here;
            len -= 1;
        }
        for (t, kind) in self.tables.iter_mut().zip(&mut self.kinds) {
            t.truncate(len);
            if t.iter().all(|&v| v == T::ZERO) {
                *kind = TableKind::Zero;
            }
        }
    }

    /// The chunk length the tables were computed for.
    pub fn chunk(&self) -> usize {
        self.chunk
    }

    /// Table length: the chunk length, or less where the optimisations truncated.
    pub fn len(&self) -> usize {
        self.tables.first().map_or(0, Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn optimized(&self) -> bool {
        self.optimized
    }

    pub fn table(&self, j: usize) -> &[T] {
        &self.tables[j]
    }

    pub fn kind(&self, j: usize) -> TableKind {
        self.kinds[j]
    }

    /// f_j at chunk position `i`, extended before the chunk (where the carries themselves
    /// stand: f_j[-1-j] = 1) and past the table (0).
    pub fn at(&self, j: usize, i: isize) -> T {
        if i < 0 {
            return if i == -1 - j as isize {
                T::ONE
            } else {
                T::ZERO
            };
        }
        self.tables[j].get(i as usize).copied().unwrap_or(T::ZERO)
    }

    /// True when some factor is non-zero: a carry-in changes the chunk at all.
    pub fn table_nonzero(&self) -> bool {
        self.tables.iter().any(|t| t.iter().any(|&v| v != T::ZERO))
    }

    /// The k×k matrix, row-major, mapping the k carries before a segment of `m` elements to
    /// the contribution they make to its last k values: `M[r][j] = f_j[m-1-r]`, where row r
    /// is the value r places before the segment's end.
    pub fn transfer(&self, m: usize) -> Vec<T> {
        let k = self.order();
        let mut out = Vec::with_capacity(k * k);
        for r in 0..k {
            for j in 0..k {
                out.push(self.at(j, m as isize - 1 - r as isize));
            }
        }
        out
    }

    /// True when a segment of `m` elements ends with values that do not depend on what came
    /// before it: every factor reaching its last k places was truncated to zero. Such a chunk
    /// can post its carry-out before it knows its carry-in.
    pub fn carry_independent(&self, m: usize) -> bool {
        self.transfer(m).iter().all(|&v| v == T::ZERO)
    }
}

/// `a · b` for k×k row-major matrices in the element type.
pub fn mat_mul<T: Element>(a: &[T], b: &[T], k: usize) -> Vec<T> {
    let mut out = vec![T::ZERO; k * k];
    for r in 0..k {
        for c in 0..k {
            let mut acc = T::ZERO;
            for i in 0..k {
                acc = a[r * k + i].mul(b[i * k + c]).add(acc);
            }
            out[r * k + c] = acc;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_order_factors_are_powers() {
        let f = Factors::<f64>::compute(&[0.5], 10, false);
        assert_eq!(f.len(), 10);
        for i in 0..10 {
            assert_eq!(f.table(0)[i], 0.5f64.powi(i as i32 + 1));
        }
        assert_eq!(f.kind(0), TableKind::General);
    }

    #[test]
    fn second_order_factors_match_slide_15() {
        // (1 : d, e): factors for v[m-1] are d, d²+e, d³+2de, …; for v[m-2]: e, de, d²e+e², …
        let (d, e) = (3i64, 5i64);
        let f = Factors::<i64>::compute(&[d, e], 4, true);
        assert_eq!(
            f.table(0),
            [
                d,
                d * d + e,
                d * d * d + 2 * d * e,
                d.pow(4) + 3 * d * d * e + e * e
            ]
        );
        assert_eq!(
            f.table(1),
            [e, d * e, d * d * e + e * e, d.pow(3) * e + 2 * d * e * e]
        );
    }

    #[test]
    fn truncation_at_flt_min_matches_the_plr_tool() {
        // The reference note: a = 0.71901 leaves 264 entries, ln(FLT_MIN)/ln(a).
        let f = Factors::<f32>::compute(&[0.71901], 9216, true);
        assert_eq!(f.len(), 264);
        assert!(f.table(0).iter().all(|v| v.abs() >= f32::MIN_POSITIVE));
        let off = Factors::<f32>::compute(&[0.71901], 9216, false);
        assert_eq!(off.len(), 9216);
        // A 2nd-order file with |p| ≈ 0.746 had 300-302.
        let f = Factors::<f32>::compute(&[1.41332, -0.556927], 9216, true);
        assert!((295..=305).contains(&f.len()), "{}", f.len());
        // f64 truncates at DBL_MIN instead.
        let f = Factors::<f64>::compute(&[0.8], 9216, true);
        assert_eq!(f.len(), (f64::MIN_POSITIVE.ln() / 0.8f64.ln()) as usize);
        assert!(f.carry_independent(9216) && !f.carry_independent(f.len()));
    }

    #[test]
    fn negligible_tails_are_dropped_for_the_cpu() {
        // butter(2, 0.1): |p| = 0.80; DBL_MIN is reached only after ~3,190 places.
        let fb = [1.5610180758007182, -0.6413515380575631];
        let full = Factors::<f64>::compute(&fb, 2072, true);
        assert_eq!(full.len(), 2072);
        assert!(!full.carry_independent(2072));
        let tol = f64::EPSILON / 512.0;
        let mut cut = full.clone();
        cut.truncate_negligible(tol);
        assert!((150..300).contains(&cut.len()), "{}", cut.len());
        assert!(cut.carry_independent(2072));
        let tail: f64 = (0..2)
            .map(|j| {
                full.table(j)[cut.len()..]
                    .iter()
                    .map(|v| v.abs())
                    .sum::<f64>()
            })
            .sum();
        assert!(tail <= tol, "{tail:e}");
        assert_eq!(cut.table(0), &full.table(0)[..cut.len()]);
        // A slow pole keeps its whole table; without the optimisations nothing is cut.
        let mut slow = Factors::<f64>::compute(&[0.9999], 2072, true);
        slow.truncate_negligible(tol);
        assert_eq!(slow.len(), 2072);
        let mut off = Factors::<f64>::compute(&fb, 2072, false);
        off.truncate_negligible(tol);
        assert_eq!(off.len(), 2072);
    }

    #[test]
    fn kinds_and_integer_specialisation() {
        let prefix = Factors::<i32>::compute(&[1], 100, true);
        assert_eq!(prefix.kind(0), TableKind::Ones);
        assert!(!prefix.carry_independent(100));
        let tuple = Factors::<i32>::compute(&[0, 1], 6, true);
        assert_eq!(tuple.table(0), [0, 1, 0, 1, 0, 1]);
        assert_eq!(tuple.table(1), [1, 0, 1, 0, 1, 0]);
        let fir = Factors::<f32>::compute(&[0.0], 100, true);
        assert_eq!((fir.len(), fir.kind(0)), (0, TableKind::Zero));
        assert!(fir.carry_independent(1));
        let off = Factors::<i32>::compute(&[1], 100, false);
        assert_eq!(off.kind(0), TableKind::General);
    }

    #[test]
    fn transfer_of_short_segments_shifts_the_carries() {
        let f = Factors::<i64>::compute(&[2, 3, 4], 8, true);
        // A segment of 0 elements: its "last values" are the carries themselves.
        assert_eq!(f.transfer(0), [1, 0, 0, 0, 1, 0, 0, 0, 1]);
        // 1 element: last value is 2c0+3c1+4c2, then c0, c1.
        assert_eq!(f.transfer(1), [2, 3, 4, 1, 0, 0, 0, 1, 0]);
        // Composition: transfer(a + b) = transfer(b)·transfer(a).
        assert_eq!(mat_mul(&f.transfer(3), &f.transfer(2), 3), f.transfer(5));
    }
}

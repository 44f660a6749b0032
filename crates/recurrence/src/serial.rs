//! The serial recurrence: the fallback for short inputs, and the reference every parallel
//! path is tested against (in f64 for float filters, in the element type for integer ones,
//! where wrapping arithmetic is exact).

use crate::elem::{madd, Element};

/// y_n = Σ_j ff[j]·x[n-j] + Σ_l fb[l]·y[n-1-l] (+ zi[n] for n < zi.len()), with zero history:
/// SciPy's `lfilter` with initial state `zi`, a[0] = 1.
pub fn filter_serial<T: Element>(ff: &[T], fb: &[T], x: &[T], zi: Option<&[T]>, y: &mut [T]) {
    assert_eq!(x.len(), y.len(), "x and y differ in length");
    for n in 0..x.len() {
        let mut v = T::ZERO;
        for (j, &a) in ff.iter().enumerate().take(n + 1) {
            v = madd::<T, false>(a, x[n - j], v);
        }
        if let Some(&z) = zi.and_then(|z| z.get(n)) {
            v = v.add(z);
        }
        for (l, &b) in fb.iter().enumerate().take(n) {
            v = madd::<T, false>(b, y[n - 1 - l], v);
        }
        y[n] = v;
    }
}

/// The filter state after `x` (SciPy's `zf`), from the last inputs and outputs:
/// zf[i] = zi[L+i] (while L+i < N) + Σ_{m>i} ff[m]·x[L+i-m] + fb[m-1]·y[L+i-m].
pub fn final_state<T: Element>(
    ff: &[T],
    fb: &[T],
    state_len: usize,
    x: &[T],
    y: &[T],
    zi: Option<&[T]>,
) -> Vec<T> {
    let len = x.len();
    (0..state_len)
        .map(|i| {
            let mut v = zi.and_then(|z| z.get(len + i)).copied().unwrap_or(T::ZERO);
            for m in (i + 1)..=state_len {
                let Some(at) = (len + i).checked_sub(m) else {
                    continue;
                };
                if let Some(&a) = ff.get(m) {
                    v = madd::<T, false>(a, x[at], v);
                }
                if let Some(&b) = fb.get(m - 1) {
                    v = madd::<T, false>(b, y[at], v);
                }
            }
            v
        })
        .collect()
}

/// The serial filter in f64, whatever the element type: the accuracy reference for floats.
pub fn reference_f64(ff: &[f64], fb: &[f64], x: &[f64], zi: Option<&[f64]>) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    filter_serial(ff, fb, x, zi, &mut y);
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_sum_and_low_pass() {
        let mut y = vec![0; 6];
        filter_serial(&[1], &[1], &[3, -9, 5, 3, 2, -1], None, &mut y);
        assert_eq!(y, [3, -6, -1, 2, 4, 3]);
        let mut y = vec![0.0; 3];
        filter_serial(&[0.2], &[0.8], &[1.0, 0.0, 0.0], None, &mut y);
        assert_eq!(y, [0.2, 0.2 * 0.8, 0.2 * 0.8 * 0.8]);
    }

    #[test]
    fn state_carries_a_stream_across_pieces() {
        let (ff, fb) = ([0.5, -0.25, 0.125], [0.9, -0.2]);
        let x: Vec<f64> = (0..20).map(|i| ((i * 7) % 5) as f64 - 2.0).collect();
        let whole = reference_f64(&ff, &fb, &x, None);
        for cut in [0, 1, 2, 3, 10, 20] {
            let first = reference_f64(&ff, &fb, &x[..cut], None);
            let zf = final_state(&ff, &fb, 3, &x[..cut], &first, None);
            let second = reference_f64(&ff, &fb, &x[cut..], Some(&zf));
            let joined: Vec<f64> = first.into_iter().chain(second).collect();
            for (a, b) in joined.iter().zip(&whole) {
                assert!((a - b).abs() < 1e-12, "cut {cut}: {a} vs {b}");
            }
        }
        // Three pieces, the middle one shorter than the state.
        let p1 = reference_f64(&ff, &fb, &x[..5], None);
        let z1 = final_state(&ff, &fb, 3, &x[..5], &p1, None);
        let p2 = reference_f64(&ff, &fb, &x[5..6], Some(&z1));
        let z2 = final_state(&ff, &fb, 3, &x[5..6], &p2, Some(&z1));
        let p3 = reference_f64(&ff, &fb, &x[6..], Some(&z2));
        let joined: Vec<f64> = p1.into_iter().chain(p2).chain(p3).collect();
        for (a, b) in joined.iter().zip(&whole) {
            assert!((a - b).abs() < 1e-12);
        }
    }
}

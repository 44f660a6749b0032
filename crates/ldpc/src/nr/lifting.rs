//! Lifting sizes (TS 38.212 Table 5.3.2-1): Z = a · 2^j ≤ 384 with a ∈ {2, 3, 5, 7, 9, 11,
//! 13, 15}; the set index iLS is the position of a in that list. 51 sizes from 2 to 384.

/// The base a of each set index (Table 5.3.2-1).
pub const SET_BASES: [usize; 8] = [2, 3, 5, 7, 9, 11, 13, 15];

/// The largest lifting size.
pub const Z_MAX: usize = 384;

/// Every lifting size, ascending, with its set index: 51 pairs (Z, iLS).
pub fn lifting_sizes() -> Vec<(usize, usize)> {
    let mut all: Vec<(usize, usize)> = SET_BASES
        .iter()
        .enumerate()
        .flat_map(|(ils, &a)| {
            (0..)
                .map(move |j| a << j)
                .take_while(|&z| z <= Z_MAX)
                .map(move |z| (z, ils))
        })
        .collect();
    all.sort_unstable();
    all
}

/// The set index of lifting size `z`, or None when `z` is not one of the 51.
pub fn set_index(z: usize) -> Option<usize> {
    if z == 0 {
        return None;
    }
    let odd = z >> z.trailing_zeros();
    // a = 2 is the only even base: powers of two (odd part 1) belong to it.
    let a = if odd == 1 { 2 } else { odd };
    let ils = SET_BASES.iter().position(|&b| b == a)?;
    (z <= Z_MAX && z >= a).then_some(ils)
}

/// The smallest lifting size Z with `kb · Z ≥ k_prime` (§5.2.2), or None above 384.
pub fn smallest_lifting(kb: usize, k_prime: usize) -> Option<usize> {
    lifting_sizes()
        .into_iter()
        .map(|(z, _)| z)
        .find(|&z| kb * z >= k_prime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifty_one_sizes_each_with_its_set() {
        let all = lifting_sizes();
        assert_eq!(all.len(), 51);
        assert_eq!(all.first(), Some(&(2, 0)));
        assert_eq!(all.last(), Some(&(384, 1)));
        // Per set: 8, 8, 7, 6, 6, 6, 5, 5 sizes (Table 5.3.2-1).
        let per_set: Vec<usize> = (0..8)
            .map(|i| all.iter().filter(|p| p.1 == i).count())
            .collect();
        assert_eq!(per_set, [8, 8, 7, 6, 6, 6, 5, 5]);
        for (z, ils) in all {
            assert_eq!(set_index(z), Some(ils), "Z = {z}");
        }
        for z in [0, 1, 17, 385, 768, 1024, 30 * 16] {
            assert_eq!(set_index(z), None, "Z = {z}");
        }
    }

    #[test]
    fn smallest_lifting_covers_k() {
        assert_eq!(smallest_lifting(22, 8448), Some(384));
        assert_eq!(smallest_lifting(22, 8449), None);
        assert_eq!(smallest_lifting(10, 3840), Some(384));
        assert_eq!(smallest_lifting(22, 100), Some(5));
        assert_eq!(smallest_lifting(6, 12), Some(2));
    }
}

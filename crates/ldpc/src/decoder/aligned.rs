//! A zeroed buffer of `i8` or `i16` whose first element sits on a 64-byte boundary, so that the
//! quasi-cyclic decoder's 512-bit scratch stores never straddle two cache lines (a split store
//! costs two line writes, and stores are what bounds that kernel).

use std::ops::{Deref, DerefMut};

/// One cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// The element types the buffer holds: plain integers, valid for every bit pattern.
pub(super) trait Plain: Copy + Default {}
impl Plain for i8 {}
impl Plain for i16 {}

/// `len` elements of `T`, 64-byte aligned, all zero at first.
pub(super) struct Aligned<T: Plain> {
    lines: Vec<Line>,
    len: usize,
    _t: std::marker::PhantomData<T>,
}

impl<T: Plain> Aligned<T> {
    /// `len` zeros.
    pub fn zeros(len: usize) -> Aligned<T> {
        let bytes = len * std::mem::size_of::<T>();
        Aligned {
            lines: vec![Line([0; 64]); bytes.div_ceil(64)],
            len,
            _t: std::marker::PhantomData,
        }
    }
}

impl<T: Plain> Deref for Aligned<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the lines hold at least `len` elements of `T` (an integer type, valid for
        // every bit pattern, alignment ≤ 64) and live as long as `self`.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast(), self.len) }
    }
}

impl<T: Plain> DerefMut for Aligned<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, borrowed mutably through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast(), self.len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_on_a_cache_line_zeroed_and_holds_len_elements() {
        for len in [0, 1, 31, 32, 33, 1000] {
            let mut a = Aligned::<i16>::zeros(len);
            assert_eq!(a.as_ptr() as usize % 64, 0);
            assert_eq!(a.len(), len);
            assert!(a.iter().all(|&x| x == 0));
            a.iter_mut().enumerate().for_each(|(i, x)| *x = i as i16);
            assert!(a.iter().enumerate().all(|(i, &x)| x == i as i16));
            let b = Aligned::<i8>::zeros(len);
            assert_eq!(b.as_ptr() as usize % 64, 0);
            assert_eq!(b.len(), len);
        }
    }
}

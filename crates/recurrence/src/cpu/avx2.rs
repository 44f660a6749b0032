//! The block functions compiled with AVX2 and FMA enabled, and the non-temporal copy of a
//! finished block to the output. Called only when the `CpuArch` the filter was given has
//! AVX2 and FMA ([`super::Simd::Avx2Fma`]).

use super::block::{block, BlockInput};
use crate::elem::Element;

#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn block_fma<T: Element>(
    input: &BlockInput<'_, T>,
    y: &mut [T],
    carry_in: impl FnOnce() -> Vec<T>,
    post: impl FnOnce(&[T]),
) {
    block::<T, true>(input, y, carry_in, post)
}

/// `dst.copy_from_slice(src)` with non-temporal 32-byte stores: the output bypasses the caches
/// and is not read from memory before it is overwritten.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn stream_copy<T: Element>(dst: &mut [T], src: &[T]) {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_stream_si256, _mm_sfence};
    assert_eq!(dst.len(), src.len());
    let size = std::mem::size_of::<T>();
    // Elements before the first 32-byte boundary of dst, then whole 32-byte groups.
    let misaligned = (dst.as_ptr() as usize) % 32;
    let head = if misaligned == 0 {
        0
    } else {
        ((32 - misaligned) / size).min(dst.len())
    };
    dst[..head].copy_from_slice(&src[..head]);
    let per = 32 / size;
    let groups = (dst.len() - head) / per;
    let d = dst[head..].as_mut_ptr() as *mut __m256i;
    let s = src[head..].as_ptr() as *const __m256i;
    for g in 0..groups {
        // SAFETY: g < groups keeps both 32-byte accesses inside the slices; d is 32-byte
        // aligned (element sizes divide 32 and the head was peeled off).
        unsafe { _mm256_stream_si256(d.add(g), _mm256_loadu_si256(s.add(g))) };
    }
    let done = head + groups * per;
    dst[done..].copy_from_slice(&src[done..]);
    // Order the streaming stores before whatever this thread publishes next.
    _mm_sfence();
}

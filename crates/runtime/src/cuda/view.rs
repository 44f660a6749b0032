//! Views of device memory: one type for buffers sigpu owns and for memory another library owns
//! (a PyTorch tensor, a CuPy array, a DLPack capsule), so every kernel wrapper has one launch
//! path.
//!
//! A view is an address, a length and the device it lives on. It never frees anything, and it
//! borrows what it was made from for `'a`, so an owned buffer cannot be dropped (or, for a
//! [`DeviceSliceMut`], read elsewhere) while a view of it is alive. [`Launch::slice`] and
//! [`Launch::slice_mut`](super::Launch::slice_mut) refuse a view of another device with an
//! error: a launch never reads memory of the wrong GPU. The element type is part of the
//! view's type, so a `DeviceSlice<f32>` cannot be passed where a `DeviceSlice<f64>` is wanted.
//!
//! [`Launch::slice`]: super::Launch::slice

use super::gpu::Gpu;
use super::DeviceBuffer;
use cudarc::driver::{DevicePtr, DevicePtrMut};
use std::marker::PhantomData;
use std::ops::Range;

/// `len` elements of `T` in the memory of one GPU, read-only. Copy, like `&[T]`.
pub struct DeviceSlice<'a, T> {
    ptr: u64,
    len: usize,
    ordinal: usize,
    _data: PhantomData<&'a [T]>,
}

/// `len` elements of `T` in the memory of one GPU, writable; exclusive, like `&mut [T]`.
pub struct DeviceSliceMut<'a, T> {
    ptr: u64,
    len: usize,
    ordinal: usize,
    _data: PhantomData<&'a mut [T]>,
}

impl<T> Clone for DeviceSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for DeviceSlice<'_, T> {}

/// The accessors and `Debug` both views share: they are the same address, length and device.
macro_rules! view_accessors {
    ($view:ident) => {
        impl<T> $view<'_, T> {
            /// The number of elements.
            pub fn len(&self) -> usize {
                self.len
            }

            /// Whether the view holds no element.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }

            /// The ordinal of the device whose memory this is.
            pub fn ordinal(&self) -> usize {
                self.ordinal
            }

            /// The device address of the first element.
            pub fn device_ptr(&self) -> u64 {
                self.ptr
            }

            /// The address as a launch argument (it must outlive the launch being assembled).
            pub(crate) fn ptr_ref(&self) -> &u64 {
                &self.ptr
            }
        }

        impl<T> std::fmt::Debug for $view<'_, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let name = stringify!($view);
                write!(
                    f,
                    "{name}(cuda:{} {:#x} × {})",
                    self.ordinal, self.ptr, self.len
                )
            }
        }
    };
}

view_accessors!(DeviceSlice);
view_accessors!(DeviceSliceMut);

/// The address of element `start` of a view at `ptr`, when `start..end` lies within `len`.
fn sub<T>(ptr: u64, len: usize, range: &Range<usize>) -> Option<(u64, usize)> {
    if range.start > range.end || range.end > len {
        return None;
    }
    let offset = (range.start * std::mem::size_of::<T>()) as u64;
    Some((ptr + offset, range.end - range.start))
}

impl<'a, T> DeviceSlice<'a, T> {
    /// A view of memory another library owns (its data pointer and element count).
    ///
    /// # Safety
    /// `ptr` must address `len` initialised values of `T` in memory of `gpu`'s device, usable
    /// in its primary context, and stay allocated and unwritten by others for `'a` (for the
    /// work that uses the view: until the stream it was enqueued on has passed it).
    pub unsafe fn from_raw(ptr: u64, len: usize, gpu: &Gpu) -> Self {
        DeviceSlice {
            ptr,
            len,
            ordinal: gpu.ordinal(),
            _data: PhantomData,
        }
    }

    /// A view of a whole buffer sigpu owns.
    pub fn of(buf: &'a DeviceBuffer<T>) -> Self {
        let stream = buf.stream().clone();
        let (ptr, _record) = buf.device_ptr(&stream);
        DeviceSlice {
            ptr,
            len: buf.len(),
            ordinal: stream.context().ordinal(),
            _data: PhantomData,
        }
    }

    /// Elements `range` of the view; `None` when the range does not lie within it.
    pub fn slice(&self, range: Range<usize>) -> Option<Self> {
        let (ptr, len) = sub::<T>(self.ptr, self.len, &range)?;
        Some(DeviceSlice { ptr, len, ..*self })
    }
}

impl<'a, T> DeviceSliceMut<'a, T> {
    /// A writable view of memory another library owns.
    ///
    /// # Safety
    /// As [`DeviceSlice::from_raw`], and no other view or library may read or write the
    /// memory while work that writes through this view is pending.
    pub unsafe fn from_raw(ptr: u64, len: usize, gpu: &Gpu) -> Self {
        DeviceSliceMut {
            ptr,
            len,
            ordinal: gpu.ordinal(),
            _data: PhantomData,
        }
    }

    /// A writable view of a whole buffer sigpu owns.
    pub fn of(buf: &'a mut DeviceBuffer<T>) -> Self {
        let stream = buf.stream().clone();
        let len = buf.len();
        let (ptr, _record) = buf.device_ptr_mut(&stream);
        DeviceSliceMut {
            ptr,
            len,
            ordinal: stream.context().ordinal(),
            _data: PhantomData,
        }
    }

    /// The same memory, read-only, for as long as `self` is borrowed.
    pub fn as_view(&self) -> DeviceSlice<'_, T> {
        DeviceSlice {
            ptr: self.ptr,
            len: self.len,
            ordinal: self.ordinal,
            _data: PhantomData,
        }
    }

    /// A shorter-lived writable view of the same memory (to pass on without giving it up).
    pub fn reborrow(&mut self) -> DeviceSliceMut<'_, T> {
        let (ptr, len) = (self.ptr, self.len);
        DeviceSliceMut { ptr, len, ..*self }
    }

    /// Elements `range`, writable, for as long as `self` is borrowed; `None` when the range
    /// does not lie within the view.
    pub fn slice_mut(&mut self, range: Range<usize>) -> Option<DeviceSliceMut<'_, T>> {
        let (ptr, len) = sub::<T>(self.ptr, self.len, &range)?;
        Some(DeviceSliceMut { ptr, len, ..*self })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake<'a>(ptr: u64, len: usize) -> DeviceSlice<'a, f32> {
        DeviceSlice {
            ptr,
            len,
            ordinal: 0,
            _data: PhantomData,
        }
    }

    #[test]
    fn slices_stay_within_the_view_and_offset_by_the_element_size() {
        let v = fake(0x1000, 10);
        let s = v.slice(2..5).unwrap();
        assert_eq!((s.device_ptr(), s.len()), (0x1008, 3));
        assert!(v.slice(0..10).is_some());
        assert!(v.slice(5..11).is_none());
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = v.slice(5..4);
        assert!(backwards.is_none());
        assert!(v.slice(10..10).unwrap().is_empty());
    }
}

//! How the channels of a device call lie in memory ([`ChannelLayout`]), checked once against
//! the views before any launch: the element stride between a channel's consecutive samples (2
//! where two channels interleave, as a complex signal's re and im parts do; negative where a
//! channel runs backwards in time) and the stride between channels. The PLR kernels read and
//! write these layouts in place (`kernels/plr.cuh`, "Layout"), so complex data with real
//! coefficients and the time-reversed adjoint of a filter need no copies.

use crate::error::FilterError;
use crate::gpu::KernelLayout;

/// Where the samples of `channels` channels of `n` samples lie in a device view.
///
/// With `|sample_stride|` = g (1, or 2 for interleaved pairs), channels come in groups of g:
/// channel c belongs to group c / g, whose first element is at `(c / g) · channel_stride`, and
/// sits at offset c mod g within it. Sample i of the channel is at
/// `group start + c mod g + g · i` for a positive stride, `+ g · (n − 1 − i)` for a negative one
/// (the channel runs backwards: its first sample has the highest address). zi / zf keep their
/// `state_len()` values per channel; for pairs they interleave too (`[group][state][part]`: a
/// complex state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelLayout {
    /// Elements from one sample of a channel to the next: 1, 2 (two channels interleaved),
    /// −1 or −2 (backwards).
    pub sample_stride: isize,
    /// Elements from one group of channels (one channel, or an interleaved pair) to the next;
    /// at least g · n, so that channels never overlap.
    pub channel_stride: usize,
}

/// What a kernel launch takes from a checked layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LaunchLayout {
    /// The kernel's value layout.
    pub(crate) kernel: KernelLayout,
    /// Channels as the kernel counts them (pairs count once).
    pub(crate) channels: usize,
    /// Values (pairs count once) from one kernel channel to the next.
    pub(crate) channel_stride: usize,
}

impl ChannelLayout {
    /// Channels one after another, `n` samples each: the layout of [`crate::DeviceBatch`].
    pub fn contiguous(n: usize) -> Self {
        ChannelLayout {
            sample_stride: 1,
            channel_stride: n,
        }
    }

    /// Rows of `n` complex samples, each read as its re and im channels (2 channels a row).
    pub fn interleaved(n: usize) -> Self {
        ChannelLayout {
            sample_stride: 2,
            channel_stride: 2 * n,
        }
    }

    /// Channels one after another, each read backwards in time.
    pub fn reversed(n: usize) -> Self {
        ChannelLayout {
            sample_stride: -1,
            channel_stride: n,
        }
    }

    /// Whether this is [`ChannelLayout::contiguous`] for `n` samples (or any channel stride
    /// for a single channel).
    pub fn is_contiguous(&self, channels: usize, n: usize) -> bool {
        self.sample_stride == 1 && (self.channel_stride == n || channels <= 1)
    }

    /// Channels per group: 1, or 2 for interleaved pairs.
    pub fn group(&self) -> usize {
        self.sample_stride.unsigned_abs()
    }

    /// Elements a view must hold for `channels` channels of `n` samples in this layout.
    pub fn span(&self, channels: usize, n: usize) -> Result<usize, FilterError> {
        let g = self.group();
        let groups = channels / g.max(1);
        let last = groups.saturating_sub(1).checked_mul(self.channel_stride);
        last.and_then(|l| l.checked_add(g * n))
            .ok_or_else(|| FilterError::Input("the layout's span overflows".into()))
    }

    /// Checks the layout for `channels` channels of `n` samples against views of `x_len`
    /// (input) and `y_len` (output) elements, and returns what the kernel launch takes.
    pub(crate) fn check(
        &self,
        channels: usize,
        n: usize,
        x_len: usize,
        y_len: usize,
    ) -> Result<LaunchLayout, FilterError> {
        let bad = |m: String| Err(FilterError::Input(format!("channel layout: {m}")));
        let s = self.sample_stride;
        if !matches!(s, 1 | 2 | -1 | -2) {
            return bad(format!(
                "a sample stride of {s} elements is not read in place: 1, 2 (two interleaved \
                 channels, complex re and im), or -1, -2 (backwards); copy the data to rows"
            ));
        }
        if channels == 0 {
            return bad("channels must be at least 1".into());
        }
        let g = self.group();
        if !channels.is_multiple_of(g) {
            return bad(format!(
                "a sample stride of {s} interleaves channels in pairs: {channels} channels is odd"
            ));
        }
        let groups = channels / g;
        let row = g
            .checked_mul(n)
            .ok_or_else(|| FilterError::Input("the layout's span overflows".into()))?;
        if groups > 1 && self.channel_stride < row {
            return bad(format!(
                "a channel stride of {} elements overlaps channels of {n} samples at stride {s} \
                 ({row} elements each)",
                self.channel_stride
            ));
        }
        if groups > 1 && !self.channel_stride.is_multiple_of(g) {
            return bad(format!(
                "a channel stride of {} elements splits the interleaved pairs",
                self.channel_stride
            ));
        }
        let span = self.span(channels, n)?;
        for (what, len) in [("input", x_len), ("output", y_len)] {
            if len < span {
                return bad(format!(
                    "{channels} channel(s) of {n} samples at sample stride {s} and channel \
                     stride {} reach {span} elements; the {what} holds {len}",
                    self.channel_stride
                ));
            }
        }
        if span > i64::MAX as usize {
            return bad(format!(
                "{span} elements is more than one launch can address"
            ));
        }
        let channel_stride = match groups {
            1 => n,
            _ => self.channel_stride / g,
        };
        Ok(LaunchLayout {
            kernel: KernelLayout {
                pairs: g == 2,
                reversed: s < 0,
            },
            channels: groups,
            channel_stride,
        })
    }

    /// The element index of sample `i` of channel `c` (channels of `n` samples).
    pub fn index(&self, c: usize, i: usize, n: usize) -> usize {
        let g = self.group();
        let at = if self.sample_stride > 0 { i } else { n - 1 - i };
        (c / g) * self.channel_stride + c % g + g * at
    }

    /// The channels of `mem` (laid out as this layout says) as rows one after another: the
    /// input a contiguous engine takes, so that a laid-out run's CPU twin is the plain
    /// engine on these rows.
    pub fn gather<T: Copy>(&self, mem: &[T], channels: usize, n: usize) -> Vec<T> {
        (0..channels)
            .flat_map(|c| (0..n).map(move |i| (c, i)))
            .map(|(c, i)| mem[self.index(c, i, n)])
            .collect()
    }

    /// Writes rows one after another (as [`ChannelLayout::gather`] gives them) into `mem`
    /// laid out as this layout says; elements between channels are left as they are.
    pub fn scatter<T: Copy>(&self, rows: &[T], mem: &mut [T], channels: usize, n: usize) {
        for c in 0..channels {
            for i in 0..n {
                mem[self.index(c, i, n)] = rows[c * n + i];
            }
        }
    }

    /// The state (zi / zf, `state` values per channel) of rows one after another in this
    /// layout's order: for interleaved pairs `[group][state][part]` (a complex state), else
    /// unchanged.
    pub fn state_from_rows<T: Copy>(&self, rows: &[T], channels: usize, state: usize) -> Vec<T> {
        let g = self.group();
        let mut out = rows.to_vec();
        for c in 0..channels {
            for j in 0..state {
                out[(c / g) * g * state + j * g + c % g] = rows[c * state + j];
            }
        }
        out
    }

    /// The inverse of [`ChannelLayout::state_from_rows`].
    pub fn state_to_rows<T: Copy>(&self, laid: &[T], channels: usize, state: usize) -> Vec<T> {
        let g = self.group();
        let mut out = laid.to_vec();
        for c in 0..channels {
            for j in 0..state {
                out[c * state + j] = laid[(c / g) * g * state + j * g + c % g];
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_checked_once_with_a_reason() {
        let n = 10;
        let ok = ChannelLayout::interleaved(n).check(4, n, 40, 40).unwrap();
        assert_eq!(
            (
                ok.channels,
                ok.channel_stride,
                ok.kernel.pairs,
                ok.kernel.reversed
            ),
            (2, 10, true, false)
        );
        let rev = ChannelLayout::reversed(n).check(3, n, 30, 30).unwrap();
        assert_eq!((rev.channels, rev.channel_stride), (3, 10));
        assert!(rev.kernel.reversed && !rev.kernel.pairs);
        // A padded channel stride is kept (in values: pairs count once).
        let padded = ChannelLayout {
            sample_stride: -2,
            channel_stride: 24,
        };
        let p = padded.check(4, n, 44, 44).unwrap();
        assert_eq!((p.channels, p.channel_stride), (2, 12));
        assert!(p.kernel.pairs && p.kernel.reversed);
        let message =
            |l: ChannelLayout, channels, x, y| l.check(channels, n, x, y).unwrap_err().to_string();
        let stride3 = ChannelLayout {
            sample_stride: 3,
            channel_stride: 30,
        };
        assert!(message(stride3, 1, 30, 30).contains("stride of 3"));
        assert!(message(ChannelLayout::interleaved(n), 3, 60, 60).contains("odd"));
        let overlap = ChannelLayout {
            sample_stride: 1,
            channel_stride: 5,
        };
        assert!(message(overlap, 2, 20, 20).contains("overlaps"));
        let split = ChannelLayout {
            sample_stride: 2,
            channel_stride: 21,
        };
        assert!(message(split, 4, 60, 60).contains("splits"));
        assert!(message(ChannelLayout::interleaved(n), 4, 39, 40).contains("the input holds 39"));
        assert!(message(ChannelLayout::reversed(n), 2, 20, 19).contains("the output holds 19"));
        assert!(message(ChannelLayout::reversed(n), 0, 20, 20).contains("at least 1"));
        let huge = ChannelLayout {
            sample_stride: 1,
            channel_stride: usize::MAX,
        };
        assert!(message(huge, 3, 20, 20).contains("overflows"));
    }

    #[test]
    fn gather_and_scatter_follow_the_element_formula() {
        // Two complex rows of 3 samples, padded to 8 elements a row, read backwards.
        let l = ChannelLayout {
            sample_stride: -2,
            channel_stride: 8,
        };
        let mem: Vec<i32> = (0..16).collect();
        let rows = l.gather(&mem, 4, 3);
        // Row 0: re at 4, 2, 0; im at 5, 3, 1; row 1 the same 8 later.
        assert_eq!(rows, [4, 2, 0, 5, 3, 1, 12, 10, 8, 13, 11, 9]);
        let mut back = vec![-1; 16];
        l.scatter(&rows, &mut back, 4, 3);
        let pads = [6, 7, 14, 15];
        for (i, v) in back.iter().enumerate() {
            assert_eq!(*v, if pads.contains(&i) { -1 } else { i as i32 }, "{i}");
        }
        // States: rows [channel][state] ↔ complex [group][state][part].
        let zi_rows = [10, 11, 20, 21, 30, 31, 40, 41];
        let laid = l.state_from_rows(&zi_rows, 4, 2);
        assert_eq!(laid, [10, 20, 11, 21, 30, 40, 31, 41]);
        assert_eq!(l.state_to_rows(&laid, 4, 2), zi_rows);
        let plain = ChannelLayout::reversed(3);
        assert_eq!(plain.state_from_rows(&zi_rows, 4, 2), zi_rows);
        assert_eq!(plain.gather(&[1, 2, 3, 4, 5, 6], 2, 3), [3, 2, 1, 6, 5, 4]);
    }

    #[test]
    fn contiguous_layouts_are_recognised() {
        assert!(ChannelLayout::contiguous(8).is_contiguous(3, 8));
        assert!(!ChannelLayout::reversed(8).is_contiguous(3, 8));
        let wide = ChannelLayout {
            sample_stride: 1,
            channel_stride: 9,
        };
        assert!(!wide.is_contiguous(3, 8) && wide.is_contiguous(1, 8));
        assert_eq!(ChannelLayout::interleaved(8).span(4, 8).unwrap(), 32);
    }
}

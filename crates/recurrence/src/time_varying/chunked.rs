//! The CPU twin of the GPU kernel (`kernels/allpole.cu`): the same chunks, the same three
//! passes and the same operations in the same order (f64 FMAs, forward terms oldest first, the
//! carry's dot products in column order), so the kernel's results are expected bit for bit;
//! `sigpu check` holds them to a few units in the last place of max|y|.
//!
//! Per channel, in processing order (forward: t ascending; reverse: t descending, transposed
//! form): each chunk of `chunk` steps is run from each unit state with no input (the columns
//! of its transition matrix M_c) and from the zero state with the input (its zero-state end
//! state s_c); the carry walks the chunks, state_in[c + 1] = M_c·state_in[c] + s_c; each chunk
//! is run again from its incoming state, writing the output.

use crate::elem::Element;

/// The kernel's forward step: the serial loop's terms fused (FMA) and summed oldest first.
#[inline(always)]
fn direct_step<T: Element>(state: &mut [f64], row: &[T], input: f64) -> f64 {
    let mut acc = input;
    for k in (0..state.len()).rev() {
        acc = (-row[k].to_f64()).mul_add(state[k], acc);
    }
    state.rotate_right(1);
    state[0] = acc;
    acc
}

/// The kernel's adjoint step: pending sums updated by FMA.
#[inline(always)]
fn transposed_step<T: Element>(pending: &mut [f64], row: &[T], input: f64) -> f64 {
    let p = pending.len();
    let v = input + pending[0];
    for i in 0..p - 1 {
        pending[i] = (-row[i].to_f64()).mul_add(v, pending[i + 1]);
    }
    pending[p - 1] = -row[p - 1].to_f64() * v;
    v
}

/// Runs processing steps `range` of one channel from `state` (logical order): `input` and
/// `out` indexed by time (`out` none: the summary pass, which writes nothing).
fn run_steps<T: Element>(
    state: &mut [f64],
    input: Option<&[T]>,
    a: &[T],
    mut out: Option<&mut [T]>,
    range: std::ops::Range<usize>,
    reverse: bool,
) {
    let order = state.len();
    let n = a.len() / order;
    for s in range {
        let t = if reverse { n - 1 - s } else { s };
        let row = &a[t * order..(t + 1) * order];
        let x = input.map_or(0.0, |x| x[t].to_f64());
        let v = if reverse {
            transposed_step(state, row, x)
        } else {
            direct_step(state, row, x)
        };
        if let Some(o) = out.as_deref_mut() {
            o[t] = T::from_f64(v);
        }
    }
}

/// One channel through the chunked scheme: `out` from `input` (both n) and `a` (n × order),
/// starting from `init` (logical order); returns the final state.
pub(crate) fn channel<T: Element>(
    input: &[T],
    a: &[T],
    init: &[f64],
    out: &mut [T],
    chunk: usize,
    reverse: bool,
) -> Vec<f64> {
    let order = init.len();
    let n = input.len();
    let chunks = n.div_ceil(chunk);
    let mut state = init.to_vec();
    let mut incoming = Vec::with_capacity(chunks);
    for c in 0..chunks {
        let range = c * chunk..((c + 1) * chunk).min(n);
        // Summary: column j of M_c from the unit state e_j, then s_c.
        let mut columns = vec![0.0f64; order * order];
        for j in 0..order {
            let col = &mut columns[j * order..(j + 1) * order];
            col[j] = 1.0;
            run_steps::<T>(col, None, a, None, range.clone(), reverse);
        }
        let mut sum = vec![0.0f64; order];
        run_steps(&mut sum, Some(input), a, None, range, reverse);
        // Carry: the kernel's lane i sums its row in column order from the chunk's s_c.
        incoming.push(state.clone());
        let next: Vec<f64> = (0..order)
            .map(|i| (0..order).fold(sum[i], |v, j| columns[j * order + i].mul_add(state[j], v)))
            .collect();
        state = next;
    }
    for (c, start) in incoming.iter().enumerate() {
        let range = c * chunk..((c + 1) * chunk).min(n);
        let mut s = start.clone();
        run_steps(&mut s, Some(input), a, Some(&mut *out), range, reverse);
    }
    state
}

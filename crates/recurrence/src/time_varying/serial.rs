//! The CPU engine: each channel runs serially, channels in parallel on the target's threads.
//! Every step computes in f64 (for f32 data too) and each output is rounded once to the
//! element type; the forward step is the serial loop's own arithmetic (below: f64 data gets
//! its bits), where the GPU kernel and its twin fuse the terms.
//!
//! Forward (direct form): y[t] = x[t] − Σ_k a[t][k]·y[t−k−1], state y[−1−i] = zi[i].
//! Backward (transposed form, time reversed): u[t] = g[t] + p[0], then the pending sums
//! p[i] ← p[i+1] − a[t][i]·u[t] (p[order−1] ← −a[t][order−1]·u[t]); after t = 0 the pending
//! sums are the gradient of zi. The gradient of a is −u[t]·y[t−k−1].

use crate::elem::Element;

/// One forward step of the direct form on a state in logical order (state[i] = y[t−1−i]):
/// the new output, after which the state is shifted. The serial loop's operations exactly
/// (torchlpc's and the textbook's): acc ← acc − a[k]·y[t−k−1] for k = 0 … p−1, each product
/// and difference rounded (no FMA), so f64 data gets the serial loop's bits.
#[inline(always)]
pub(crate) fn direct_step<T: Element>(state: &mut [f64], row: &[T], input: f64) -> f64 {
    let mut acc = input;
    for (a, s) in row.iter().zip(state.iter()) {
        acc -= a.to_f64() * s;
    }
    state.rotate_right(1);
    state[0] = acc;
    acc
}

/// One step of the transposed (adjoint) form on pending sums in logical order (products and
/// differences rounded separately: `mul_add` is a library call where FMA is not compiled in).
#[inline(always)]
pub(crate) fn transposed_step<T: Element>(pending: &mut [f64], row: &[T], input: f64) -> f64 {
    let p = pending.len();
    let v = input + pending[0];
    for i in 0..p - 1 {
        pending[i] = pending[i + 1] - row[i].to_f64() * v;
    }
    pending[p - 1] = -row[p - 1].to_f64() * v;
    v
}

/// Forward run of one channel: `x` (n), `a` (n × order), `zi` (order) or none, into `y`;
/// returns the final state (zf[i] = y[n−1−i], zi's layout).
pub(crate) fn forward_channel<T: Element>(
    x: &[T],
    a: &[T],
    zi: Option<&[T]>,
    y: &mut [T],
    order: usize,
) -> Vec<f64> {
    let mut state: Vec<f64> = match zi {
        Some(z) => z.iter().map(|v| v.to_f64()).collect(),
        None => vec![0.0; order],
    };
    for (t, (xi, yi)) in x.iter().zip(y.iter_mut()).enumerate() {
        let row = &a[t * order..(t + 1) * order];
        *yi = T::from_f64(direct_step(&mut state, row, xi.to_f64()));
    }
    state
}

/// Backward run of one channel: from the output gradient `g`, the input gradient `gx` (the
/// adjoint, u), the coefficient gradient `ga` (n × order) and the state gradient `gzi`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn backward_channel<T: Element>(
    a: &[T],
    y: &[T],
    zi: Option<&[T]>,
    g: &[T],
    gx: &mut [T],
    ga: &mut [T],
    gzi: Option<&mut [T]>,
    order: usize,
) {
    let n = g.len();
    let mut pending = vec![0.0f64; order];
    for t in (0..n).rev() {
        let row = &a[t * order..(t + 1) * order];
        gx[t] = T::from_f64(transposed_step(&mut pending, row, g[t].to_f64()));
    }
    grad_a_channel(gx, y, zi, ga, order);
    if let Some(out) = gzi {
        for (o, p) in out.iter_mut().zip(&pending) {
            *o = T::from_f64(*p);
        }
    }
}

/// ga[t][k] = −u[t]·y[t−k−1], with y[−j−1] = zi[j] (zero without zi).
pub(crate) fn grad_a_channel<T: Element>(
    u: &[T],
    y: &[T],
    zi: Option<&[T]>,
    ga: &mut [T],
    order: usize,
) {
    for (t, (ut, row)) in u.iter().zip(ga.chunks_exact_mut(order)).enumerate() {
        let u = ut.to_f64();
        for (k, o) in row.iter_mut().enumerate() {
            let prev = if t > k {
                y[t - k - 1].to_f64()
            } else {
                zi.map_or(0.0, |z| z[k - t].to_f64())
            };
            *o = T::from_f64(-u * prev);
        }
    }
}

/// Runs `work` on every item (one channel's slices each) on up to `threads` scoped threads,
/// each taking a contiguous run of items.
pub(crate) fn parallel_each<I: Send>(items: Vec<I>, threads: usize, work: impl Fn(I) + Sync) {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        items.into_iter().for_each(work);
        return;
    }
    let per = items.len().div_ceil(threads);
    let mut groups: Vec<Vec<I>> = Vec::new();
    let mut rest = items.into_iter();
    loop {
        let group: Vec<I> = rest.by_ref().take(per).collect();
        if group.is_empty() {
            break;
        }
        groups.push(group);
    }
    std::thread::scope(|scope| {
        for group in groups {
            let work = &work;
            scope.spawn(move || group.into_iter().for_each(work));
        }
    });
}

//! The kernels: `plr_filter` (the tail-carry variant, or chunks chained by the look-back),
//! then the carry into each thread and the correction with the in-thread factors; and
//! `plr_final_state`, which computes zf from the last inputs and outputs.

use super::local::emit_merge;
use super::plan::Plan;
use crate::elem::Element;
use std::fmt::Write;

pub const FILTER_KERNEL: &str = "plr_filter";
pub const STATE_KERNEL: &str = "plr_final_state";

/// `plr_filter`: its parameters, the chunk's carry-in, the correction and the store.
pub(super) fn write_filter_kernel<T: Element>(plan: &Plan<'_, T>, w: &mut String) {
    let transpose = plan.config.transpose;
    let lookback_warp = plan.config.lookback_warp;
    // The tail-carry kernel has an extra warp (WARPS) that recomputes the carry-in; the
    // look-back kernel one that looks back, where it has the look-back warp.
    let block = if plan.tail_carry || lookback_warp {
        "THREADS + 32"
    } else {
        "THREADS"
    };
    let bounds = match plan.config.min_blocks {
        0 => block.to_owned(),
        b => format!("{block}, {b}"),
    };
    // The tail-carry kernel has no look-back: no flags, carries, counters or epoch.
    let lookback_params = if plan.tail_carry {
        ""
    } else {
        ",\n    unsigned int* flags, T* aggs, T* incls, unsigned int* counters, unsigned int epoch"
    };
    let _ = writeln!(
        w,
        "extern \"C\" __global__ void __launch_bounds__({bounds}) {FILTER_KERNEL}(\n    \
         const T* __restrict__ x, T* __restrict__ y, long long n, long long cs, long long chunks_per_channel,\n    \
         const T* __restrict__ zi, int has_zi, const S* __restrict__ consts{lookback_params})\n{{"
    );
    // The tail-carry kernel's tiles are static (WARPS + 1 of them); the look-back kernel's
    // are dynamic, so that chunks over 48 KiB fit.
    let tile_arg = match (transpose, plan.tail_carry) {
        (false, _) => "nullptr",
        (true, true) => "s_tile[warp]",
        (true, false) => "s_tiles + warp * 32 * Q",
    };
    if plan.tail_carry {
        let decl = if transpose {
            "    __shared__ uint4 s_tile[WARPS + 1][32 * Q];  // a warp's values in transit\n"
        } else {
            ""
        };
        let head = TAIL_KERNEL_HEAD.replace("TILE_DECL", decl);
        w.push_str(&head.replace("TILE_ARG", tile_arg));
    } else {
        let decl = if transpose {
            "    extern __shared__ uint4 s_tiles[];  // the warps' values in transit, 32 * Q each\n"
        } else {
            ""
        };
        let agg = if lookback_warp {
            "    __shared__ T s_agg[K];           // the chunk's aggregate, kept by warp 0 across the barrier\n"
        } else {
            ""
        };
        let head = KERNEL_PROLOGUE
            .replace("TILE_DECL", decl)
            .replace("AGG_DECL", agg)
            .replace("TILE_ARG", tile_arg)
            // The look-back warp (warp WARPS) opens an `else` branch for the data warps,
            // which write_chunk_carry closes at the block's barrier.
            .replace(
                "LOOK_BACK_WARP",
                if lookback_warp {
                    LOOK_BACK_WARP_HEAD
                } else {
                    ""
                },
            );
        w.push_str(&head);
        write_chunk_carry(plan, w);
    }
    w.push_str(CARRY_IN);
    write_correction(plan, w);
    if transpose {
        let _ = writeln!(
            w,
            "    store_warp(yc, n, seg, wseg, vec_ok, {tile_arg}, lane, v);\n}}\n"
        );
    } else {
        let _ = writeln!(w, "    store_segment(yc, n, seg, vec_ok, v);\n}}\n");
    }
}

/// After the block's barrier the look-back warp leaves, and warp 0 posts the chunk's full
/// carry (its own aggregate, which its lane 0 left in s_agg, plus the carry-in the look-back
/// warp left in s_carry) unless the chunk posted it at once. Warp 0 posts, not the look-back
/// warp, so that no shared value crosses from the data warps to the look-back warp: the
/// handoffs run one way, look-back warp to data warps, each across the block's barrier, which
/// is what compute-sanitizer's racecheck can follow for a warp that skips the data warps'
/// barrier 1 (it reported the aggregate's reverse handoff although the barrier ordered it).
fn look_back_warp_post<T: Element>(plan: &Plan<'_, T>, w: &mut String) {
    w.push_str("    if (warp == WARPS) return;\n");
    if !plan.independent {
        w.push_str(concat!(
            "    if (warp == 0 && ci > 0) {\n",
            "        T carry[K], incl[K];\n",
            "        #pragma unroll\n",
            "        for (int r = 0; r < K; ++r) { carry[r] = s_carry[r]; incl[r] = s_agg[r]; }\n",
            "        add_transfer(consts, CHUNK, carry, incl);\n",
            "        if (lane == 0) post(flags, incls, g, incl, STATUS_FULL, epoch);\n",
            "    }\n",
        ));
    }
}

/// The look-back kernel's block merge over the warps, the chunk's posts and its carry-in.
fn write_chunk_carry<T: Element>(plan: &Plan<'_, T>, w: &mut String) {
    let lookback_warp = plan.config.lookback_warp;
    let head = if lookback_warp {
        KERNEL_BLOCK_HEAD.replace(
            "    __syncthreads();\n",
            "    // Barrier 1, every thread of the block: the data warps wait here (every warp's\n    \
             // lane 31 has left its aggregate in s_warp before warp 0 merges them); the look-back\n    \
             // warp arrived at the block's start without waiting.\n    \
             named_barrier(1, THREADS + 32);\n",
        )
    } else {
        KERNEL_BLOCK_HEAD.to_owned()
    };
    w.push_str(&head);
    let mut d = 1;
    while d < plan.warps {
        emit_merge(
            w,
            &plan.factors,
            "wv",
            d,
            d * 32 * plan.vpt,
            plan.optimize,
            "lane",
        );
        d *= 2;
    }
    w.push_str(KERNEL_BLOCK_TAIL_1);
    if plan.independent {
        let _ = writeln!(
            w,
            "        // the carry-out does not depend on the carry-in: post it as full at once\n        \
             if (lane == 0) post(flags, incls, g, chunk_agg, STATUS_FULL, epoch);"
        );
    } else {
        let _ = writeln!(
            w,
            "        if (lane == 0) post(flags, ci == 0 ? incls : aggs, g, chunk_agg, ci == 0 ? STATUS_FULL : STATUS_PARTIAL, epoch);"
        );
    }
    if lookback_warp {
        w.push_str(LOOK_BACK_WARP_HANDOFF);
        look_back_warp_post(plan, w);
        return;
    }
    if plan.need_carry {
        let _ = writeln!(
            w,
            "        if (ci > 0) look_back(flags, aggs, incls, consts, g, ch * chunks_per_channel, epoch, lane, carry);"
        );
    } else {
        let _ = writeln!(
            w,
            "        // every factor is zero: no carry is ever needed"
        );
    }
    if !plan.independent {
        w.push_str(concat!(
            "        if (ci > 0) {\n",
            "            T incl[K];\n",
            "            #pragma unroll\n",
            "            for (int r = 0; r < K; ++r) incl[r] = chunk_agg[r];\n",
            "            add_transfer(consts, CHUNK, carry, incl);\n",
            "            if (lane == 0) post(flags, incls, g, incl, STATUS_FULL, epoch);\n",
            "        }\n",
        ));
    }
    w.push_str(KERNEL_BLOCK_TAIL_2);
}

/// v[i] += sum_j c[j] * f_j[i], with the in-thread factors written in.
fn write_correction<T: Element>(plan: &Plan<'_, T>, w: &mut String) {
    let _ = writeln!(w, "    // v[i] += sum_j c[j] * f_j[i]");
    for i in 0..plan.vpt {
        let terms = (0..plan.k)
            .map(|j| plan.term(plan.factors.at(j, i as isize), &format!("c[{j}]")))
            .collect();
        if let Some(e) = Plan::<T>::sum(terms) {
            let _ = writeln!(w, "    v[{i}] += {e};");
        }
    }
}

/// `plr_final_state`: zf from the last NSTATE inputs and outputs of each channel.
pub(super) fn write_state_kernel<T: Element>(plan: &Plan<'_, T>, w: &mut String) {
    let (ff, fb, nstate) = (plan.ff, plan.fb, plan.nstate);
    let a_list: Vec<String> = (0..=nstate)
        .map(|m| ff.get(m).copied().unwrap_or(T::ZERO).c_literal())
        .collect();
    let b_list: Vec<String> = (0..=nstate)
        .map(|m| {
            let b = if m == 0 { None } else { fb.get(m - 1) };
            b.copied().unwrap_or(T::ZERO).c_literal()
        })
        .collect();
    let _ = writeln!(
        w,
        "// zf[ch][i] = zi[ch][n+i] (while n+i < NSTATE) + sum_{{m>i}} a_m x[n+i-m] + b_m y[n+i-m]\n\
         extern \"C\" __global__ void {STATE_KERNEL}(const T* __restrict__ x, const T* __restrict__ y,\n    \
         long long n, long long cs, int channels, const T* __restrict__ zi, int has_zi, T* __restrict__ zf)\n{{"
    );
    if nstate == 0 {
        let _ = writeln!(w, "    // no state: nothing to compute\n}}");
    } else {
        let _ = writeln!(w, "    const S A[NSTATE + 1] = {{{}}};", a_list.join(", "));
        let _ = writeln!(w, "    const S B[NSTATE + 1] = {{{}}};", b_list.join(", "));
        w.push_str(STATE_BODY);
    }
}

const KERNEL_PROLOGUE: &str = r#"    __shared__ long long s_chunk;
    __shared__ T s_warp[WARPS * K];  // warp aggregates, then inclusive warp prefixes
    __shared__ T s_carry[K];         // the chunk's carry-in
AGG_DECLTILE_DECL    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    // Chunks in start order, so a chunk only ever waits on chunks already running.
    const long long g = sigpu_chunk_in_start_order(counters, epoch, &s_chunk);
    const long long ch = g / chunks_per_channel;
    const long long ci = g - ch * chunks_per_channel;
    const T* xc = x + ch * cs;
    T* yc = y + ch * cs;
    const long long wseg = ci * CHUNK + (long long)warp * 32 * V;
    const long long seg = wseg + (long long)lane * V;
    const bool vec_ok = plr_vec_ok(xc, yc, n);
    __align__(16) T v[V];
    T a[K], e[K];
LOOK_BACK_WARP    local_pass(xc, n, seg, wseg, vec_ok, TILE_ARG, lane, zi, has_zi, ch, v, a, e);
"#;

const TAIL_KERNEL_HEAD: &str = r#"    // Block b filters chunk b. Warps 0..WARPS-1 take its values; warp WARPS runs the same local
    // pass over the previous chunk's last 32*V inputs, whose carry-out from zero is this chunk's
    // carry-in (the factors vanish within 32*V values). Chunks never wait on one another.
    __shared__ T s_warp[WARPS * K];  // warp carry-outs (= inclusive prefixes: no block merge)
    __shared__ T s_carry[K];         // the chunk's carry-in
TILE_DECL    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const bool tail = warp == WARPS;
    const long long g = blockIdx.x;
    const long long ch = g / chunks_per_channel;
    const long long ci = g - ch * chunks_per_channel;
    const T* xc = x + ch * cs;
    T* yc = y + ch * cs;
    const long long wseg = ci * CHUNK + (tail ? -32LL * V : (long long)warp * 32 * V);
    const long long seg = wseg + (long long)lane * V;
    const bool vec_ok = plr_vec_ok(xc, yc, n);
    __align__(16) T v[V];
    T a[K], e[K];
    if (!tail || ci > 0) local_pass(xc, n, seg, wseg, vec_ok, TILE_ARG, lane, zi, has_zi, ch, v, a, e);
    if (lane == 31) {
        #pragma unroll
        for (int r = 0; r < K; ++r) {
            if (!tail) s_warp[warp * K + r] = a[r];
            else s_carry[r] = ci > 0 ? a[r] : (T)0;
        }
    }
    __syncthreads();
    if (tail) return;
"#;

const LOOK_BACK_WARP_HEAD: &str = r#"    if (warp == WARPS) {
        // The look-back warp: the carry from the chunks before this one, while the other
        // warps load and merge the chunk's values. It counts itself in at their barrier 1 and
        // does not wait there.
        named_arrive(1, THREADS + 32);
        T carry[K];
        if (ci > 0) {
            look_back(flags, aggs, incls, consts, g, ch * chunks_per_channel, epoch, lane, carry);
        } else {
            #pragma unroll
            for (int r = 0; r < K; ++r) carry[r] = (T)0;
        }
        if (lane == 0) {
            #pragma unroll
            for (int r = 0; r < K; ++r) s_carry[r] = carry[r];
        }
    } else {
        // The data warps: the chunk's values, up to the block merge.
"#;

const LOOK_BACK_WARP_HANDOFF: &str = r#"        if (lane == 0) {
            #pragma unroll
            for (int r = 0; r < K; ++r) s_agg[r] = chunk_agg[r];
        }
    }
    }
    // Every thread of the block meets here, at this one instruction (both sides of the branch
    // above end at it): the look-back warp's lane 0 has left the carry-in in s_carry, and warp
    // 0 the chunk's aggregate in s_agg (for itself) and the warp prefixes in s_warp.
    __syncthreads();
"#;

const KERNEL_BLOCK_HEAD: &str = r#"    if (lane == 31) {
        #pragma unroll
        for (int r = 0; r < K; ++r) s_warp[warp * K + r] = a[r];
    }
    __syncthreads();
    if (warp == 0) {
        // block: doubling merges over the warp aggregates, a lane per warp
        T wv[K];
        #pragma unroll
        for (int r = 0; r < K; ++r) wv[r] = lane < WARPS ? s_warp[lane * K + r] : (T)0;
"#;

const KERNEL_BLOCK_TAIL_1: &str = r#"        if (lane < WARPS) {
            #pragma unroll
            for (int r = 0; r < K; ++r) s_warp[lane * K + r] = wv[r];
        }
        T chunk_agg[K], carry[K];
        #pragma unroll
        for (int r = 0; r < K; ++r) {
            chunk_agg[r] = __shfl_sync(FULL_MASK, wv[r], WARPS - 1);
            carry[r] = (T)0;
        }
"#;

const KERNEL_BLOCK_TAIL_2: &str = r#"        if (lane == 0) {
            #pragma unroll
            for (int r = 0; r < K; ++r) s_carry[r] = carry[r];
        }
    }
    __syncthreads();
"#;

const CARRY_IN: &str = r#"    // carry into this warp: the warps before it, plus the chunk's carry-in through them
    T tw[K], cin[K];
    #pragma unroll
    for (int r = 0; r < K; ++r) {
        tw[r] = warp > 0 ? s_warp[(warp - 1) * K + r] : (T)0;
        cin[r] = s_carry[r];
    }
    add_transfer(consts, (long long)warp * 32 * V, cin, tw);
    // carry into this thread
    T c[K];
    #pragma unroll
    for (int r = 0; r < K; ++r) c[r] = e[r];
    add_transfer(consts, (long long)lane * V, tw, c);
"#;

const STATE_BODY: &str = r#"    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)channels * NSTATE) return;
    const long long ch = t / NSTATE;
    const int i = (int)(t - ch * NSTATE);
    const T* xc = x + ch * cs;
    const T* yc = y + ch * cs;
    T v = (has_zi && n + i < NSTATE) ? zi[ch * NSTATE + n + i] : (T)0;
    for (int m = i + 1; m <= NSTATE; ++m) {
        const long long at = n + i - m;
        if (at >= 0) v += A[m] * xc[plr_at(n, at)] + B[m] * yc[plr_at(n, at)];
    }
    zf[t] = v;
}
"#;

//! The local pass: one warp's values through the map and the recurrence from zero, with the
//! coefficients written in, and the warp's doubling merges of the threads' carry-outs.

use super::plan::{map_signature, rec_signature, Plan};
use crate::elem::{DType, Element};
use crate::factors::Factors;
use std::fmt::Write;

/// `local_pass`: load, map, initial state, recurrence, warp merges, exclusive carries.
pub(super) fn write_local_pass<T: Element>(plan: &Plan<'_, T>, w: &mut String) {
    let _ = writeln!(
        w,
        "// One warp's 32*V values from wseg on (V per thread, from seg on) through the map and the\n\
         // recurrence from zero: v holds the thread's values, a its carry-out merged over the lanes\n\
         // before it (lane 31: the warp's carry-out), e the carry into the thread from those lanes.\n\
         __device__ __forceinline__ void local_pass(const T* __restrict__ xc, long long n, long long seg,\n    \
         long long wseg, bool vec_ok, uint4* tile, int lane, const T* __restrict__ zi, int has_zi,\n    \
         long long ch, T* v, T* a, T* e)\n{{"
    );
    if plan.config.transpose {
        let _ = writeln!(w, "    load_warp(xc, n, seg, wseg, vec_ok, tile, lane, v);");
    } else {
        let _ = writeln!(w, "    load_segment(xc, n, seg, vec_ok, v);");
    }
    write_map(plan, w);
    if plan.nstate > 0 {
        w.push_str(concat!(
            "    // initial state: zi[ch][i] belongs to element i\n",
            "    if (has_zi && seg < NSTATE) {\n",
            "        #pragma unroll\n",
            "        for (int i = 0; i < V; ++i) if (seg + i < NSTATE) v[i] += zi[ch * NSTATE + seg + i];\n",
            "    }\n",
        ));
    }
    write_recurrence(plan, w);
    let _ = writeln!(
        w,
        "    // warp: 5 doubling merges, a <- a + M(d*V) * (a of lane - d)"
    );
    let mut d = 1;
    while d < 32 {
        emit_merge(
            w,
            &plan.factors,
            "a",
            d,
            d * plan.vpt,
            plan.optimize,
            "lane",
        );
        d *= 2;
    }
    w.push_str(LOCAL_PASS_TAIL);
}

/// The map `(a0, a-1, … : 0)`, unrolled from the thread's last value down.
fn write_map<T: Element>(plan: &Plan<'_, T>, w: &mut String) {
    let ff = plan.ff;
    let p = ff.len() - 1;
    if plan.optimize && p == 0 && ff[0] == T::ONE {
        let _ = writeln!(w, "    // map (1 : 0): nothing to do");
        return;
    }
    let _ = writeln!(
        w,
        "    // map {}: t[i] = sum_j a_j x[i-j], from the last value down",
        map_signature(ff)
    );
    if p > 0 {
        let _ = writeln!(w, "    T h[{p}];  // x[seg-1], x[seg-2], ...");
        let _ = writeln!(w, "    #pragma unroll");
        let _ = writeln!(
            w,
            "    for (int j = 0; j < {p}; ++j) h[j] = (seg - 1 - j >= 0 && seg - 1 - j < n) ? xc[plr_at(n, seg - 1 - j)] : (T)0;"
        );
    }
    for i in (0..plan.vpt).rev() {
        let terms = ff
            .iter()
            .enumerate()
            .map(|(j, &a)| {
                let src = if i >= j {
                    format!("v[{}]", i - j)
                } else {
                    format!("h[{}]", j - i - 1)
                };
                plan.term(a, &src)
            })
            .collect();
        let value = Plan::<T>::sum(terms).unwrap_or_else(|| "(T)0".into());
        let _ = writeln!(w, "    v[{i}] = {value};");
    }
}

/// The recurrence `(1 : b…)` over the thread's values from zero, and its carry-out.
fn write_recurrence<T: Element>(plan: &Plan<'_, T>, w: &mut String) {
    let _ = writeln!(
        w,
        "    // recurrence {} over this thread's values, from zero",
        rec_signature(plan.fb)
    );
    if T::DTYPE == DType::F64 {
        write_compensated_recurrence(plan, w);
        return;
    }
    for i in 1..plan.vpt {
        let terms = (plan.fb.iter().enumerate())
            .filter(|(l, _)| *l < i)
            .map(|(l, &b)| plan.term(b, &format!("v[{}]", i - 1 - l)))
            .collect();
        if let Some(e) = Plan::<T>::sum(terms) {
            let _ = writeln!(w, "    v[{i}] += {e};");
        }
    }
    let _ = writeln!(w, "    #pragma unroll");
    let _ = writeln!(w, "    for (int r = 0; r < K; ++r) a[r] = v[V - 1 - r];");
}

/// The f64 recurrence with each value rounded once from its exact sum (`dot2_add` in
/// `plr.cuh`: products split by FMA, sums by TwoSum, errors added at the end). The direct form
/// on y cancels heavily where its feedback coefficients are large (butter(3, 0.11): 2.28, −1.80,
/// 0.49 against outputs near 1), and this thread's few values from zero are most of every
/// output's error: rounded term by term, a zi transient came out 9.2 ε of max|y| off where
/// SciPy's direct form II transposed is 2.2 ε off. f64 has the arithmetic to spare; f32 kernels,
/// closer to the issue limit, keep the plain form.
fn write_compensated_recurrence<T: Element>(plan: &Plan<'_, T>, w: &mut String) {
    let _ = writeln!(
        w,
        "    // each value rounded once from its exact sum (dot2_add)"
    );
    for i in 1..plan.vpt {
        let terms: Vec<String> = (plan.fb.iter().enumerate())
            .filter(|(l, b)| *l < i && !(plan.optimize && **b == T::ZERO))
            .map(|(l, b)| format!("dot2_add(s, c, {}, v[{}]);", b.c_literal(), i - 1 - l))
            .collect();
        if !terms.is_empty() {
            let _ = writeln!(
                w,
                "    {{ T s = v[{i}], c = 0.0; {} v[{i}] = __dadd_rn(s, c); }}",
                terms.join(" ")
            );
        }
    }
    let _ = writeln!(w, "    #pragma unroll");
    let _ = writeln!(w, "    for (int r = 0; r < K; ++r) a[r] = v[V - 1 - r];");
}

/// One doubling merge step: lanes ≥ d add M(m)·(value of lane − d) to their `var`.
pub(super) fn emit_merge<T: Element>(
    w: &mut String,
    factors: &Factors<T>,
    var: &str,
    d: usize,
    m: usize,
    optimize: bool,
    lane: &str,
) {
    let k = factors.order();
    let mat = factors.transfer(m);
    if optimize && mat.iter().all(|&v| v == T::ZERO) {
        let _ = writeln!(
            w,
            "    // d = {d}: every factor at distance {m} is zero, nothing to merge"
        );
        return;
    }
    let _ = write!(
        w,
        concat!(
            "    {{  // d = {d}: segments of {m} values\n",
            "        T o[K];\n",
            "        #pragma unroll\n",
            "        for (int r = 0; r < K; ++r) o[r] = __shfl_up_sync(FULL_MASK, {var}[r], {d});\n",
            "        if ({lane} >= {d}) {{\n",
        ),
        d = d,
        m = m,
        var = var,
        lane = lane
    );
    let mut lines = Vec::new();
    for r in 0..k {
        let terms: Vec<String> = (0..k)
            .filter_map(|j| {
                let c = mat[r * k + j];
                if optimize && c == T::ZERO {
                    None
                } else if optimize && c == T::ONE {
                    Some(format!("o[{j}]"))
                } else {
                    Some(format!("{} * o[{j}]", c.c_literal()))
                }
            })
            .collect();
        if !terms.is_empty() {
            lines.push(format!("            {var}[{r}] += {};", terms.join(" + ")));
        }
    }
    for l in lines {
        let _ = writeln!(w, "{l}");
    }
    let _ = writeln!(w, "        }}\n    }}");
}

const LOCAL_PASS_TAIL: &str = r#"    #pragma unroll
    for (int r = 0; r < K; ++r) {
        e[r] = __shfl_up_sync(FULL_MASK, a[r], 1);
        if (lane == 0) e[r] = (T)0;
    }
}

"#;

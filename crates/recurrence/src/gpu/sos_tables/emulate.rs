//! The kernel's computation on the CPU, step for step in the same arithmetic: how the scheme
//! is tested without a GPU, and what a GPU run is compared with.

use super::tables::{scan_steps, SosTables};
use crate::elem::{DType, Element};
use crate::sos::BlockedPeaks;

/// `m · (p0, p1)` for a row-major 2×2 matrix, in A.
fn mv<A: Element>(m: &[f64; 4], p0: A, p1: A) -> (A, A) {
    let m = m.map(A::from_f64);
    (
        m[0].mul(p0).add(m[1].mul(p1)),
        m[2].mul(p0).add(m[3].mul(p1)),
    )
}

/// |y| as the kernel computing in A tracks its peaks: f32 exactly; f64 by the high word of |y|,
/// with the low word set (`above`: at or above |y|, for the zero-state outputs) or cleared (at
/// or below, for the output), 0 staying 0 (`sos_hi_above`, `sos_hi_below`).
fn peak_of<A: Element>(y: f64, above: bool) -> f64 {
    let a = y.abs();
    if A::DTYPE == DType::F32 || a == 0.0 || a.is_nan() {
        return a;
    }
    let hi = a.to_bits() & !0xffff_ffff;
    f64::from_bits(if above { hi | 0xffff_ffff } else { hi })
}

/// Whether the kernel computing in A leaves a scan step with merge `m` out (`sos_merge_up`): in
/// f32, whose tables are literals, where every entry rounds to zero.
fn vanishes<A: Element>(m: &[f64; 4]) -> bool {
    A::DTYPE == DType::F32 && m.iter().all(|&x| A::from_f64(x).to_f64() == 0.0)
}

/// The kernel's computation on the CPU, step for step in the same arithmetic (f64 whatever
/// `T` is; the chunk chain serially instead of by look-back, which folds the same values):
/// what the GPU must reproduce up to rounding, and how its scheme is tested without one. `x`
/// holds `channels` channels one after another; zi / zf are [channel][section][2].
pub fn emulate<T: Element>(
    t: &SosTables<T>,
    x: &[T],
    channels: usize,
    zi: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    let (y, zf, _) = emulate_in::<T, f64>(t, x, channels, zi);
    (y, zf)
}

/// [`emulate`] with the arithmetic in `A` (the kernel's `W`: f64, or the signal's own f32 for
/// the fast kernel of f32 signals; carries between chunks are f64 either way), and per channel
/// the peaks the kernel reports for the host's precision check: the largest zero-state output
/// of any thread and section, the largest correction term, and the largest output
/// ([`crate::BlockedPeaks`]).
pub fn emulate_in<T: Element, A: Element>(
    t: &SosTables<T>,
    x: &[T],
    channels: usize,
    zi: Option<&[T]>,
) -> (Vec<T>, Vec<T>, Vec<BlockedPeaks>) {
    let a = A::from_f64;
    let (v, threads, ns) = (t.config.vpt, t.config.threads, t.sections());
    let warps = threads / 32;
    let chunk = t.config.chunk();
    let n = x.len().checked_div(channels).unwrap_or(0);
    let mut y = x.to_vec();
    let mut zf = vec![T::ZERO; channels * ns * 2];
    let mut peaks = vec![BlockedPeaks::default(); channels];
    for (ch, pk) in peaks.iter_mut().enumerate() {
        let mut carry: Vec<(f64, f64)> = (0..ns)
            .map(|s| match zi {
                Some(z) => (
                    z[(ch * ns + s) * 2].to_f64(),
                    z[(ch * ns + s) * 2 + 1].to_f64(),
                ),
                None => (0.0, 0.0),
            })
            .collect();
        for start in (0..n.max(1)).step_by(chunk).take_while(|&s| s < n) {
            let mut buf: Vec<A> = (0..chunk)
                .map(|i| {
                    if start + i < n {
                        a(x[ch * n + start + i].to_f64())
                    } else {
                        A::ZERO
                    }
                })
                .collect();
            let last_chunk = start + chunk >= n;
            // each thread's largest carry-in correction term of any section (the kernel's sums)
            let mut chunk_terms = vec![0.0f64; threads];
            for (s, c) in t.held.iter().enumerate() {
                let c = *c;
                let (a1, a2) = (c[4], c[5]);
                let (b0, b1, b2, na1, na2) = (a(c[0]), a(c[1]), a(c[2]), a(-a1), a(-a2));
                let mut agg = vec![(A::ZERO, A::ZERO); threads];
                let mut cap = vec![None; threads];
                for th in 0..threads {
                    let (mut d0, mut d1) = (A::ZERO, A::ZERO);
                    for i in 0..v {
                        let pos = th * v + i;
                        let u = buf[pos];
                        let yv = b0.mul(u).add(d0);
                        d0 = b1.mul(u).add(na1.mul(yv)).add(d1);
                        d1 = b2.mul(u).add(na2.mul(yv));
                        buf[pos] = yv;
                        pk.local = pk.local.max(peak_of::<A>(yv.to_f64(), true));
                        if last_chunk && start + pos == n - 1 {
                            cap[th] = Some((i, d0, d1));
                        }
                    }
                    agg[th] = (d0, d1);
                    // as the kernel: the end state is a term of every later carry-in
                    let fp = t.f_peak[s];
                    let (e0, e1) = (d0.to_f64().abs(), d1.to_f64().abs());
                    pk.correction = pk.correction.max(e0 * fp[0] + e1 * fp[1]);
                }
                // warp scans
                let mut incl = agg.clone();
                for w in 0..warps {
                    for k in (0..5).filter(|&k| !vanishes::<A>(&t.warp_merge[s][k])) {
                        let d = 1 << k;
                        let prev = incl.clone();
                        for lane in d..32 {
                            let (p0, p1) = prev[w * 32 + lane - d];
                            let (q0, q1) = mv(&t.warp_merge[s][k], p0, p1);
                            let (a0, a1) = prev[w * 32 + lane];
                            incl[w * 32 + lane] = (a0.add(q0), a1.add(q1));
                        }
                    }
                }
                // block scan over warps
                let mut wsum: Vec<(A, A)> = (0..warps).map(|w| incl[w * 32 + 31]).collect();
                for k in (0..scan_steps(warps)).filter(|&k| !vanishes::<A>(&t.block_merge[s][k])) {
                    let d = 1 << k;
                    let prev = wsum.clone();
                    for w in d..warps {
                        let (q0, q1) = mv(&t.block_merge[s][k], prev[w - d].0, prev[w - d].1);
                        wsum[w] = (prev[w].0.add(q0), prev[w].1.add(q1));
                    }
                }
                let (cin0, cin1) = carry[s];
                let pc = &t.chunk_pow[(s * 33 + 1) * 4..(s * 33 + 2) * 4];
                let g = wsum[warps - 1];
                carry[s] = (
                    g.0.to_f64() + pc[0] * cin0 + pc[1] * cin1,
                    g.1.to_f64() + pc[2] * cin0 + pc[3] * cin1,
                );
                for th in 0..threads {
                    let (w, lane) = (th / 32, th % 32);
                    let wp = &t.warp_pow[s][w];
                    let mut t0 = wp[0] * cin0 + wp[1] * cin1;
                    let mut t1 = wp[2] * cin0 + wp[3] * cin1;
                    if w > 0 {
                        t0 += wsum[w - 1].0.to_f64();
                        t1 += wsum[w - 1].1.to_f64();
                    }
                    let (e0, e1) = if lane == 0 {
                        (A::ZERO, A::ZERO)
                    } else {
                        incl[th - 1]
                    };
                    let lp = &t.lane_pow[(s * 32 + lane) * 4..(s * 32 + lane + 1) * 4];
                    let (t0, t1) = (a(t0), a(t1));
                    let c0 = e0.add(a(lp[0]).mul(t0)).add(a(lp[1]).mul(t1));
                    let c1 = e1.add(a(lp[2]).mul(t0)).add(a(lp[3]).mul(t1));
                    let fp = t.f_peak[s];
                    let (m0, m1) = (c0.to_f64().abs(), c1.to_f64().abs());
                    pk.correction = pk.correction.max(m0 * fp[0] + m1 * fp[1]);
                    chunk_terms[th] = chunk_terms[th].max(m0 * fp[0] + m1 * fp[1]);
                    for i in 0..v {
                        let pos = th * v + i;
                        let f = (a(t.f[s][0][i]), a(t.f[s][1][i]));
                        buf[pos] = buf[pos].add(f.0.mul(c0).add(f.1.mul(c1)));
                    }
                    if let Some((at, z0, z1)) = cap[th] {
                        let (z0, z1) = (z0.to_f64(), z1.to_f64());
                        let (mut q0, mut q1) = (c0.to_f64(), c1.to_f64());
                        for _ in 0..=at {
                            let yv = q0;
                            q0 = -a1 * yv + q1;
                            q1 = -a2 * yv;
                        }
                        zf[(ch * ns + s) * 2] = T::from_f64(z0 + q0);
                        zf[(ch * ns + s) * 2 + 1] = T::from_f64(z1 + q1);
                    }
                }
            }
            pk.correction_sum += chunk_terms.iter().sum::<f64>() * v as f64;
            for i in 0..chunk.min(n - start) {
                pk.output = pk.output.max(peak_of::<A>(buf[i].to_f64(), false));
                pk.output_sum += buf[i].to_f64().abs();
                y[ch * n + start + i] = T::from_f64(buf[i].to_f64());
            }
        }
        if n == 0 {
            if let Some(z) = zi {
                zf[ch * ns * 2..(ch + 1) * ns * 2]
                    .copy_from_slice(&z[ch * ns * 2..(ch + 1) * ns * 2]);
            }
        }
    }
    (y, zf, peaks)
}

#[cfg(test)]
mod tests {
    use crate::gpu::sos_tables::SosConfig;
    use crate::testing::{
        sos_emulation_keeps_contract as emulation_keeps_contract, BUTTER8_0005, BUTTER8_01,
    };

    const SMALL: SosConfig = SosConfig {
        threads: 64,
        vpt: 8,
        force_look_back: false,
        min_blocks: 0,
        chunks_per_block: 1,
        wide: false,
    };

    /// The f64 kernel's peaks from the high word of |y|: the zero-state outputs' at or above
    /// |y|, the output's at or below, both within 2^-20 of it; zero stays zero; f32 exact.
    #[test]
    fn f64_peaks_bracket_the_value_within_the_high_word() {
        use super::peak_of;
        for y in [1.0, -3.75e-12, 0.1, -6.02e23, f64::MIN_POSITIVE, 1e-310] {
            let (up, down) = (peak_of::<f64>(y, true), peak_of::<f64>(y, false));
            assert!(down <= y.abs() && y.abs() <= up, "{y}: {down} {up}");
            assert!(
                up - down <= y.abs() * 2f64.powi(-20) + 1e-300,
                "{y}: {down} {up}"
            );
        }
        assert_eq!(peak_of::<f64>(0.0, true), 0.0);
        assert_eq!(peak_of::<f64>(-0.0, false), 0.0);
        assert_eq!(peak_of::<f32>(-0.1, true), 0.1);
    }

    #[test]
    fn emulated_kernel_matches_the_reference() {
        for (i, n) in [1usize, 2, 7, 511, 512, 513, 3 * 512 + 5, 20_011]
            .into_iter()
            .enumerate()
        {
            emulation_keeps_contract::<f32>(&BUTTER8_01, SMALL, 2, n, true, i as u64);
            emulation_keeps_contract::<f64>(&BUTTER8_01, SMALL, 2, n, i % 2 == 0, 100 + i as u64);
        }
        emulation_keeps_contract::<f32>(&BUTTER8_0005, SMALL, 1, 100_003, true, 7);
        emulation_keeps_contract::<f64>(&BUTTER8_0005, SMALL, 1, 100_003, true, 8);
        emulation_keeps_contract::<f32>(&BUTTER8_01, SosConfig::default(), 1, 70_001, false, 9);
    }

    #[test]
    fn warp_counts_that_are_not_powers_of_two_scan_fully() {
        // 10 and 3 warps, slow poles: every warp's aggregate reaches the later warps.
        for threads in [320, 96] {
            let config = SosConfig {
                threads,
                vpt: 8,
                ..SosConfig::default()
            };
            emulation_keeps_contract::<f64>(&BUTTER8_0005, config, 1, 40_007, true, 11);
            emulation_keeps_contract::<f32>(&BUTTER8_0005, config, 2, 30_011, false, 12);
        }
    }
}

//! The kernel's computation on the CPU, step for step in the same arithmetic: how the scheme
//! is tested without a GPU, and what a GPU run is compared with.

use super::tables::{scan_steps, SosTables};
use crate::elem::Element;

/// `m · (p0, p1)` for a row-major 2×2 matrix.
fn mv<T: Element>(m: &[T; 4], p0: T, p1: T) -> (T, T) {
    (
        m[0].mul(p0).add(m[1].mul(p1)),
        m[2].mul(p0).add(m[3].mul(p1)),
    )
}

/// The kernel's computation on the CPU, step for step in the same arithmetic (the chunk
/// chain serially instead of by look-back, which folds the same values): what the GPU
/// must reproduce up to rounding, and how its scheme is tested without one. `x` holds
/// `channels` channels one after another; zi / zf are [channel][section][2].
pub fn emulate<T: Element>(
    t: &SosTables<T>,
    x: &[T],
    channels: usize,
    zi: Option<&[T]>,
) -> (Vec<T>, Vec<T>) {
    let (v, threads, ns) = (t.config.vpt, t.config.threads, t.sections());
    let warps = threads / 32;
    let chunk = t.config.chunk();
    let n = x.len().checked_div(channels).unwrap_or(0);
    let mut y = x.to_vec();
    let mut zf = vec![T::ZERO; channels * ns * 2];
    for ch in 0..channels {
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
            let mut buf: Vec<T> = (0..chunk)
                .map(|i| {
                    if start + i < n {
                        y[ch * n + start + i]
                    } else {
                        T::ZERO
                    }
                })
                .collect();
            let last_chunk = start + chunk >= n;
            for (s, c) in t.coefs.iter().enumerate() {
                let (b0, b1, b2, a1, a2) = (c[0], c[1], c[2], c[4], c[5]);
                let mut agg = vec![(T::ZERO, T::ZERO); threads];
                let mut cap = vec![None; threads];
                for th in 0..threads {
                    let (mut d0, mut d1) = (T::ZERO, T::ZERO);
                    for i in 0..v {
                        let pos = th * v + i;
                        let u = buf[pos];
                        let yv = b0.mul(u).add(d0);
                        d0 = b1
                            .mul(u)
                            .add(T::ZERO.add(a1.mul(yv)).mul(T::from_f64(-1.0)))
                            .add(d1);
                        d1 = b2.mul(u).add(a2.mul(yv).mul(T::from_f64(-1.0)));
                        buf[pos] = yv;
                        if last_chunk && start + pos == n - 1 {
                            cap[th] = Some((i, d0, d1));
                        }
                    }
                    agg[th] = (d0, d1);
                }
                // warp scans
                let mut incl = agg.clone();
                for w in 0..warps {
                    for k in 0..5 {
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
                let mut wsum: Vec<(T, T)> = (0..warps).map(|w| incl[w * 32 + 31]).collect();
                for k in 0..scan_steps(warps) {
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
                    let (tw0, tw1) = (T::from_f64(t0), T::from_f64(t1));
                    let (e0, e1) = if lane == 0 {
                        (T::ZERO, T::ZERO)
                    } else {
                        incl[th - 1]
                    };
                    let lp = &t.lane_pow[(s * 32 + lane) * 4..(s * 32 + lane + 1) * 4];
                    let c0 = e0.add(lp[0].mul(tw0)).add(lp[1].mul(tw1));
                    let c1 = e1.add(lp[2].mul(tw0)).add(lp[3].mul(tw1));
                    for i in 0..v {
                        let pos = th * v + i;
                        buf[pos] = buf[pos].add(t.f[s][0][i].mul(c0).add(t.f[s][1][i].mul(c1)));
                    }
                    if let Some((at, z0, z1)) = cap[th] {
                        let (mut q0, mut q1) = (c0.to_f64(), c1.to_f64());
                        for _ in 0..=at {
                            let yv = q0;
                            q0 = -c[4].to_f64() * yv + q1;
                            q1 = -c[5].to_f64() * yv;
                        }
                        zf[(ch * ns + s) * 2] = T::from_f64(z0.to_f64() + q0);
                        zf[(ch * ns + s) * 2 + 1] = T::from_f64(z1.to_f64() + q1);
                    }
                }
            }
            for i in 0..chunk.min(n - start) {
                y[ch * n + start + i] = buf[i];
            }
        }
        if n == 0 {
            if let Some(z) = zi {
                zf[ch * ns * 2..(ch + 1) * ns * 2]
                    .copy_from_slice(&z[ch * ns * 2..(ch + 1) * ns * 2]);
            }
        }
    }
    (y, zf)
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
    };

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

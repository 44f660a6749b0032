//! The frame chain of one simulation point, defined so that a CPU and a GPU make the same
//! frame bit for bit: information bits from a counter-based generator keyed by (seed, SNR,
//! frame) ([`super::philox`]), the staircase encoder (XOR), the bit interleaver (a
//! permutation), the constellation (a table of levels computed once on the host), Gaussian
//! noise by Box–Muller and the demapper's log-sum-exp, both from [`super::portable`]
//! (IEEE basic operations only, no libm), and the LLR rounded once to f32.
//!
//! [`FramePlan`] is the CPU twin; `kernels/ldpc_chain.cu` ([`crate::gpu::GpuFrameChain`]) is
//! the same computation on the GPU, one block per frame. Frame f depends on nothing but the
//! plan and f, so frames are the same whatever the batch, thread count, device or rank.
//!
//! Per frame: information bit i is bit (i mod 32) of word (i mod 128) / 32 of the
//! information stream's draw i / 128. Symbol s (bits s·η … s·η + η − 1 of the interleaved
//! stream, η bits per symbol) takes the noise stream's draw s: two Gaussian samples g₀, g₁
//! ([`portable::gauss_pair`]); axis a of the symbol carries the symbol's bits a, a + 2, … (the
//! first most significant) as level `levels[v]` and receives y = level + σ·g_a. Bit j of the
//! axis gets the LLR max₀ + ln(1 + Σ₀) − (max₁ + ln(1 + Σ₁)), max_b the largest metric
//! −(y − x)²/(2σ²) over the levels x whose bit j is b (the first one in table order) and Σ_b
//! the sum of exp(metric − max_b) over the others in table order (max-log: the maxima only).

use super::philox::{self, STREAM_INFO, STREAM_NOISE};
use super::portable;
use super::Link;
use crate::channel::{Channel, Demapper, Modulation};
use crate::code::Code;
use crate::encode::Encoder;
use crate::error::Result;
use crate::interleave::BitInterleaver;

/// One point's chain: everything a frame depends on besides its index.
pub struct FramePlan<'c> {
    /// The code.
    pub code: &'c Code,
    /// The link (constellation, demapper, interleaver, seed).
    pub link: Link,
    /// The point's Es/N0 in dB.
    pub es_n0_db: f64,
    /// Noise standard deviation per real dimension, √(N0/2).
    pub sigma: f64,
    /// 1/(2σ²): the metric −(y − x)² · `metric_scale`.
    pub metric_scale: f64,
    /// The level of each bit pattern of one axis (first bit most significant), with unit mean
    /// symbol energy.
    pub levels: Vec<f64>,
    /// The bit interleaver of the code and constellation.
    pub interleaver: BitInterleaver,
    encoder: Encoder<'c>,
}

impl<'c> FramePlan<'c> {
    /// The plan of `code` over `link` at `es_n0_db`.
    pub fn new(code: &'c Code, link: &Link, es_n0_db: f64) -> Result<FramePlan<'c>> {
        let channel = Channel::new(link.modulation, link.demapper, es_n0_db)?;
        let sigma2 = channel.sigma2();
        let m = link.modulation;
        Ok(FramePlan {
            code,
            link: *link,
            es_n0_db,
            sigma: sigma2.sqrt(),
            metric_scale: 1.0 / (2.0 * sigma2),
            levels: (0..1usize << m.bits_per_axis())
                .map(|b| m.axis_level(b))
                .collect(),
            interleaver: BitInterleaver::new(code, m, link.interleaving)?,
            encoder: Encoder::new(code)?,
        })
    }

    /// The generator key of frame `frame`.
    pub fn key(&self, frame: u64) -> [u32; 2] {
        philox::frame_key(self.link.seed, self.es_n0_db, frame)
    }

    /// Axes per symbol: 1 for BPSK, else 2.
    pub fn axes(&self) -> usize {
        axes(self.link.modulation)
    }

    /// The information bits of frame `frame` (K, 0 or 1 per byte).
    pub fn info_bits(&self, frame: u64, info: &mut [u8]) {
        let key = self.key(frame);
        for (c, chunk) in info.chunks_mut(128).enumerate() {
            let words = philox::draw(key, STREAM_INFO, c as u64);
            for (i, b) in chunk.iter_mut().enumerate() {
                *b = ((words[i / 32] >> (i % 32)) & 1) as u8;
            }
        }
    }

    /// Frame `frame`: its information bits (K) and channel LLRs (N, codeword order).
    /// `word` and `stream` are scratch of N bytes.
    pub fn make_frame(
        &self,
        frame: u64,
        info: &mut [u8],
        llr: &mut [f32],
        word: &mut [u8],
        stream: &mut [u8],
    ) {
        self.info_bits(frame, info);
        self.encoder
            .encode(info, word)
            .expect("lengths are the code's");
        self.interleaver.interleave(word, stream);
        let key = self.key(frame);
        let m = self.link.modulation;
        let (bps, per_axis, axes) = (m.bits_per_symbol(), m.bits_per_axis(), self.axes());
        let perm = self.interleaver.perm();
        let n = stream.len();
        let mut out = [0f64; 8];
        for s in 0..n.div_ceil(bps) {
            let (g0, g1) = portable::gauss_pair(philox::draw(key, STREAM_NOISE, s as u64));
            for (axis, g) in [g0, g1].into_iter().enumerate().take(axes) {
                let bit = |j: usize| s * bps + axis + axes * j;
                let v = (0..per_axis).fold(0usize, |v, j| {
                    (v << 1) | stream.get(bit(j)).copied().unwrap_or(0) as usize
                });
                let y = self.levels[v] + self.sigma * g;
                demap_axis(
                    y,
                    &self.levels,
                    self.metric_scale,
                    self.link.demapper,
                    &mut out[..per_axis],
                );
                for (j, &l) in out[..per_axis].iter().enumerate() {
                    if let Some(&p) = perm.get(bit(j)) {
                        llr[p as usize] = l as f32;
                    }
                }
            }
        }
    }
}

/// Axes per symbol of `m`: 1 for BPSK, else 2.
pub fn axes(m: Modulation) -> usize {
    if m == Modulation::Bpsk {
        1
    } else {
        2
    }
}

/// The LLRs of the bits of one axis value `y` (first bit first) as the module documentation
/// defines them; the kernel's `demap_axis` is the same.
pub fn demap_axis(y: f64, levels: &[f64], metric_scale: f64, demapper: Demapper, out: &mut [f64]) {
    let bits = out.len();
    let mut metric = [0f64; 16];
    for (m, &x) in metric.iter_mut().zip(levels) {
        let d = y - x;
        *m = -(d * d) * metric_scale;
    }
    let metric = &metric[..levels.len()];
    for (j, out) in out.iter_mut().enumerate() {
        let mask = 1 << (bits - 1 - j);
        let mut half = [0f64; 2];
        for (b, h) in half.iter_mut().enumerate() {
            let member = |l: usize| ((l & mask) != 0) as usize == b;
            // The first largest metric of the set ...
            let mut best = usize::MAX;
            for (l, &m) in metric.iter().enumerate() {
                if member(l) && (best == usize::MAX || m > metric[best]) {
                    best = l;
                }
            }
            let hi = metric[best];
            *h = match demapper {
                Demapper::MaxLog => hi,
                Demapper::Exact => {
                    // ... plus ln(1 + Σ e^(m − max)) over the others, in table order.
                    let mut sum = 0.0;
                    for (l, &m) in metric.iter().enumerate() {
                        if member(l) && l != best {
                            sum += portable::exp(m - hi);
                        }
                    }
                    if sum > 0.0 {
                        hi + portable::ln_1p(sum)
                    } else {
                        hi
                    }
                }
            };
        }
        *out = half[0] - half[1];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interleave::Interleaving;

    fn plan(code: &Code, m: Modulation, d: Demapper, es: f64) -> FramePlan<'_> {
        let link = Link {
            modulation: m,
            demapper: d,
            interleaving: Interleaving::default_for(code),
            seed: 11,
        };
        FramePlan::new(code, &link, es).unwrap()
    }

    #[test]
    fn the_portable_demapper_matches_the_libm_one() {
        // The channel's own demapper (libm, pairwise log-add) to 1e-12 relative.
        for m in Modulation::ALL {
            for d in [Demapper::Exact, Demapper::MaxLog] {
                for es in [-3.0, 2.0, 10.0] {
                    let ch = Channel::new(m, d, es).unwrap();
                    let code = Code::standard("dvbt2-short-1/2").unwrap();
                    let p = plan(&code, m, d, es);
                    let bits = m.bits_per_axis();
                    let (mut a, mut b) = ([0f64; 8], [0f64; 8]);
                    for i in -300..=300 {
                        let y = i as f64 / 150.0;
                        ch.demap_axis(y, &mut a[..bits]);
                        demap_axis(y, &p.levels, p.metric_scale, d, &mut b[..bits]);
                        for (x, z) in a[..bits].iter().zip(&b[..bits]) {
                            assert!(
                                (x - z).abs() <= 1e-12 * x.abs().max(1.0),
                                "{m:?} {d:?} {es} {y}: {x} vs {z}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn codewords_are_codewords_and_info_bits_are_fair() {
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        let p = plan(&code, Modulation::Qam16, Demapper::Exact, 40.0);
        let (n, k) = (code.n(), code.k());
        let (mut info, mut llr) = (vec![0u8; k], vec![0f32; n]);
        let (mut word, mut stream) = (vec![0u8; n], vec![0u8; n]);
        let mut ones = 0;
        for f in 0..20 {
            p.make_frame(f, &mut info, &mut llr, &mut word, &mut stream);
            ones += info.iter().map(|&b| b as usize).sum::<usize>();
            // At 40 dB the hard decisions are the codeword, which satisfies every check.
            let hard: Vec<u8> = llr.iter().map(|&l| (l < 0.0) as u8).collect();
            assert_eq!(hard, word, "frame {f}");
            assert!(code.is_codeword(&hard), "frame {f}");
        }
        let frac = ones as f64 / (20 * k) as f64;
        assert!((frac - 0.5).abs() < 0.01, "{frac}");
    }

    /// The noise the chain adds, y − level, recovered from QPSK LLRs (LLR = 2·level·y/σ²
    /// for the exact demapper): mean 0, variance σ², and its distribution Gaussian by a
    /// Kolmogorov–Smirnov test against Φ.
    #[test]
    fn the_noise_is_gaussian_with_the_right_variance() {
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        let link = Link::qpsk(3);
        let es = 3.0;
        let p = FramePlan::new(&code, &link, es).unwrap();
        let (n, k) = (code.n(), code.k());
        let (mut info, mut llr) = (vec![0u8; k], vec![0f32; n]);
        let (mut word, mut stream) = (vec![0u8; n], vec![0u8; n]);
        let a = p.levels[0];
        let sigma2 = p.sigma * p.sigma;
        let mut z = Vec::new();
        for f in 0..8 {
            p.make_frame(f, &mut info, &mut llr, &mut word, &mut stream);
            for (&l, &b) in llr.iter().zip(&word) {
                let y = l as f64 * sigma2 / (2.0 * a);
                let level = if b == 0 { a } else { -a };
                z.push((y - level) / p.sigma);
            }
        }
        let count = z.len() as f64;
        let mean = z.iter().sum::<f64>() / count;
        let var = z.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (count - 1.0);
        // 129,600 samples: the mean within 5 σ/√n, the variance within 5 √(2/n).
        assert!(mean.abs() < 5.0 / count.sqrt(), "mean {mean}");
        assert!(
            (var - 1.0).abs() < 5.0 * (2.0 / count).sqrt(),
            "variance {var}"
        );
        // KS: D·√n below 1.95 (the 0.1% critical value is 1.95).
        use statrs::distribution::{ContinuousCDF, Normal};
        let phi = Normal::new(0.0, 1.0).unwrap();
        z.sort_by(f64::total_cmp);
        let mut d: f64 = 0.0;
        for (i, &x) in z.iter().enumerate() {
            let c = phi.cdf(x);
            d = d
                .max((c - i as f64 / count).abs())
                .max(((i + 1) as f64 / count - c).abs());
        }
        assert!(d * count.sqrt() < 1.95, "KS statistic {}", d * count.sqrt());
        // A chi-square over 20 equiprobable bins: below 45.3 (19 degrees of freedom, 0.1%).
        let mut bins = [0f64; 20];
        for &x in &z {
            bins[((phi.cdf(x) * 20.0) as usize).min(19)] += 1.0;
        }
        let e = count / 20.0;
        let chi2: f64 = bins.iter().map(|o| (o - e) * (o - e) / e).sum();
        assert!(chi2 < 45.3, "chi-square {chi2}");
    }
}

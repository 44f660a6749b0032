//! Error-rate simulation of one NR code block over AWGN: random k-bit words, the encoder,
//! rate matching for each redundancy version sent, the bit interleaver of §5.4.2.2, a
//! 38.211 constellation over AWGN or Rayleigh block fading and its demapper, de-interleaving, de-rate-matching with HARQ combining of
//! every version, and any [`Decoder`] of [`NrCode::decoding_code`]. Counts errors over the k bits.
//!
//! Frame f draws its bits and noise from a ChaCha8 generator seeded by (seed, Es/N0, f), so a
//! point's counts do not depend on the batch size.

use super::code::NrCode;
use super::modulation::{Fading, NrChannel, NrModulation};
use super::rate_match::{deinterleave, interleave};
use crate::channel::Demapper;
use crate::code::Code;
use crate::decoder::{Decoder, Llrs};
use crate::error::{LdpcError, Result};
use crate::sim::{wilson, Frames};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What one point sends.
#[derive(Clone, Debug)]
pub struct NrLink {
    /// The TS 38.211 constellation (Q_m bits per symbol; the §5.4.2.2 interleaver uses it).
    pub modulation: NrModulation,
    /// AWGN, or Rayleigh block fading (one coefficient per transmission of a block).
    pub fading: Fading,
    /// The demapper.
    pub demapper: Demapper,
    /// The redundancy versions sent, each n bits, their LLRs combined before decoding.
    pub rvs: Vec<u8>,
    /// Seed of the bits and the noise.
    pub seed: u64,
}

/// The counts of one point.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NrPoint {
    /// Es/N0 per transmitted symbol, dB.
    pub es_n0_db: f64,
    /// Frames (code blocks) decoded.
    pub frames: u64,
    /// Frames with at least one wrong bit among the k.
    pub frame_errors: u64,
    /// Wrong bits among the k of every frame.
    pub bit_errors: u64,
    /// Frame error rate (BLER).
    pub fer: f64,
    /// Bit error rate over the k bits.
    pub ber: f64,
    /// 95% Wilson interval of the FER.
    pub fer_ci: [f64; 2],
    /// Mean decoder iterations per frame.
    pub mean_iterations: f64,
}

/// The frames `first .. first + count` of a point: the k bits of each and the full-length
/// LLRs (HARQ-combined) the decoder takes.
pub fn nr_frames(
    code: &NrCode,
    link: &NrLink,
    channel: &NrChannel,
    first: u64,
    count: usize,
) -> Result<(Vec<u8>, Vec<f32>)> {
    let (k, n, full) = (code.k(), code.n(), code.code().n());
    let qm = link.modulation.qm();
    if !n.is_multiple_of(qm) {
        return Err(LdpcError::invalid(format!(
            "n = {n} is not a multiple of Q_m = {qm} ({}): give n a multiple of {qm}",
            link.modulation.name()
        )));
    }
    let mut bits = vec![0u8; count * k];
    let mut llrs = vec![0f32; count * full];
    let (mut f, mut rx, mut e) = (vec![0u8; n], vec![0f32; n], vec![0f32; n]);
    for (i, (b, out)) in bits
        .chunks_exact_mut(k)
        .zip(llrs.chunks_exact_mut(full))
        .enumerate()
    {
        let mut rng =
            ChaCha8Rng::seed_from_u64(frame_seed(link.seed, channel.es_n0_db(), first + i as u64));
        b.iter_mut().for_each(|x| *x = rng.random_range(0..2));
        let word = code.encode_full(b)?;
        let mut sent = vec![0u8; n];
        for &rv in &link.rvs {
            code.rate_match().select(&word, rv, &mut sent)?;
            interleave(&sent, qm, &mut f)?;
            channel.transmit(&f, &mut rx, &mut rng)?;
            deinterleave(&rx, qm, &mut e)?;
            code.rate_match().combine(&e, rv, out)?;
        }
        code.rate_match().set_filler(out);
    }
    Ok((bits, llrs))
}

fn frame_seed(seed: u64, es_n0_db: f64, frame: u64) -> u64 {
    let mix = |x: u64| {
        let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    mix(mix(mix(seed) ^ es_n0_db.to_bits()) ^ frame)
}

/// Simulates one point at `es_n0_db` until `min_errors` frames failed or `max_frames` ran,
/// decoding `batch` frames per call (the stop falls on a batch boundary).
pub fn simulate_point(
    code: &NrCode,
    link: &NrLink,
    decoder: &mut dyn Decoder,
    es_n0_db: f64,
    min_errors: u64,
    max_frames: u64,
    batch: usize,
) -> Result<NrPoint> {
    if link.rvs.is_empty() {
        return Err(LdpcError::invalid(
            "no redundancy version to send: give at least one rv",
        ));
    }
    if let Some(&rv) = link.rvs.iter().find(|&&rv| rv > 3) {
        return Err(LdpcError::invalid(format!(
            "redundancy version {rv}: rv is 0, 1, 2 or 3"
        )));
    }
    let used = code.check_decoder(decoder, &link.rvs)?;
    let channel = NrChannel::new(link.modulation, link.demapper, link.fading, es_n0_db)?;
    let (k, full) = (code.k(), code.code().n());
    let (mut frames, mut frame_errors, mut bit_errors, mut iterations) = (0u64, 0u64, 0u64, 0usize);
    let mut hard = Vec::new();
    while frame_errors < min_errors && frames < max_frames {
        let count = batch.max(1).min((max_frames - frames) as usize);
        let (bits, llrs) = nr_frames(code, link, &channel, frames, count)?;
        // The decoder runs the code cut to the rows these versions reach (NrCode::decoding_code).
        let cut: Vec<f32> = (llrs.chunks_exact(full))
            .flat_map(|w| &w[..used])
            .copied()
            .collect();
        hard.resize(count * used, 0);
        let stats = decoder.decode(Llrs::F32(&cut), &mut hard)?;
        iterations += stats.iterations;
        for (word, b) in hard.chunks_exact(used).zip(bits.chunks_exact(k)) {
            let wrong = word[..k].iter().zip(b).filter(|(x, y)| x != y).count() as u64;
            bit_errors += wrong;
            frame_errors += u64::from(wrong > 0);
        }
        frames += count as u64;
    }
    Ok(NrPoint {
        es_n0_db,
        frames,
        frame_errors,
        bit_errors,
        fer: frame_errors as f64 / frames.max(1) as f64,
        ber: bit_errors as f64 / (frames.max(1) * k as u64) as f64,
        fer_ci: wilson(frame_errors, frames),
        mean_iterations: iterations as f64 / frames.max(1) as f64,
    })
}

/// A 5G NR code block and its link as a resumable sweep runs them
/// ([`crate::sim::sweep::SweepSpec::nr`]): the sweep's decoders run
/// [`NrSweep::decoding_code`], its frames are [`nr_frames`], its rate is k / n.
#[derive(Clone, Debug)]
pub struct NrSweep {
    /// The code block (k, n, base graph, rate matching).
    pub code: NrCode,
    /// What each frame sends.
    pub link: NrLink,
}

/// What a sweep file records of an NR run, beside the code's name: a file is resumed only by a
/// run whose key is the same in every field (a changed k, n, base graph, Z, buffer, rv list,
/// constellation or fading refuses to resume).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NrSweepKey {
    /// Information bits per block (K').
    pub k: usize,
    /// Bits sent per redundancy version (E).
    pub n: usize,
    /// The base graph, 1 or 2.
    pub bg: u8,
    /// The lifting size.
    pub z: usize,
    /// The circular buffer's length N_cb.
    pub n_cb: usize,
    /// The redundancy versions sent and combined.
    pub rvs: Vec<u8>,
    /// Bits per symbol (Q_m of the §5.4.2.2 interleaver).
    pub qm: usize,
    /// The TS 38.211 constellation.
    pub modulation: String,
    /// `awgn` or `rayleigh-block`.
    pub fading: String,
}

impl NrSweep {
    /// Refuses a link no point could run: no rv, an rv beyond 3, n not a multiple of Q_m.
    pub fn check(&self) -> Result<()> {
        if self.link.rvs.is_empty() {
            return Err(LdpcError::invalid(
                "no redundancy version to send: give at least one rv",
            ));
        }
        if let Some(&rv) = self.link.rvs.iter().find(|&&rv| rv > 3) {
            return Err(LdpcError::invalid(format!(
                "redundancy version {rv}: rv is 0, 1, 2 or 3"
            )));
        }
        let (n, qm) = (self.code.n(), self.link.modulation.qm());
        if !n.is_multiple_of(qm) {
            return Err(LdpcError::invalid(format!(
                "n = {n} is not a multiple of Q_m = {qm} ({}): give n a multiple of {qm}",
                self.link.modulation.name()
            )));
        }
        Ok(())
    }

    /// The code the sweep's decoders run ([`NrCode::decoding_code`] of the rvs sent).
    pub fn decoding_code(&self) -> Result<Code> {
        self.code.decoding_code(&self.link.rvs)
    }

    /// k / n: the rate Eb/N0 is counted with (per transmission).
    pub fn rate(&self) -> f64 {
        self.code.rate()
    }

    /// The file's record of this run.
    pub fn key(&self) -> NrSweepKey {
        NrSweepKey {
            k: self.code.k(),
            n: self.code.n(),
            bg: self.code.graph().number(),
            z: self.code.z(),
            n_cb: self.code.rate_match().n_cb(),
            rvs: self.link.rvs.clone(),
            qm: self.link.modulation.qm(),
            modulation: self.link.modulation.name().to_owned(),
            fading: match self.link.fading {
                Fading::Awgn => "awgn",
                Fading::RayleighBlock => "rayleigh-block",
            }
            .to_owned(),
        }
    }

    /// Frames `first .. first + count` at `es_n0_db` over `threads` threads: the k bits of
    /// each and its LLRs cut to the first `used` bits (the decoding code's).
    pub fn frames(
        &self,
        es_n0_db: f64,
        first: u64,
        count: usize,
        used: usize,
        threads: usize,
    ) -> Result<Frames> {
        let channel = NrChannel::new(
            self.link.modulation,
            self.link.demapper,
            self.link.fading,
            es_n0_db,
        )?;
        let (k, full) = (self.code.k(), self.code.code().n());
        let chunk = count.div_ceil(threads.clamp(1, count.max(1))).max(1);
        let parts: Vec<Result<(Vec<u8>, Vec<f32>)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..count)
                .step_by(chunk)
                .map(|at| {
                    let channel = &channel;
                    let c = chunk.min(count - at);
                    s.spawn(move || {
                        nr_frames(&self.code, &self.link, channel, first + at as u64, c)
                    })
                })
                .collect();
            (handles.into_iter())
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(LdpcError::invalid("a frame maker panicked")))
                })
                .collect()
        });
        let mut frames = Frames {
            info: Vec::with_capacity(count * k),
            llr: Vec::with_capacity(count * used),
        };
        for part in parts {
            let (bits, llrs) = part?;
            frames.info.extend(bits);
            (llrs.chunks_exact(full)).for_each(|w| frames.llr.extend_from_slice(&w[..used]));
        }
        Ok(frames)
    }
}

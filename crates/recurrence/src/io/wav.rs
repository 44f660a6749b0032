//! WAV audio as a signal: PCM 8/16/24/32-bit or 32-bit float samples of any channel count,
//! read as frames × channels in f64 scaled to [-1, 1), and written back in the same sample
//! format (integer PCM rounded and clipped to its range, the clipped samples counted).

use super::signal::{Format, SignalFile};
use crate::elem::{to_le_bytes, DType, Element};
use crate::error::FilterError;

fn bad(e: impl std::fmt::Display) -> FilterError {
    FilterError::Input(e.to_string())
}

/// The scale of an integer PCM sample: 2^(bits − 1).
fn scale(spec: hound::WavSpec) -> f64 {
    2f64.powi(spec.bits_per_sample as i32 - 1)
}

/// A whole WAV file's bytes as a signal of frames × channels.
pub(super) fn read(bytes: Vec<u8>) -> Result<SignalFile, FilterError> {
    let mut reader = hound::WavReader::new(std::io::Cursor::new(bytes))
        .map_err(|e| bad(format!("not a WAV file hound can read ({e})")))?;
    let spec = reader.spec();
    let values: Vec<f64> = match spec.sample_format {
        hound::SampleFormat::Float => reader
            .samples::<f32>()
            .map(|s| s.map(f64::from))
            .collect::<Result<_, _>>()
            .map_err(bad)?,
        hound::SampleFormat::Int => reader
            .samples::<i32>()
            .map(|s| s.map(|v| v as f64 / scale(spec)))
            .collect::<Result<_, _>>()
            .map_err(bad)?,
    };
    let channels = spec.channels as usize;
    Ok(SignalFile {
        format: Format::Wav,
        dtype: DType::F64,
        shape: vec![values.len() / channels.max(1), channels],
        bytes: to_le_bytes(&values),
        wav: Some(spec),
    })
}

/// `y` as a WAV file of sample format `spec`; returns the bytes and the clipped samples.
pub(super) fn write<T: Element>(
    spec: hound::WavSpec,
    y: &[T],
) -> Result<(Vec<u8>, usize), FilterError> {
    let mut bytes = Vec::new();
    let mut clipped = 0;
    {
        let mut w = hound::WavWriter::new(std::io::Cursor::new(&mut bytes), spec).map_err(bad)?;
        match spec.sample_format {
            hound::SampleFormat::Float => {
                for v in y {
                    w.write_sample(v.to_f64() as f32).map_err(bad)?;
                }
            }
            hound::SampleFormat::Int => {
                let (lo, hi) = (-scale(spec), scale(spec) - 1.0);
                for v in y {
                    let s = (v.to_f64() * scale(spec)).round();
                    if s < lo || s > hi {
                        clipped += 1;
                    }
                    w.write_sample(s.clamp(lo, hi) as i32).map_err(bad)?;
                }
            }
        }
        w.finalize().map_err(bad)?;
    }
    Ok((bytes, clipped))
}

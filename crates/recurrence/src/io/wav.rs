//! WAV audio as a signal: PCM 8/16/24/32-bit or 32-bit float samples of any channel count,
//! read as frames × channels, and written back in the same sample format (integer PCM rounded
//! and clipped to its range, the clipped samples counted). Samples are f64 scaled to [-1, 1),
//! except integer PCM filtered in an integer type (`--dtype i32` / `i64`), which is read as
//! its integer values and written back as such: scaling would turn every sample into a
//! fraction that an integer truncates to 0.

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

/// A header hound accepts that describes no audio: no channels, or a sample rate of 0 (the
/// writer would divide by it).
fn check_spec(spec: hound::WavSpec) -> Result<(), FilterError> {
    if spec.channels == 0 {
        return Err(bad("the WAV header gives 0 channels: it holds no audio"));
    }
    if spec.sample_rate == 0 {
        return Err(bad(
            "the WAV header gives a sample rate of 0 Hz: not a playable file (fix the header, \
             or convert the samples to .npy)",
        ));
    }
    Ok(())
}

/// A whole WAV file's bytes as a signal of frames × channels; `dtype` is the type asked for
/// the filtering (`--dtype`): an integer type reads integer PCM as its integer values.
pub(super) fn read(bytes: Vec<u8>, dtype: Option<DType>) -> Result<SignalFile, FilterError> {
    let mut reader = hound::WavReader::new(std::io::Cursor::new(bytes))
        .map_err(|e| bad(format!("not a WAV file hound can read ({e})")))?;
    let spec = reader.spec();
    check_spec(spec)?;
    let integers = dtype.is_some_and(|d| !d.is_float());
    let (dtype, bytes) = match spec.sample_format {
        hound::SampleFormat::Float if integers => {
            return Err(bad(format!(
                "holds 32-bit float samples, fractions of full scale that --dtype {} would \
                 truncate to 0: filter it in f32 or f64",
                dtype.unwrap_or(DType::I32)
            )))
        }
        hound::SampleFormat::Float => {
            let values: Vec<f64> = reader
                .samples::<f32>()
                .map(|s| s.map(f64::from))
                .collect::<Result<_, _>>()
                .map_err(bad)?;
            (DType::F64, to_le_bytes(&values))
        }
        hound::SampleFormat::Int if integers => {
            let values: Vec<i32> = reader
                .samples::<i32>()
                .collect::<Result<_, _>>()
                .map_err(bad)?;
            (DType::I32, to_le_bytes(&values))
        }
        hound::SampleFormat::Int => {
            let values: Vec<f64> = reader
                .samples::<i32>()
                .map(|s| s.map(|v| v as f64 / scale(spec)))
                .collect::<Result<_, _>>()
                .map_err(bad)?;
            (DType::F64, to_le_bytes(&values))
        }
    };
    let channels = spec.channels as usize;
    let samples = bytes.len() / dtype.size();
    Ok(SignalFile {
        format: Format::Wav,
        dtype,
        shape: vec![samples / channels, channels],
        bytes,
        wav: Some(spec),
    })
}

/// `y` as a WAV file of sample format `spec`; returns the bytes and the clipped samples.
/// `integers`: `y` holds integer PCM values (read unscaled), not samples in [-1, 1).
pub(super) fn write<T: Element>(
    spec: hound::WavSpec,
    integers: bool,
    y: &[T],
) -> Result<(Vec<u8>, usize), FilterError> {
    check_spec(spec)?;
    let unit = if integers { 1.0 } else { scale(spec) };
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
                    let s = (v.to_f64() * unit).round();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elem::from_le_bytes;

    fn pcm16(samples: &[i16], rate: u32) -> (hound::WavSpec, Vec<u8>) {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut bytes = Vec::new();
        let mut w = hound::WavWriter::new(std::io::Cursor::new(&mut bytes), spec).unwrap();
        samples.iter().for_each(|&s| w.write_sample(s).unwrap());
        w.finalize().unwrap();
        (spec, bytes)
    }

    /// `--dtype i32` on PCM16: the integer values, written back unchanged (scaled to [-1, 1)
    /// and truncated they were all 0: silence).
    #[test]
    fn integer_pcm_in_an_integer_type_keeps_its_values() {
        let x = [1000i16, -2000, 32767, -32768, 0, 7];
        let (spec, bytes) = pcm16(&x, 8000);
        let file = read(bytes.clone(), Some(DType::I32)).unwrap();
        assert_eq!(
            (file.dtype, file.shape.as_slice()),
            (DType::I32, &[6usize, 1][..])
        );
        let values: Vec<i32> = from_le_bytes(&file.bytes);
        assert_eq!(values, x.map(i32::from));
        let (out, clipped) = write(spec, true, &values).unwrap();
        assert_eq!((out, clipped), (bytes.clone(), 0));
        // Doubled, the two full-scale samples clip and are counted.
        let doubled: Vec<i64> = values.iter().map(|&v| 2 * v as i64).collect();
        assert_eq!(write(spec, true, &doubled).unwrap().1, 2);
        // In f64 the samples are scaled to [-1, 1) and scaled back on writing.
        let scaled = read(bytes.clone(), Some(DType::F64)).unwrap();
        let values: Vec<f64> = from_le_bytes(&scaled.bytes);
        assert_eq!(values[0], 1000.0 / 32768.0);
        assert_eq!(write(spec, false, &values).unwrap().0, bytes);
    }

    #[test]
    fn float_wav_in_an_integer_type_and_headerless_audio_are_refused() {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: 8000,
            bits_per_sample: 32,
            sample_format: hound::SampleFormat::Float,
        };
        let mut bytes = Vec::new();
        let mut w = hound::WavWriter::new(std::io::Cursor::new(&mut bytes), spec).unwrap();
        w.write_sample(0.5f32).unwrap();
        w.finalize().unwrap();
        let e = read(bytes, Some(DType::I64)).unwrap_err().to_string();
        assert!(
            e.contains("float samples") && e.contains("f32 or f64"),
            "{e}"
        );
        // The sample rate and byte rate (bytes 24..32 of the canonical header) set to 0.
        let (_, mut bytes) = pcm16(&[1, 2, 3], 8000);
        assert_eq!(&bytes[24..28], 8000u32.to_le_bytes());
        bytes[24..32].copy_from_slice(&[0; 8]);
        let e = read(bytes, None).unwrap_err().to_string();
        assert!(e.contains("sample rate of 0 Hz"), "{e}");
    }
}

//! Signal files as `sigpu filter` takes them: `.npy` of any shape, raw little-endian values
//! (channels one after another), or WAV (PCM 8/16/24/32-bit or 32-bit float, read as
//! frames × channels scaled to [-1, 1)); written back in the input's format. And the small
//! arrays given beside a signal (zi, sections): a file, or comma-separated values.

use super::{encode, parse, read, Array};
use crate::elem::{from_le_bytes, to_le_bytes, DType, Element};
use crate::error::FilterError;
use std::path::Path;

/// A signal file's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// NumPy `.npy`.
    Npy,
    /// Raw little-endian values.
    Raw,
    /// WAV audio.
    Wav,
}

impl Format {
    /// `given` (`npy`, `raw`, `wav`), else by the extension of `path`: `.npy`, `.wav`, raw
    /// otherwise; `-` (a stream) is `.npy`.
    pub fn of(path: &Path, given: Option<&str>) -> Format {
        match given {
            Some("raw") => Format::Raw,
            Some("wav") => Format::Wav,
            Some(_) => Format::Npy,
            None if path == Path::new("-") => Format::Npy,
            None => match path.extension().and_then(|e| e.to_str()) {
                Some(e) if e.eq_ignore_ascii_case("npy") => Format::Npy,
                Some(e) if e.eq_ignore_ascii_case("wav") => Format::Wav,
                _ => Format::Raw,
            },
        }
    }
}

/// Extensions of text formats: an output named so is refused, not filled with binary data.
const TEXT_EXTENSIONS: &[&str] = &["txt", "csv", "tsv", "json", "text"];

impl Format {
    /// The format an output file is written in: the one its extension names (`.npy`, `.wav`),
    /// else the input's (`-`, a name without a known extension); with `given` (`--format`),
    /// that one. Refused, with the reason: a text extension (`.txt`, `.csv`, …: sigpu writes
    /// binary arrays only), an extension naming another format than `given`, and WAV from
    /// an input that is not WAV (no sample rate or sample format to write).
    pub fn of_output(path: &Path, given: Option<&str>, input: Format) -> Result<Format, String> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let named = match ext.as_deref() {
            Some("npy") => Some(Format::Npy),
            Some("wav") => Some(Format::Wav),
            Some(e) if TEXT_EXTENSIONS.contains(&e) => {
                return Err(format!(
                    "{} names a text file, but sigpu writes binary arrays only (.npy, WAV or \
                     raw values): name it .npy (numpy.load reads it) and convert it from there",
                    path.display()
                ))
            }
            _ => None,
        };
        let format = match (given, named) {
            (Some(g), Some(n)) if Format::of(path, Some(g)) != n => {
                return Err(format!(
                    "--format {g} is asked but the name {} says {}: give the file a name that \
                     matches its format",
                    path.display(),
                    n.name()
                ))
            }
            (Some(g), _) => Format::of(path, Some(g)),
            (None, Some(n)) => n,
            (None, None) => input,
        };
        if format == Format::Wav && input != Format::Wav {
            return Err(format!(
                "{} would be WAV, which needs a sample rate and a sample format; the {} input \
                 has neither: write .npy (or raw values) and convert it to audio from there",
                path.display(),
                input.name()
            ));
        }
        Ok(format)
    }

    /// The format a filter's final state (zf) is written in beside an output in `output`:
    /// `.npy` when the name says so or the output is not raw, raw values beside raw output.
    /// A state is no audio and no text: `.wav` and text extensions are refused.
    pub fn of_state(path: &Path, output: Format) -> Result<Format, String> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("npy") => Ok(Format::Npy),
            Some(e) if e == "wav" || TEXT_EXTENSIONS.contains(&e) => Err(format!(
                "{} names a {} file, but a filter state is written as .npy (or raw values \
                 beside raw output): name it .npy",
                path.display(),
                if e == "wav" { "WAV" } else { "text" }
            )),
            _ if output == Format::Raw => Ok(Format::Raw),
            _ => Ok(Format::Npy),
        }
    }

    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Npy => ".npy",
            Format::Raw => "raw",
            Format::Wav => "WAV",
        }
    }
}

/// A signal as read: its format, element type, shape and little-endian values (WAV:
/// frames × channels, f64 samples scaled to [-1, 1), or the integer PCM values themselves when
/// an integer `--dtype` is asked) and, for WAV, the sample format to write back.
#[derive(Clone, Debug)]
pub struct SignalFile {
    /// The file's format.
    pub format: Format,
    /// The element type of `bytes`.
    pub dtype: DType,
    /// The array's shape (C order).
    pub shape: Vec<usize>,
    /// The values, little-endian.
    pub bytes: Vec<u8>,
    /// The WAV sample format (None for other formats).
    pub wav: Option<hound::WavSpec>,
}

/// An input error for the signal's message.
fn bad(message: String) -> FilterError {
    FilterError::Input(message)
}

impl SignalFile {
    /// Reads a whole file's `bytes` in `format`. Raw input needs its element type `dtype` and
    /// is `channels` channels one after another; a `.npy` file's float type must be `dtype`
    /// when given (integer arrays may be filtered in another type).
    pub fn parse(
        bytes: Vec<u8>,
        format: Format,
        dtype: Option<DType>,
        channels: usize,
    ) -> Result<SignalFile, FilterError> {
        let file = |dtype, shape, bytes| SignalFile {
            format,
            dtype,
            shape,
            bytes,
            wav: None,
        };
        match format {
            Format::Raw => {
                let dtype = dtype.ok_or_else(|| {
                    bad("is read as raw little-endian values: --dtype must say their type".into())
                })?;
                if !bytes.len().is_multiple_of(dtype.size()) {
                    return Err(bad(format!(
                        "{} bytes is not a whole number of {dtype} values",
                        bytes.len()
                    )));
                }
                let len = bytes.len() / dtype.size();
                if channels == 0 || !len.is_multiple_of(channels) {
                    return Err(bad(format!(
                        "{len} values do not split into --channels {channels} channels"
                    )));
                }
                let shape = match channels {
                    1 => vec![len],
                    c => vec![c, len / c],
                };
                Ok(file(dtype, shape, bytes))
            }
            Format::Npy => {
                let array = parse(&bytes).map_err(|e| bad(format!("{e}")))?;
                if let Some(d) = dtype.filter(|&d| d != array.dtype && array.dtype.is_float()) {
                    return Err(bad(format!(
                        "holds {} values but --dtype says {d}",
                        array.dtype
                    )));
                }
                Ok(file(array.dtype, array.shape, array.bytes))
            }
            Format::Wav => super::wav::read(bytes, dtype),
        }
    }

    /// The values as `T` (integers converted to floats when `T` is a float).
    pub fn values<T: Element>(&self) -> Vec<T> {
        if self.dtype == T::DTYPE {
            return from_le_bytes(&self.bytes);
        }
        crate::with_dtype!(self.dtype, S => {
            from_le_bytes::<S>(&self.bytes).iter().map(|v| T::from_f64(v.to_f64())).collect()
        })
    }

    /// The axis filtered when none is given: time, 0 for WAV (frames × channels), else the
    /// last (-1).
    pub fn default_axis(&self) -> isize {
        match self.format {
            Format::Wav => 0,
            _ => -1,
        }
    }

    /// The element type a filter runs in when none is asked for: the input's, and for WAV
    /// the sample format's (f32 for 32-bit float, else f64).
    pub fn natural_dtype(&self) -> DType {
        match self.wav {
            Some(w) if w.sample_format == hound::SampleFormat::Float => DType::F32,
            Some(_) => DType::F64,
            None => self.dtype,
        }
    }

    /// `y` (of `shape`) in `format` (see [`Format::of_output`]): `.npy` / raw in `T`, WAV in
    /// the input's sample format — integer PCM rounded and clipped to its range, in the units
    /// the input was read in (scaled back from [-1, 1), or the integer values as they are).
    /// Returns the bytes and, for integer WAV, the number of clipped samples.
    pub fn encode<T: Element>(
        &self,
        format: Format,
        shape: &[usize],
        y: &[T],
    ) -> Result<(Vec<u8>, Option<usize>), FilterError> {
        match (format, self.wav) {
            (Format::Wav, Some(spec)) => {
                super::wav::write(spec, !self.dtype.is_float(), y).map(|(b, c)| (b, Some(c)))
            }
            (Format::Wav, None) => Err(bad(
                "a WAV output needs a WAV input (its sample rate and sample format)".into(),
            )),
            (f, _) => Ok((encode_values(f == Format::Raw, shape, y), None)),
        }
    }
}

/// `values` as raw little-endian bytes, or as a `.npy` file of `shape`.
pub fn encode_values<T: Element>(raw: bool, shape: &[usize], values: &[T]) -> Vec<u8> {
    let bytes = to_le_bytes(values);
    if raw {
        bytes
    } else {
        encode(T::DTYPE, shape, &bytes)
    }
}

/// Comma-separated numbers (NaN and infinities are read, so that they can be refused by name
/// rather than taken for a file name).
pub fn parse_list(text: &str) -> Result<Vec<f64>, FilterError> {
    text.split(',')
        .map(|t| {
            let t = t.trim();
            t.parse::<f64>()
                .map_err(|_| bad(format!("{t:?} is not a number")))
        })
        .collect()
}

/// A small array given beside a signal (an initial state): an existing file (`.npy` with its
/// shape, or raw `T` values when `raw`), else comma-separated values in `want`'s C order.
/// Returns the values and their shape; NaN and infinities are refused by index.
pub fn read_values<T: Element>(
    text: &str,
    raw: bool,
    want: &[usize],
) -> Result<(Vec<T>, Vec<usize>), FilterError> {
    let path = Path::new(text);
    let (values, shape): (Vec<T>, Option<Vec<usize>>) = if path.is_file() {
        let array = read(path, raw.then_some(T::DTYPE)).map_err(|e| bad(format!("{text}: {e}")))?;
        let Some(values) = array.values::<T>() else {
            return Err(bad(format!(
                "{text} holds {} values but the filter runs in {}",
                array.dtype,
                T::DTYPE
            )));
        };
        (values, (!raw).then_some(array.shape))
    } else if T::DTYPE.is_float() {
        let v = parse_list(text).map_err(|e| {
            bad(format!(
                "{text:?}: no such file, and not a comma-separated list of numbers ({e})"
            ))
        })?;
        (v.iter().map(|&x| T::from_f64(x)).collect(), None)
    } else {
        (crate::filter::parse_values::<T>(text)?, None)
    };
    crate::filter::check_finite(&values, text)?;
    let want_len: usize = want.iter().product();
    let shape = match shape {
        Some(s) => s,
        None if values.len() == want_len => want.to_vec(),
        None => {
            return Err(bad(format!(
                "{} values given; this filter and input need shape {want:?} ({want_len} \
                 values, C order)",
                values.len()
            )))
        }
    };
    Ok((values, shape))
}

/// Second-order sections given as a `.npy` file of shape (n_sections, 6) or inline values
/// (rows separated by ';', or all 6·n values by commas).
pub fn read_sos(text: &str) -> Result<Vec<[f64; 6]>, FilterError> {
    let path = Path::new(text);
    if path.is_file() {
        let array: Array = read(path, None).map_err(|e| bad(format!("{text}: {e}")))?;
        let values: Vec<f64> = match array.dtype {
            DType::F64 => array.values::<f64>().unwrap_or_default(),
            DType::F32 => (array.values::<f32>().unwrap_or_default())
                .iter()
                .map(|&v| v as f64)
                .collect(),
            other => {
                return Err(bad(format!(
                    "{text} holds {other} values; sections are float32 or float64"
                )))
            }
        };
        return crate::signal::sos_rows(&values, &array.shape)
            .map_err(|e| bad(format!("{text}: {e}")));
    }
    let rows: Vec<&str> = text.split(';').filter(|r| !r.trim().is_empty()).collect();
    let mut values = Vec::new();
    for r in &rows {
        let v = parse_list(r).map_err(|e| bad(format!("{text:?}: no such file, and {e}")))?;
        if rows.len() > 1 && v.len() != 6 {
            return Err(bad(format!(
                "row {r:?} has {} values; each section row is [b0, b1, b2, 1, a1, a2]",
                v.len()
            )));
        }
        values.extend(v);
    }
    let shape = match values.len() {
        n if !n.is_multiple_of(6) || n == 0 => vec![n],
        n => vec![n / 6, 6],
    };
    crate::signal::sos_rows(&values, &shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--output y.wav` / `y.txt` on a .npy input wrote .npy bytes under that name.
    #[test]
    fn outputs_are_written_in_the_format_their_name_says_or_refused() {
        let of = |p: &str, given, input| Format::of_output(Path::new(p), given, input);
        assert_eq!(of("y.npy", None, Format::Raw), Ok(Format::Npy));
        assert_eq!(of("y.NPY", None, Format::Wav), Ok(Format::Npy));
        assert_eq!(of("y.bin", None, Format::Npy), Ok(Format::Npy));
        assert_eq!(of("-", None, Format::Wav), Ok(Format::Wav));
        assert_eq!(of("y.wav", None, Format::Wav), Ok(Format::Wav));
        assert_eq!(of("y.f32", Some("raw"), Format::Raw), Ok(Format::Raw));
        for (p, given, input, says) in [
            ("y.wav", None, Format::Npy, "needs a sample rate"),
            ("y.txt", None, Format::Npy, "text file"),
            ("y.CSV", None, Format::Wav, "text file"),
            ("y.npy", Some("raw"), Format::Raw, "--format raw"),
            ("y.wav", Some("npy"), Format::Npy, "--format npy"),
        ] {
            let e = of(p, given, input).unwrap_err();
            assert!(e.contains(says), "{p}: {e}");
        }
        let st = |p: &str, out| Format::of_state(Path::new(p), out);
        assert_eq!(st("zf", Format::Raw), Ok(Format::Raw));
        assert_eq!(st("zf.npy", Format::Raw), Ok(Format::Npy));
        assert_eq!(st("zf.bin", Format::Wav), Ok(Format::Npy));
        assert!(st("zf.wav", Format::Wav)
            .unwrap_err()
            .contains("name it .npy"));
        assert!(st("zf.csv", Format::Npy).is_err());
    }
}

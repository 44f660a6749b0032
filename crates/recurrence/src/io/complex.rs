//! Complex signals in files, as `sigpu filter` reads and writes them: complex64 / complex128
//! `.npy` (either byte order), interleaved I/Q as SDR front ends write it (int8 or int16
//! pairs, read as complex scaled to [-1, 1)), and the complex values given beside a signal
//! (coefficients, zi, sections) as text (`0.5-0.25j`) or `.npy` files.

use super::Array;
use crate::complex::C64;
use crate::elem::{from_le_bytes, to_le_bytes, DType, Element};
use crate::error::FilterError;
use std::path::Path;

/// An interleaved I/Q sample format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Iq {
    /// Signed 8-bit pairs (HackRF, bladeRF's 8-bit mode), scaled by 1/128.
    I8,
    /// Signed 16-bit little-endian pairs (`cs16`: USRP, LimeSDR, SDRplay, PlutoSDR), scaled by
    /// 1/32768.
    I16,
}

impl std::str::FromStr for Iq {
    type Err = String;
    fn from_str(s: &str) -> Result<Iq, String> {
        match s {
            "i8" | "int8" | "cs8" => Ok(Iq::I8),
            "i16" | "int16" | "cs16" => Ok(Iq::I16),
            other => Err(format!(
                "unknown I/Q sample format {other:?}: i8 (signed 8-bit pairs) or i16 (signed \
                 16-bit little-endian pairs)"
            )),
        }
    }
}

/// A complex array read from a file: interleaved `re, im` values (exact in f64 for every
/// source), its shape, and the part type it came in (f32 for complex64, f64 otherwise).
#[derive(Clone, Debug, PartialEq)]
pub struct ComplexArray {
    /// The array's shape (complex elements).
    pub shape: Vec<usize>,
    /// `2 · product(shape)` values, `re, im, re, im, …`.
    pub values: Vec<f64>,
    /// F32 for complex64 files, F64 for complex128 and I/Q (SciPy promotes integers to f64).
    pub part: DType,
}

impl ComplexArray {
    /// The values as element type `T`.
    pub fn values_as<T: Element>(&self) -> Vec<T> {
        self.values.iter().map(|&v| T::from_f64(v)).collect()
    }

    /// A real signal with zero imaginary parts: complex64 where it came in f32, else
    /// complex128 (SciPy promotes integers to f64).
    pub fn from_real(file: &super::SignalFile) -> ComplexArray {
        let real: Vec<f64> = file.values();
        ComplexArray {
            shape: file.shape.clone(),
            values: real.iter().flat_map(|&v| [v, 0.0]).collect(),
            part: match file.natural_dtype() {
                DType::F32 => DType::F32,
                _ => DType::F64,
            },
        }
    }
}

/// The bytes of a complex output at `path`: `.npy` complex64 / complex128 for a `.npy` name
/// (or format, or stdout), raw interleaved `re, im` parts otherwise; WAV is refused.
pub fn encode_output<T: Element>(
    path: &Path,
    format: Option<&str>,
    shape: &[usize],
    v: &[T],
) -> Result<Vec<u8>, FilterError> {
    let ext = (path.extension().and_then(|e| e.to_str())).map(str::to_ascii_lowercase);
    match (format, ext.as_deref()) {
        (Some("wav"), _) | (_, Some("wav")) => Err(FilterError::Refused(format!(
            "{}: complex output cannot be WAV; name it .npy (complex64 / complex128) or give a \
             raw name for interleaved (re, im) values",
            path.display()
        ))),
        (Some("raw"), _) => Ok(to_le_bytes(v)),
        (_, Some("npy")) | (Some("npy"), _) => Ok(encode_npy(shape, v)),
        _ if path == Path::new("-") => Ok(encode_npy(shape, v)),
        _ => Ok(to_le_bytes(v)),
    }
}

/// The `descr` of a `.npy` file's header, read from its text without parsing the data.
fn npy_descr(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(65_536 + 12)];
    let text = String::from_utf8_lossy(head);
    let at = text.find("'descr'")?;
    let rest = &text[at + 7..];
    let open = rest.find('\'')?;
    let close = rest[open + 1..].find('\'')?;
    Some(rest[open + 1..open + 1 + close].to_string())
}

/// Whether the bytes are a `.npy` file of complex values.
pub fn is_complex_npy(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x93NUMPY") && npy_descr(bytes).is_some_and(|d| d.get(1..2) == Some("c"))
}

/// Parses a complex64 / complex128 `.npy` file (C order, either byte order).
pub fn parse_npy(bytes: &[u8]) -> Result<ComplexArray, String> {
    let big = npy_descr(bytes).is_some_and(|d| d.starts_with('>'));
    let npy = sigpu_runtime::npy::parse(bytes, |d| match d {
        "<c8" | "|c8" => Ok(8),
        "<c16" | "|c16" => Ok(16),
        other => Err(format!(
            "element type {other:?} is not complex64 or complex128 (complex long double is not \
             supported: save it as complex128)"
        )),
    })
    .map_err(|e| e.to_string())?;
    let size = if npy.descr.ends_with("c8") { 8 } else { 16 };
    let mut data = npy.data;
    if big {
        // The container swapped each whole element, which also swapped its two parts.
        for e in data.chunks_exact_mut(size) {
            let (re, im) = e.split_at_mut(size / 2);
            re.swap_with_slice(im);
        }
    }
    let (values, part) = match size {
        8 => (
            from_le_bytes::<f32>(&data)
                .iter()
                .map(|&v| v as f64)
                .collect(),
            DType::F32,
        ),
        _ => (from_le_bytes::<f64>(&data), DType::F64),
    };
    Ok(ComplexArray {
        shape: npy.shape,
        values,
        part,
    })
}

/// Interleaved I/Q bytes as `channels` complex channels one after another, scaled to
/// [-1, 1). An odd number of values (or a byte left over) is refused: I/Q comes in pairs.
pub fn read_iq(bytes: &[u8], iq: Iq, channels: usize) -> Result<ComplexArray, String> {
    let (size, scale, name) = match iq {
        Iq::I8 => (1, 1.0 / 128.0, "int8"),
        Iq::I16 => (2, 1.0 / 32768.0, "int16"),
    };
    if !bytes.len().is_multiple_of(size) {
        return Err(format!(
            "{} bytes is not a whole number of {name} values ({size} bytes each)",
            bytes.len()
        ));
    }
    let count = bytes.len() / size;
    if !count.is_multiple_of(2) {
        return Err(format!(
            "{count} {name} values is an odd number: interleaved I/Q holds (I, Q) pairs — the \
             file is cut short or not I/Q"
        ));
    }
    let pairs = count / 2;
    if count == 0 {
        return Err("the I/Q input is empty".into());
    }
    if channels == 0 || !pairs.is_multiple_of(channels) {
        return Err(format!(
            "{pairs} I/Q samples do not split into {channels} channel(s) of equal length"
        ));
    }
    let values: Vec<f64> = match iq {
        Iq::I8 => bytes.iter().map(|&b| b as i8 as f64 * scale).collect(),
        Iq::I16 => bytes
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]) as f64 * scale)
            .collect(),
    };
    let shape = match channels {
        1 => vec![pairs],
        c => vec![c, pairs / c],
    };
    Ok(ComplexArray {
        shape,
        values,
        part: DType::F64,
    })
}

/// The `.npy` encoding of interleaved values of `T` (f32: complex64, f64: complex128).
pub fn encode_npy<T: Element>(shape: &[usize], values: &[T]) -> Vec<u8> {
    let descr = if T::DTYPE == DType::F32 {
        "<c8"
    } else {
        "<c16"
    };
    sigpu_runtime::npy::encode(descr, shape, &to_le_bytes(values))
}

fn bad(message: String) -> FilterError {
    FilterError::Input(message)
}

/// One complex number as text: `1.5`, `-2j`, `0.5+0.25j`, `1e-3-2e-4j` (NumPy's repr, with
/// or without parentheses).
pub fn parse_complex(text: &str) -> Result<C64, FilterError> {
    let t = text
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let fail = || {
        bad(format!(
            "{text:?} is not a number (complex numbers are written 1.5-0.5j)"
        ))
    };
    let Some(body) = t.strip_suffix(['j', 'J']) else {
        return t.parse::<f64>().map(C64::real).map_err(|_| fail());
    };
    // The sign that splits real and imaginary parts: the last + or − not after an exponent.
    let bytes = body.as_bytes();
    let split = (1..bytes.len())
        .rev()
        .find(|&i| (bytes[i] == b'+' || bytes[i] == b'-') && !matches!(bytes[i - 1], b'e' | b'E'));
    let imag = |s: &str| -> Result<f64, FilterError> {
        match s {
            "" | "+" => Ok(1.0),
            "-" => Ok(-1.0),
            s => s.parse::<f64>().map_err(|_| fail()),
        }
    };
    match split {
        Some(i) => Ok(C64::new(
            body[..i].parse::<f64>().map_err(|_| fail())?,
            imag(&body[i..])?,
        )),
        None => Ok(C64::new(0.0, imag(body)?)),
    }
}

/// Comma-separated complex (or real) numbers.
pub fn parse_complex_list(text: &str) -> Result<Vec<C64>, FilterError> {
    text.split(',').map(parse_complex).collect()
}

/// Whether text values hold a complex number (a `j`).
pub fn has_imaginary(text: &str) -> bool {
    !Path::new(text).is_file() && text.contains(['j', 'J'])
}

/// A `.npy` file of real (f32 / f64) or complex values as complex values and their shape.
pub fn read_npy_any(path: &Path) -> Result<(Vec<C64>, Vec<usize>), FilterError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| bad(format!("{shown}: cannot read: {e}")))?;
    if is_complex_npy(&bytes) {
        let a = parse_npy(&bytes).map_err(|e| bad(format!("{shown}: {e}")))?;
        let v = a
            .values
            .chunks_exact(2)
            .map(|p| C64::new(p[0], p[1]))
            .collect();
        return Ok((v, a.shape));
    }
    let a: Array = super::parse(&bytes).map_err(|e| bad(format!("{shown}: {e}")))?;
    let v: Vec<f64> = match a.dtype {
        DType::F32 => from_le_bytes::<f32>(&a.bytes)
            .iter()
            .map(|&v| v as f64)
            .collect(),
        DType::F64 => from_le_bytes::<f64>(&a.bytes),
        other => return Err(bad(format!("{shown} holds {other} values; give floats"))),
    };
    Ok((v.into_iter().map(C64::real).collect(), a.shape))
}

/// A complex initial state: a `.npy` file (real or complex, with its shape) or
/// comma-separated values in `want`'s C order. Non-finite values are refused.
pub fn read_complex_values(
    text: &str,
    want: &[usize],
) -> Result<(Vec<C64>, Vec<usize>), FilterError> {
    let path = Path::new(text);
    let (values, shape) = if path.is_file() {
        read_npy_any(path)?
    } else {
        let v = parse_complex_list(text)
            .map_err(|e| bad(format!("{text:?}: no such file, and {e}")))?;
        let n: usize = want.iter().product();
        if v.len() != n {
            return Err(bad(format!(
                "{} values given; this filter and input need shape {want:?} ({n} values, C order)",
                v.len()
            )));
        }
        (v, want.to_vec())
    };
    if let Some(i) = values.iter().position(|c| !c.is_finite()) {
        return Err(bad(format!("{text}: value {i} is not finite")));
    }
    Ok((values, shape))
}

/// Complex second-order sections: a `.npy` file of shape (n_sections, 6) (real or complex)
/// or inline values (rows separated by ';', or all 6·n values by commas).
pub fn read_complex_sos(text: &str) -> Result<Vec<[C64; 6]>, FilterError> {
    let path = Path::new(text);
    let (values, shape) = if path.is_file() {
        read_npy_any(path)?
    } else {
        let mut v = Vec::new();
        for row in text.split(';').filter(|r| !r.trim().is_empty()) {
            v.extend(parse_complex_list(row)?);
        }
        let n = v.len();
        (v, vec![n / 6, 6])
    };
    if shape.len() != 2 || shape[1] != 6 || values.is_empty() || values.len() % 6 != 0 {
        return Err(bad(format!(
            "{text}: sections must have shape (n_sections, 6), rows [b0, b1, b2, 1, a1, a2]"
        )));
    }
    Ok(values
        .chunks_exact(6)
        .map(|r| [r[0], r[1], r[2], r[3], r[4], r[5]])
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_numbers_read_as_numpy_writes_them() {
        let p = |t: &str| parse_complex(t).unwrap();
        assert_eq!(p("1.5"), C64::real(1.5));
        assert_eq!(p("-2j"), C64::new(0.0, -2.0));
        assert_eq!(p("(0.5+0.25j)"), C64::new(0.5, 0.25));
        assert_eq!(p("1e-3-2e-4j"), C64::new(1e-3, -2e-4));
        assert_eq!(p("-1e+2+1e-2J"), C64::new(-100.0, 0.01));
        assert_eq!(p("j"), C64::new(0.0, 1.0));
        assert!(parse_complex("1+2i").is_err());
        assert!(parse_complex_list("1, 2j, x").is_err());
    }

    #[test]
    fn npy_and_iq_round_trip_and_refuse_what_is_not_complex_pairs() {
        let y = [1.0f32, -2.0, 0.5, 0.25];
        let file = encode_npy(&[2], &y);
        assert!(is_complex_npy(&file));
        let a = parse_npy(&file).unwrap();
        assert_eq!((a.shape.as_slice(), a.part), (&[2usize][..], DType::F32));
        assert_eq!(a.values, [1.0, -2.0, 0.5, 0.25]);
        // Big-endian complex128: the parts come back in their order.
        let mut be = Vec::new();
        for v in [1.0f64, -2.0] {
            be.extend(v.to_be_bytes());
        }
        let file = sigpu_runtime::npy::encode(">c16", &[1], &be);
        assert_eq!(parse_npy(&file).unwrap().values, [1.0, -2.0]);
        let real = sigpu_runtime::npy::encode("<f8", &[1], &[0; 8]);
        assert!(!is_complex_npy(&real));
        assert!(
            parse_npy(&sigpu_runtime::npy::encode("<c32", &[1], &[0; 32]))
                .unwrap_err()
                .contains("complex long double")
        );

        let iq = read_iq(&[0x80, 0x7f, 64, 0], Iq::I8, 1).unwrap();
        assert_eq!(iq.values, [-1.0, 127.0 / 128.0, 0.5, 0.0]);
        let iq = read_iq(&[0x00, 0x80, 0x00, 0x40], Iq::I16, 1).unwrap();
        assert_eq!(iq.values, [-1.0, 0.5]);
        let e = read_iq(&[1, 2, 3], Iq::I8, 1).unwrap_err();
        assert!(e.contains("odd number"), "{e}");
        let e = read_iq(&[1, 2, 3], Iq::I16, 1).unwrap_err();
        assert!(e.contains("whole number of int16"), "{e}");
        let e = read_iq(&[1, 2, 3, 4, 5, 6], Iq::I8, 2).unwrap_err();
        assert!(e.contains("2 channel(s)"), "{e}");
        assert_eq!(read_iq(&[0; 8], Iq::I8, 2).unwrap().shape, [2, 2]);
        assert!("cs16".parse::<Iq>().is_ok() && "u8".parse::<Iq>().is_err());
    }
}

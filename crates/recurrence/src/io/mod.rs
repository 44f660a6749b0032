//! Signals in files: NumPy `.npy` (format 1.0–3.0, C order; big-endian arrays are swapped
//! on reading) and raw
//! little-endian arrays of the four element types (the `.npy` container itself is
//! `sigpu_runtime::npy`'s), WAV audio, and [`SignalFile`], a signal in any of them as
//! `sigpu filter` reads and writes it.

pub mod complex;
mod signal;
mod wav;

pub use signal::{encode_values, parse_list, read_sos, read_values, Format, SignalFile};

use crate::{from_le_bytes, to_le_bytes, DType, Element};
use std::path::Path;

/// An array as read from a file: its element type, shape and little-endian bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub bytes: Vec<u8>,
}

impl Array {
    /// The values, when they are `T`'s (else `None`).
    pub fn values<T: Element>(&self) -> Option<Vec<T>> {
        (self.dtype == T::DTYPE).then(|| from_le_bytes(&self.bytes))
    }
}

/// Why a signal file could not be read or written (the message names the file).
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    #[error("cannot read {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {path}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {bytes} bytes is not a whole number of {dtype} values ({} bytes each)", dtype.size())]
    Ragged {
        path: String,
        bytes: usize,
        dtype: DType,
    },
    #[error("{path} is not a usable .npy file")]
    Npy {
        path: String,
        #[source]
        source: NpyError,
    },
}

/// What is wrong inside a `.npy` file.
#[derive(Debug, thiserror::Error)]
pub enum NpyError {
    #[error(transparent)]
    Container(#[from] sigpu_runtime::npy::NpyError),
    #[error("{0}")]
    ElementType(String),
}

/// NumPy's name of `dtype`'s little-endian layout (`<f4`, ...).
pub fn descr(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
    }
}

fn dtype_of(descr: &str) -> Result<DType, String> {
    Ok(match descr {
        "<f4" | "|f4" => DType::F32,
        "<f8" | "|f8" => DType::F64,
        "<i4" | "|i4" => DType::I32,
        "<i8" | "|i8" => DType::I64,
        other => {
            return Err(format!(
                "element type {other:?} is not supported (float32, float64, int32 or int64)"
            ))
        }
    })
}

/// Reads `path` as `.npy`, or as raw little-endian `dtype` values when `raw` is given.
pub fn read(path: &Path, raw: Option<DType>) -> Result<Array, IoError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| IoError::Read {
        path: shown.clone(),
        source,
    })?;
    match raw {
        Some(dtype) if bytes.len() % dtype.size() != 0 => Err(IoError::Ragged {
            path: shown,
            bytes: bytes.len(),
            dtype,
        }),
        Some(dtype) => Ok(Array {
            dtype,
            shape: vec![bytes.len() / dtype.size()],
            bytes,
        }),
        None => parse(&bytes).map_err(|source| IoError::Npy {
            path: shown,
            source,
        }),
    }
}

/// Parses the bytes of a whole `.npy` file.
pub fn parse(bytes: &[u8]) -> Result<Array, NpyError> {
    let npy = sigpu_runtime::npy::parse(bytes, |d| dtype_of(d).map(DType::size))?;
    let dtype = dtype_of(&npy.descr).map_err(NpyError::ElementType)?;
    Ok(Array {
        dtype,
        shape: npy.shape,
        bytes: npy.data,
    })
}

/// The `.npy` encoding of `bytes` (little-endian values of `dtype`) with `shape`.
pub fn encode(dtype: DType, shape: &[usize], bytes: &[u8]) -> Vec<u8> {
    sigpu_runtime::npy::encode(descr(dtype), shape, bytes)
}

/// Writes `values` to `path` atomically: raw little-endian, or `.npy` of `shape`.
pub fn write<T: Element>(
    path: &Path,
    raw: bool,
    shape: &[usize],
    values: &[T],
) -> Result<(), IoError> {
    let bytes = to_le_bytes(values);
    let data = if raw {
        bytes
    } else {
        encode(T::DTYPE, shape, &bytes)
    };
    sigpu_runtime::fs::write_atomic(path, &data).map_err(|source| IoError::Write {
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let data: Vec<u8> = [1.5f32, -2.0, 3.25, 0.0, 7.0, 8.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let file = encode(DType::F32, &[2, 3], &data);
        assert_eq!((file.len() - data.len()) % 64, 0);
        let a = parse(&file).unwrap();
        assert_eq!(
            (a.dtype, a.shape.as_slice(), a.bytes.as_slice()),
            (DType::F32, &[2usize, 3][..], &data[..])
        );
        assert_eq!(a.values::<f32>().unwrap()[2], 3.25);
        assert!(a.values::<f64>().is_none());
        let one = parse(&encode(DType::I64, &[5], &[0u8; 40])).unwrap();
        assert_eq!(one.shape, [5]);
        let short = parse(&file[..file.len() - 4]).err().unwrap();
        assert!(short.to_string().contains("promises 6 values"), "{short}");
        assert!(parse(b"hello").err().unwrap().to_string().contains("magic"));
        let mut f16 = encode(DType::F32, &[1], &[0; 4]);
        let at = f16.windows(3).position(|w| w == b"<f4").unwrap();
        f16[at + 2] = b'2';
        let e = parse(&f16).err().unwrap();
        assert!(e.to_string().contains("\"<f2\""), "{e}");
        // A shape whose product overflows is refused, not wrapped.
        let huge = encode(DType::F32, &[1 << 62, 4], &[]);
        let e = parse(&huge).err().unwrap();
        assert!(e.to_string().contains("too large"), "{e}");
    }

    #[test]
    fn files_round_trip() {
        let dir = std::env::temp_dir().join(format!("sigpu-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (npy, raw) = (dir.join("x.npy"), dir.join("x.bin"));
        let x = [1.0f64, 0.0, 0.0, 2.0];
        write(&npy, false, &[2, 2], &x).unwrap();
        write(&raw, true, &[4], &x).unwrap();
        let a = read(&npy, None).unwrap();
        assert_eq!(
            (a.shape.as_slice(), a.values::<f64>().unwrap()),
            (&[2usize, 2][..], x.to_vec())
        );
        assert_eq!(read(&raw, Some(DType::F64)).unwrap().bytes, a.bytes);
        assert_eq!(read(&raw, Some(DType::F32)).unwrap().shape, [8]);
        write(&raw, true, &[3], &[1.0f32, 2.0, 3.0]).unwrap();
        let ragged = read(&raw, Some(DType::F64)).err().unwrap();
        assert!(
            ragged.to_string().contains("not a whole number"),
            "{ragged}"
        );
        let missing = read(&dir.join("missing.npy"), None).err().unwrap();
        assert!(missing.to_string().starts_with("cannot read"), "{missing}");

        std::fs::remove_dir_all(&dir).unwrap();
    }
}

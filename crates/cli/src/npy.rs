//! Reading and writing NumPy `.npy` files (format 1.0–3.0, little-endian, C order) and raw
//! little-endian arrays: how `sigpu filter` takes signals in and gives them back.

use anyhow::{bail, Context, Result};
use sigpu_recurrence::DType;
use std::path::Path;

/// An array as read from a file: its element type, shape and little-endian bytes.
pub struct Array {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub bytes: Vec<u8>,
}

fn descr(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
    }
}

/// Reads `path` as `.npy`, or as raw little-endian `dtype` values when `raw` is set.
pub fn read(path: &Path, raw: Option<DType>) -> Result<Array> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let shown = path.display();
    if let Some(dtype) = raw {
        if bytes.len() % dtype.size() != 0 {
            bail!(
                "{shown}: {} bytes is not a whole number of {dtype} values ({} bytes each)",
                bytes.len(),
                dtype.size()
            );
        }
        return Ok(Array {
            dtype,
            shape: vec![bytes.len() / dtype.size()],
            bytes,
        });
    }
    parse(&bytes).with_context(|| format!("{shown} is not a usable .npy file"))
}

fn dtype_of(descr: &str) -> Result<DType, String> {
    Ok(match descr {
        "<f4" | "|f4" => DType::F32,
        "<f8" | "|f8" => DType::F64,
        "<i4" | "|i4" => DType::I32,
        "<i8" | "|i8" => DType::I64,
        other => {
            return Err(format!(
                "element type {other:?} is not supported (float32, float64, int32 or int64, little-endian)"
            ))
        }
    })
}

fn parse(bytes: &[u8]) -> Result<Array> {
    let npy = sigpu_runtime::npy::parse(bytes, |d| dtype_of(d).map(DType::size))?;
    let dtype = dtype_of(&npy.descr).map_err(anyhow::Error::msg)?;
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
        let one = parse(&encode(DType::I64, &[5], &[0u8; 40])).unwrap();
        assert_eq!(one.shape, [5]);
        let short = parse(&file[..file.len() - 4]).err().unwrap();
        assert!(
            format!("{short:#}").contains("promises 6 values"),
            "{short:#}"
        );
        assert!(format!("{:#}", parse(b"hello").err().unwrap()).contains("magic"));
        let mut f16 = encode(DType::F32, &[1], &[0; 4]);
        let at = f16.windows(3).position(|w| w == b"<f4").unwrap();
        f16[at + 2] = b'2';
        let e = parse(&f16).err().unwrap();
        assert!(format!("{e:#}").contains("\"<f2\""), "{e:#}");
        // A shape whose product overflows is refused, not wrapped.
        let huge = encode(DType::F32, &[1 << 62, 4], &[]);
        let e = parse(&huge).err().unwrap();
        assert!(format!("{e:#}").contains("too large"), "{e:#}");
    }
}

//! Reading and writing NumPy `.npy` files (format 1.0–3.0, little-endian, C order) and raw
//! little-endian arrays: how `sigpu filter` takes signals in and gives them back.

use anyhow::{bail, Context, Result};
use sigpu_recurrence::DType;
use std::path::Path;

const MAGIC: &[u8] = b"\x93NUMPY";

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

fn parse(bytes: &[u8]) -> Result<Array> {
    if !bytes.starts_with(MAGIC) || bytes.len() < 10 {
        bail!("it does not start with the .npy magic \\x93NUMPY (for raw data use --format raw)");
    }
    let major = bytes[6];
    let (header_len, start) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => bail!("unsupported .npy version {major}"),
    };
    let end = start + header_len;
    let header = bytes
        .get(start..end)
        .context("the header is cut short")
        .and_then(|h| std::str::from_utf8(h).context("the header is not text"))?;
    let field = |key: &str| -> Result<&str> {
        let at = header
            .find(&format!("'{key}'"))
            .with_context(|| format!("the header has no '{key}'"))?;
        let rest = &header[at + key.len() + 2..];
        let colon = rest.find(':').context("malformed header")?;
        Ok(rest[colon + 1..].trim_start())
    };
    let descr_text = field("descr")?;
    let descr_value = descr_text
        .strip_prefix('\'')
        .and_then(|r| r.split('\'').next())
        .context("malformed 'descr'")?;
    let dtype = match descr_value {
        "<f4" | "|f4" => DType::F32,
        "<f8" | "|f8" => DType::F64,
        "<i4" | "|i4" => DType::I32,
        "<i8" | "|i8" => DType::I64,
        other => bail!(
            "element type {other:?} is not supported (float32, float64, int32 or int64, little-endian)"
        ),
    };
    if field("fortran_order")?.starts_with("True") {
        bail!("it is stored in Fortran order; save it with np.ascontiguousarray first");
    }
    let shape_text = field("shape")?;
    let inner = shape_text
        .strip_prefix('(')
        .and_then(|r| r.split(')').next())
        .context("malformed 'shape'")?;
    let shape: Vec<usize> = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .with_context(|| format!("bad dimension {s:?}"))
        })
        .collect::<Result<_>>()?;
    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|n| n.checked_mul(dtype.size()).is_some())
        .with_context(|| format!("shape {shape:?} is too large"))?;
    let data = &bytes[end..];
    if data.len() != count * dtype.size() {
        bail!(
            "the header promises {count} values of {dtype} ({} bytes) but {} bytes follow it",
            count * dtype.size(),
            data.len()
        );
    }
    Ok(Array {
        dtype,
        shape,
        bytes: data.to_vec(),
    })
}

/// The `.npy` encoding of `bytes` (little-endian values of `dtype`) with `shape`.
pub fn encode(dtype: DType, shape: &[usize], bytes: &[u8]) -> Vec<u8> {
    let dims = match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {dims}, }}",
        descr(dtype)
    );
    // Magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
    let total = (10 + header.len() + 1).div_ceil(64) * 64;
    while 10 + header.len() + 1 < total {
        header.push(' ');
    }
    header.push('\n');
    let mut out = Vec::with_capacity(total + bytes.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(bytes);
    out
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

//! NumPy `.npy` files (format versions 1–3, C order, little-endian): LLRs in as f32, f64
//! (numpy's default, converted to f32) or i8, hard decisions out as u8.

use crate::error::{LdpcError, Result};
use std::path::Path;

/// LLRs read from a file.
#[derive(Debug)]
pub enum NpyLlrs {
    /// float32 in the file, or float64 converted to f32 (the decoders' precision; an LLR's
    /// magnitude must fit in f32): [`read_llrs_typed`] says which.
    F32(Vec<f32>),
    /// int8 in the file, at the caller's scale.
    I8(Vec<i8>),
}

impl NpyLlrs {
    /// LLRs held.
    pub fn len(&self) -> usize {
        match self {
            NpyLlrs::F32(v) => v.len(),
            NpyLlrs::I8(v) => v.len(),
        }
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Reads a 1-D or 2-D array of `<f4`, `<f8` (converted to f32) or `|i1`; returns it with its
/// shape.
pub fn read_llrs(path: &Path) -> Result<(NpyLlrs, Vec<usize>)> {
    read_llrs_typed(path).map(|(values, shape, _)| (values, shape))
}

/// [`read_llrs`], with the file's type: `float32`, `float64` (converted) or `int8`.
pub fn read_llrs_typed(path: &Path) -> Result<(NpyLlrs, Vec<usize>, &'static str)> {
    let err = |message: String| LdpcError::Npy {
        file: path.to_owned(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|source| LdpcError::Io {
        path: path.to_owned(),
        source,
    })?;
    let npy = sigpu_runtime::npy::parse(&bytes, |descr| match descr {
        "<f4" => Ok(4),
        "<f8" => Ok(8),
        "|i1" | "<i1" | "i1" => Ok(1),
        other => Err(format!(
            "LLRs must be float32 ('<f4'), float64 ('<f8', converted to float32) or int8 \
             ('|i1'), not {other:?}; e.g. np.save(path, llr.astype(np.float32))"
        )),
    })
    .map_err(|e| err(e.to_string()))?;
    let shape = npy.shape.clone();
    if shape.is_empty() || shape.len() > 2 {
        return Err(err(format!(
            "expected a 1-D array or a 2-D array (codewords × N), got shape {shape:?}"
        )));
    }
    let values = match npy.descr.as_str() {
        "<f4" => NpyLlrs::F32(
            npy.data
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
        "<f8" => NpyLlrs::F32(
            npy.data
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")) as f32)
                .collect(),
        ),
        // The only other type parse accepted.
        _ => NpyLlrs::I8(npy.data.iter().map(|&b| b as i8).collect()),
    };
    let dtype = match npy.descr.as_str() {
        "<f4" => "float32",
        "<f8" => "float64",
        _ => "int8",
    };
    if let NpyLlrs::F32(v) = &values {
        // ±∞ would meet ∓∞ in the float decoders' sums and give NaN beliefs: reject both.
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            let why = if dtype == "float64" {
                " (after conversion to float32)"
            } else {
                ""
            };
            return Err(err(format!(
                "LLR {i} is {}{why} (LLRs must be finite)",
                v[i]
            )));
        }
    }
    Ok((values, shape, dtype))
}

/// Writes a 2-D `u8` array (rows × cols) atomically.
pub fn write_u8(path: &Path, data: &[u8], rows: usize, cols: usize) -> Result<()> {
    let out = sigpu_runtime::npy::encode("|u1", &[rows, cols], data);
    sigpu_runtime::fs::write_atomic(path, &out).map_err(|source| LdpcError::Io {
        path: path.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}\n");
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn reads_f32_and_i8_and_rejects_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.npy");
        let f: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        std::fs::write(&p, npy("<f4", "(1, 2)", &f)).unwrap();
        let (v, shape) = read_llrs(&p).unwrap();
        assert!(matches!(v, NpyLlrs::F32(ref x) if x == &[1.5, -2.0]) && shape == [1, 2]);
        std::fs::write(&p, npy("|i1", "(3,)", &[1, 255, 3])).unwrap();
        assert!(matches!(read_llrs(&p).unwrap().0, NpyLlrs::I8(ref x) if x == &[1, -1, 3]));
        for (bytes, want) in [
            (npy("<i4", "(1,)", &[0; 4]), "astype(np.float32)"),
            (
                npy("<f8", "(1,)", &1e300f64.to_le_bytes()),
                "after conversion to float32",
            ),
            (npy("<f4", "(2,)", &[0; 4]), "needs 8 data bytes"),
            (npy("<f4", "(1, 1, 1)", &[0; 4]), "2-D"),
            (npy("<f4", "(4611686018427387904, 4)", &[0; 4]), "too large"),
            (npy("<f4", "(1,)", &f32::INFINITY.to_le_bytes()), "finite"),
            (b"hello".to_vec(), "not a .npy"),
        ] {
            std::fs::write(&p, bytes).unwrap();
            let e = read_llrs(&p).unwrap_err().to_string();
            assert!(e.contains(want) && e.contains("a.npy"), "{e}");
        }
    }

    #[test]
    fn float64_is_converted_to_float32() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.npy");
        let f: Vec<u8> = [1.5f64, -0.1]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        std::fs::write(&p, npy("<f8", "(2,)", &f)).unwrap();
        let (v, shape, dtype) = read_llrs_typed(&p).unwrap();
        assert!(
            matches!(v, NpyLlrs::F32(ref x) if x == &[1.5, -0.1f32]),
            "{v:?}"
        );
        assert_eq!((shape.as_slice(), dtype), (&[2usize][..], "float64"));
    }

    #[test]
    fn writes_a_readable_header() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bits.npy");
        write_u8(&p, &[0, 1, 1, 0], 2, 2).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        assert!(String::from_utf8_lossy(&bytes[10..10 + header_len]).contains("'shape': (2, 2)"));
        assert_eq!(&bytes[10 + header_len..], &[0, 1, 1, 0]);
    }
}

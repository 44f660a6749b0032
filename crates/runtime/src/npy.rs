//! NumPy `.npy` files (format versions 1–3, C order): the container only. Callers say which
//! element types (`descr`, e.g. `<f4`) they accept and how large each is; this module checks
//! the header, the shape (overflow included) and that the data is exactly as long as the shape
//! says.
//!
//! Big-endian arrays (`>f8`, as `np.save` writes an array of dtype `'>f8'`) are byte-swapped on
//! reading and reported with their little-endian `descr`: callers see one byte order. The data
//! is always copied out of the file, so where it starts in the file (its alignment) never
//! matters. An array with no values (a 0 in its shape) is refused before anything is allocated:
//! a shape like (2^64 − 1, 0) takes 128 bytes on disk yet names dimensions no buffer derived
//! from it could hold.

const MAGIC: &[u8] = b"\x93NUMPY";

/// The header and data of a `.npy` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Npy {
    /// The element type as NumPy writes it: `<f4`, `|i1`, `<i8`, ...
    pub descr: String,
    /// Extent of each dimension, outermost first; empty for a scalar.
    pub shape: Vec<usize>,
    /// The values' bytes, in file order.
    pub data: Vec<u8>,
}

/// What is wrong with a `.npy` file (the caller adds the file's name).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NpyError(String);

fn bad(message: impl Into<String>) -> NpyError {
    NpyError(message.into())
}

impl Npy {
    /// Number of elements the shape holds.
    pub fn count(&self) -> usize {
        self.shape.iter().product()
    }
}

/// Parses a whole `.npy` file. `element` maps the file's `descr` to its size in bytes, or
/// refuses it with a message; it is asked before the shape is read.
pub fn parse(
    bytes: &[u8],
    element: impl FnOnce(&str) -> Result<usize, String>,
) -> Result<Npy, NpyError> {
    if !bytes.starts_with(MAGIC) || bytes.len() < 10 {
        return Err(bad(
            "not a .npy file: it does not start with the .npy magic \\x93NUMPY",
        ));
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(bad(format!("unsupported .npy format version {v}"))),
    };
    let end = start + header_len;
    let header = bytes
        .get(start..end)
        .ok_or_else(|| bad("the header runs past the end of the file"))?;
    let header = std::str::from_utf8(header).map_err(|_| bad("the header is not text"))?;
    let field = |key: &str| -> Result<&str, NpyError> {
        let at = header
            .find(&format!("'{key}'"))
            .ok_or_else(|| bad(format!("the header has no '{key}' field")))?;
        let rest = &header[at + key.len() + 2..];
        let colon = rest.find(':').ok_or_else(|| bad("malformed header"))?;
        Ok(rest[colon + 1..].trim_start())
    };
    let descr = field("descr")?
        .split(['\'', '"'])
        .nth(1)
        .ok_or_else(|| bad("malformed 'descr'"))?
        .to_owned();
    // Big-endian: asked and reported as the little-endian type, the data swapped below.
    let swap = descr.len() > 1 && descr.starts_with('>');
    let descr = match swap {
        true => format!("<{}", &descr[1..]),
        false => descr,
    };
    let size = element(&descr).map_err(bad)?;
    // numpy writes the Python literal False or True; anything else ('yes', 1, ...) is not
    // a layout this reader can vouch for, so it is refused rather than taken as C order.
    let fortran = field("fortran_order")?;
    let literal = fortran.split([',', '}']).next().unwrap_or_default().trim();
    match literal {
        "False" => {}
        "True" => {
            return Err(bad(
                "it is stored in Fortran order; save it with np.ascontiguousarray first",
            ))
        }
        other => {
            let shown: String = other.chars().take(40).collect();
            return Err(bad(format!(
                "'fortran_order' is {shown}, not False or True as numpy writes it"
            )));
        }
    }
    let shape_text = field("shape")?;
    let inner = shape_text
        .strip_prefix('(')
        .and_then(|r| r.split(')').next())
        .ok_or_else(|| bad(format!("cannot read the shape {shape_text:?}")))?;
    let shape = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| bad(format!("shape entry {s:?} is not a whole number")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if shape.contains(&0) {
        return Err(bad(format!(
            "shape {shape:?} holds no values (a dimension is 0): there is nothing to read; \
             give an array with at least one value"
        )));
    }
    // isize::MAX bytes is the most any buffer can hold.
    let need = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .and_then(|n| n.checked_mul(size))
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| bad(format!("shape {shape:?} is too large")))?;
    let data = &bytes[end..];
    if data.len() != need {
        return Err(bad(format!(
            "the header promises {} values of {descr}: the shape needs {need} data bytes but {} follow it",
            need / size,
            data.len()
        )));
    }
    let mut data = data.to_vec();
    if swap && size > 1 {
        data.chunks_exact_mut(size).for_each(<[u8]>::reverse);
    }
    Ok(Npy { descr, shape, data })
}

/// The `.npy` (version 1.0) encoding of `data` with element type `descr` and `shape`.
pub fn encode(descr: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
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
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    // Magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_checks_lengths() {
        let file = encode("<f4", &[2, 3], &[0; 24]);
        assert_eq!((file.len() - 24) % 64, 0);
        let f32s = |d: &str| {
            if d == "<f4" {
                Ok(4)
            } else {
                Err(format!("not float32: {d:?}"))
            }
        };
        let a = parse(&file, f32s).unwrap();
        assert_eq!(
            (
                a.descr.as_str(),
                a.shape.as_slice(),
                a.data.len(),
                a.count()
            ),
            ("<f4", &[2usize, 3][..], 24, 6)
        );
        let e = parse(&file[..file.len() - 4], f32s)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("promises 6 values") && e.contains("needs 24 data bytes"),
            "{e}"
        );
        assert!(parse(b"hello", f32s)
            .unwrap_err()
            .to_string()
            .contains("not a .npy"));
        let huge = encode("<f4", &[1 << 62, 4], &[]);
        assert!(parse(&huge, f32s)
            .unwrap_err()
            .to_string()
            .contains("too large"));
        let e = parse(&encode("<f8", &[1], &[0; 8]), f32s)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not float32"), "{e}");
    }

    /// numpy's `np.save` of a `'>f8'` array, and of an empty one (shape (2^64 − 1, 0)).
    #[test]
    fn big_endian_is_swapped_and_empty_shapes_refused() {
        let f8 = |d: &str| if d == "<f8" { Ok(8) } else { Err(d.to_owned()) };
        let be: Vec<u8> = [1.5f64, -2.0]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        let a = parse(&encode(">f8", &[2], &be), f8).unwrap();
        assert_eq!(a.descr, "<f8");
        let le: Vec<u8> = [1.5f64, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(a.data, le);
        for shape in [&[usize::MAX, 0][..], &[1 << 40, 0], &[0], &[3, 0, 2]] {
            let e = parse(&encode("<f8", shape, &[]), f8)
                .unwrap_err()
                .to_string();
            assert!(e.contains("holds no values"), "{shape:?}: {e}");
        }
        // Data at an odd offset (a header not padded as numpy pads it) reads the same.
        let mut odd = encode("<f8", &[2], &le);
        let header_len = u16::from_le_bytes([odd[8], odd[9]]);
        odd.insert(10 + header_len as usize - 1, b' ');
        odd[8..10].copy_from_slice(&(header_len + 1).to_le_bytes());
        assert_eq!(parse(&odd, f8).unwrap().data, le);
    }

    #[test]
    fn fortran_order_must_be_a_python_bool() {
        let f4 = |d: &str| {
            if d == "<f4" {
                Ok(4)
            } else {
                Err(String::new())
            }
        };
        let with = |order: &str| {
            let header =
                format!("{{'descr': '<f4', 'fortran_order': {order}, 'shape': (2, 2), }}\n");
            let mut file = MAGIC.to_vec();
            file.extend_from_slice(&[1, 0]);
            file.extend_from_slice(&(header.len() as u16).to_le_bytes());
            file.extend_from_slice(header.as_bytes());
            file.extend_from_slice(&[0; 16]);
            file
        };
        assert!(parse(&with("False"), f4).is_ok());
        assert!(parse(&with("True"), f4)
            .unwrap_err()
            .to_string()
            .contains("Fortran order"));
        for order in ["'yes'", "1", "false", "Falsey"] {
            let e = parse(&with(order), f4).unwrap_err().to_string();
            assert!(e.contains("not False or True"), "{order}: {e}");
        }
    }
}

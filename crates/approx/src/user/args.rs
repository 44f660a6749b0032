//! A user kernel's arguments as text (`in:x.npy`, `out:f32:4096`, `out:like:x.npy`, `i32:5`,
//! `f32:0.5`), parsed without touching the disk, then loaded (`.npy` inputs read and checked).
//! Every error names the argument by its position and text.

use crate::error::{ApproxError, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Element types a buffer argument may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `int`.
    I32,
    /// `unsigned int`.
    U32,
}

impl Dtype {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::F64 => 8,
            _ => 4,
        }
    }

    /// NumPy's `descr` for it (little-endian).
    pub fn descr(self) -> &'static str {
        match self {
            Dtype::F32 => "<f4",
            Dtype::F64 => "<f8",
            Dtype::I32 => "<i4",
            Dtype::U32 => "<u4",
        }
    }

    fn from_descr(d: &str) -> Option<Dtype> {
        [Dtype::F32, Dtype::F64, Dtype::I32, Dtype::U32]
            .into_iter()
            .find(|t| t.descr() == d)
    }

    fn from_word(w: &str) -> Option<Dtype> {
        match w {
            "f32" => Some(Dtype::F32),
            "f64" => Some(Dtype::F64),
            "i32" => Some(Dtype::I32),
            "u32" => Some(Dtype::U32),
            _ => None,
        }
    }
}

/// A scalar argument, by value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarArg {
    /// `int`.
    I32(i32),
    /// `unsigned int`.
    U32(u32),
    /// `long long`.
    I64(i64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
}

/// One argument as written, before any file is read.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgSpec {
    /// `in:PATH.npy`: an input array the kernel reads (`const T*`).
    In(PathBuf),
    /// `out:TYPE:N`: an output buffer of N elements the kernel writes (`T*`).
    Out {
        /// Element type.
        dtype: Dtype,
        /// Elements.
        len: usize,
    },
    /// `out:like:PATH.npy`: an output buffer of the type and shape of that array.
    OutLike(PathBuf),
    /// `i32:5`, `u32:5`, `i64:5`, `f32:0.5`, `f64:0.5`: a scalar by value.
    Scalar(ScalarArg),
}

/// An array on the host: element type, shape and bytes (little-endian, C order).
#[derive(Clone, Debug, PartialEq)]
pub struct HostArray {
    /// Element type.
    pub dtype: Dtype,
    /// Extent of each dimension.
    pub shape: Vec<usize>,
    /// The values' bytes.
    pub bytes: Vec<u8>,
}

impl HostArray {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.bytes.len() / self.dtype.size()
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Element `i` as f64.
    pub fn get(&self, i: usize) -> f64 {
        let b = &self.bytes[i * self.dtype.size()..];
        match self.dtype {
            Dtype::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            Dtype::F64 => f64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            Dtype::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            Dtype::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
        }
    }

    /// Every element as f64.
    pub fn to_f64(&self) -> Vec<f64> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }

    /// The array as a `.npy` file.
    pub fn to_npy(&self) -> Vec<u8> {
        sigpu_runtime::npy::encode(self.dtype.descr(), &self.shape, &self.bytes)
    }

    /// Reads a `.npy` file of one of the [`Dtype`]s.
    pub fn read(path: &Path) -> std::result::Result<HostArray, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let npy = sigpu_runtime::npy::parse(&bytes, |d| {
            Dtype::from_descr(d)
                .map(Dtype::size)
                .ok_or_else(|| format!("element type {d} is not one of <f4, <f8, <i4, <u4 (float32, float64, int32, uint32)"))
        })
        .map_err(|e| format!("{}: {e}", path.display()))?;
        let dtype = Dtype::from_descr(&npy.descr).expect("checked by parse");
        Ok(HostArray {
            dtype,
            shape: npy.shape,
            bytes: npy.data,
        })
    }
}

/// One argument ready for the device.
#[derive(Clone, Debug, PartialEq)]
pub enum HostArg {
    /// An input array.
    In(HostArray),
    /// An output buffer of this type and shape.
    Out {
        /// Element type.
        dtype: Dtype,
        /// Shape (one dimension for `out:TYPE:N`).
        shape: Vec<usize>,
    },
    /// A scalar.
    Scalar(ScalarArg),
}

fn arg_error(index: usize, text: &str, what: impl Into<String>) -> ApproxError {
    ApproxError::Arg {
        index,
        text: text.to_owned(),
        what: what.into(),
    }
}

const FORMS: &str =
    "in:PATH.npy, out:f32|f64|i32|u32:N, out:like:PATH.npy, or a scalar i32:V, u32:V, i64:V, f32:V, f64:V";

/// Parses argument `index` (0-based) written as `text`.
pub fn parse_arg(index: usize, text: &str) -> Result<ArgSpec> {
    let err = |what: String| arg_error(index, text, what);
    let (kind, rest) = text
        .split_once(':')
        .ok_or_else(|| err(format!("expected KIND:VALUE ({FORMS})")))?;
    let number = |what: &str| format!("{rest:?} is not {what}");
    Ok(match kind {
        "in" if rest.is_empty() => return Err(err("in: needs a .npy path".into())),
        "in" => ArgSpec::In(PathBuf::from(rest)),
        "out" => match rest.split_once(':') {
            Some(("like", p)) if !p.is_empty() => ArgSpec::OutLike(PathBuf::from(p)),
            Some((t, n)) => {
                let dtype = Dtype::from_word(t).ok_or_else(|| {
                    err(format!(
                        "output type {t:?} is not f32, f64, i32, u32 or like"
                    ))
                })?;
                let len: usize = n
                    .parse()
                    .ok()
                    .filter(|&l| l > 0 && l <= (1usize << 34))
                    .ok_or_else(|| err(format!("{n:?} is not an element count in 1..=2^34")))?;
                ArgSpec::Out { dtype, len }
            }
            None => return Err(err("expected out:TYPE:N or out:like:PATH.npy".into())),
        },
        "i32" => ArgSpec::Scalar(ScalarArg::I32(
            rest.parse().map_err(|_| err(number("an i32")))?,
        )),
        "u32" => ArgSpec::Scalar(ScalarArg::U32(
            rest.parse().map_err(|_| err(number("a u32")))?,
        )),
        "i64" => ArgSpec::Scalar(ScalarArg::I64(
            rest.parse().map_err(|_| err(number("an i64")))?,
        )),
        "f32" => {
            let v: f32 = rest.parse().map_err(|_| err(number("an f32")))?;
            ArgSpec::Scalar(ScalarArg::F32(v))
        }
        "f64" => ArgSpec::Scalar(ScalarArg::F64(
            rest.parse().map_err(|_| err(number("an f64")))?,
        )),
        other => return Err(err(format!("unknown kind {other:?} (expected {FORMS})"))),
    })
}

/// Reads the files argument `index` names.
pub fn load_arg(index: usize, text: &str, spec: &ArgSpec) -> Result<HostArg> {
    let read = |p: &Path| HostArray::read(p).map_err(|e| arg_error(index, text, e));
    Ok(match spec {
        ArgSpec::In(p) => HostArg::In(read(p)?),
        ArgSpec::OutLike(p) => {
            let a = read(p)?;
            HostArg::Out {
                dtype: a.dtype,
                shape: a.shape,
            }
        }
        ArgSpec::Out { dtype, len } => HostArg::Out {
            dtype: *dtype,
            shape: vec![*len],
        },
        ArgSpec::Scalar(s) => HostArg::Scalar(*s),
    })
}

/// Parses and loads every argument; at least one output is required.
pub fn load_args<S: AsRef<str>>(texts: &[S]) -> Result<Vec<HostArg>> {
    let args = texts
        .iter()
        .enumerate()
        .map(|(i, t)| load_arg(i, t.as_ref(), &parse_arg(i, t.as_ref())?))
        .collect::<Result<Vec<_>>>()?;
    if !args.iter().any(|a| matches!(a, HostArg::Out { .. })) {
        return Err(ApproxError::Arg {
            index: texts.len(),
            text: String::new(),
            what: "no output buffer (out:TYPE:N or out:like:PATH.npy): nothing to compare".into(),
        });
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses() {
        assert_eq!(
            parse_arg(0, "in:x.npy").unwrap(),
            ArgSpec::In("x.npy".into())
        );
        assert_eq!(
            parse_arg(1, "out:f32:4096").unwrap(),
            ArgSpec::Out {
                dtype: Dtype::F32,
                len: 4096
            }
        );
        assert_eq!(
            parse_arg(2, "out:like:y.npy").unwrap(),
            ArgSpec::OutLike("y.npy".into())
        );
        assert_eq!(
            parse_arg(3, "i32:-5").unwrap(),
            ArgSpec::Scalar(ScalarArg::I32(-5))
        );
        assert_eq!(
            parse_arg(3, "u32:7").unwrap(),
            ArgSpec::Scalar(ScalarArg::U32(7))
        );
        assert_eq!(
            parse_arg(3, "i64:7").unwrap(),
            ArgSpec::Scalar(ScalarArg::I64(7))
        );
        assert_eq!(
            parse_arg(4, "f32:-0.5").unwrap(),
            ArgSpec::Scalar(ScalarArg::F32(-0.5))
        );
        assert_eq!(
            parse_arg(4, "f64:1e-3").unwrap(),
            ArgSpec::Scalar(ScalarArg::F64(1e-3))
        );
    }

    #[test]
    fn errors_name_the_argument() {
        for (text, want) in [
            ("x.npy", "KIND:VALUE"),
            ("in:", "needs a .npy path"),
            ("out:f16:8", "\"f16\""),
            ("out:f32:0", "element count"),
            ("out:f32:lots", "element count"),
            ("out:f32", "out:TYPE:N"),
            ("i32:2.5", "not an i32"),
            ("f32:abc", "not an f32"),
            ("u32:-1", "not a u32"),
            ("ptr:0", "unknown kind"),
        ] {
            let e = parse_arg(2, text).unwrap_err().to_string();
            assert!(e.starts_with(&format!("argument 3 ({text:?})")), "{e}");
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn npy_files_load_and_bad_ones_are_named() {
        let dir = std::env::temp_dir().join(format!("sigpu-approx-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let x = HostArray {
            dtype: Dtype::F32,
            shape: vec![2, 3],
            bytes: (0..6)
                .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
                .collect(),
        };
        let px = dir.join("x.npy");
        std::fs::write(&px, x.to_npy()).unwrap();
        let pb = dir.join("b.npy");
        std::fs::write(&pb, sigpu_runtime::npy::encode("<i2", &[2], &[0, 0, 0, 0])).unwrap();
        let texts = [
            format!("in:{}", px.display()),
            format!("out:like:{}", px.display()),
            "i32:6".to_owned(),
        ];
        let args = load_args(&texts).unwrap();
        assert_eq!(args[0], HostArg::In(x.clone()));
        assert_eq!(
            args[1],
            HostArg::Out {
                dtype: Dtype::F32,
                shape: vec![2, 3]
            }
        );
        assert_eq!(x.get(5), 2.5);
        let e = load_args(&[format!("in:{}", pb.display()), "out:f32:2".into()])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("argument 1") && e.contains("<i2"), "{e}");
        let e = load_args(&["in:/nonexistent/q.npy", "out:f32:2"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot read /nonexistent/q.npy"), "{e}");
        let e = load_args(&[format!("in:{}", px.display())])
            .unwrap_err()
            .to_string();
        assert!(e.contains("no output buffer"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}

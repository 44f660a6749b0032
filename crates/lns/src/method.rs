//! The s_b/d_b methods by name, with automatic table geometry per format.

use crate::arith::{Accurate, AddSub};
use crate::error::LnsError;
use crate::f32split::F32Split;
use crate::fast::F64Tables;
use crate::format::{by_name, Format};
use crate::poly::F64Poly;
use crate::tables::{Reader, Tables};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// How s_b and d_b are evaluated (texture-LNS's Table 1, plus an f64 reference).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Method {
    /// f64 `log2(1 + exp2(z))` (d_b near 0 through expm1): the reference on the CPU, FP64 units
    /// on the GPU.
    F64,
    /// f64 piecewise quadratics from tables (~80 KB at F = 23). CPU only.
    F64Table,
    /// f64 range reduction with three 16-entry tables and two degree-4 polynomials
    /// ([`F64Poly`]): the CPU's fast faithful method. CPU only.
    F64Poly,
    /// Piecewise cubics in f32 FMA arithmetic whose constant terms are split into an exact
    /// integer code and an f32 residual ([`F32Split`]): faithful on lns32 without FP64, and
    /// bit-exact between the GPU kernel and its CPU twin.
    F32Split,
    /// f32 libdevice `log2f(1 + exp2f(z))`; d_b near 0 in the analytic form. GPU only.
    Accurate,
    /// The special-function units: `ex2.approx` / `lg2.approx`. GPU only.
    Sfu,
    /// A piecewise polynomial of this degree (2..=5) evaluated by f32 FMA Horner.
    Horner(u8),
    /// A 1-D linear-filtered texture per function.
    Tex1,
    /// The bilinear-filter order-2 trick (texture-LNS, eq. 3–4).
    Tex2,
    /// Every result code in one point-sampled texture per function (one fetch per result),
    /// for formats with few codes (lns16). The texels are the f64 reference's codes, so its
    /// CPU twin is [`Method::F64`] and its results are correctly rounded.
    TexLut,
}

impl Method {
    /// Every method, in the order reports list them.
    pub const ALL: [Method; 13] = [
        Method::F64,
        Method::F64Table,
        Method::F64Poly,
        Method::F32Split,
        Method::Accurate,
        Method::Sfu,
        Method::Horner(2),
        Method::Horner(3),
        Method::Horner(4),
        Method::Horner(5),
        Method::Tex1,
        Method::Tex2,
        Method::TexLut,
    ];

    /// The CPU's default add/sub method: f64 range reduction and short polynomials, the
    /// fastest on the CPU and certified faithful over every input of lns16 and lns32
    /// (BENCHMARKS.md). For other formats its fits' bound, under 2^-31 in the log domain, is
    /// below half an ulp up to F = 29 (the f64 tables' near-pole d_b is worse at large F);
    /// beyond that the f64 reference is the default.
    pub fn cpu_default(format: Format) -> Method {
        if format.frac_bits <= 29 {
            Method::F64Poly
        } else {
            Method::F64
        }
    }

    /// The GPU's default add/sub method: the fastest one certified faithful over every input
    /// on the H100 (BENCHMARKS.md): the SFUs for lns16, [`F32Split`] (f32 FMA only) for lns32,
    /// FP64 for anything else (f32split is certified on lns16 and lns32 only).
    pub fn gpu_default(format: Format) -> Method {
        if format == Format::LNS16 {
            Method::Sfu
        } else if format == Format::LNS32 {
            Method::F32Split
        } else {
            Method::F64
        }
    }

    /// The add/sub method whose CPU twin gives the GPU kernel's words bit for bit, for arrays
    /// that live on either side (the LNS tensor): [`F32Split`] where it takes the format
    /// (5 ≤ F ≤ 23; faithful, certified over every input of lns16 and lns32 and of every
    /// format with F ≤ 16 by the tests), else `None` (each side then keeps its default).
    pub fn bit_exact(format: Format) -> Option<Method> {
        Method::F32Split.takes(format).then_some(Method::F32Split)
    }

    /// Methods with a CPU evaluator (for GPU methods, a twin that reproduces the GPU bit for
    /// bit), so they certify on the CPU.
    pub fn runs_on_cpu(self) -> bool {
        !matches!(self, Method::Accurate | Method::Sfu)
    }

    /// Methods with a GPU kernel.
    pub fn runs_on_gpu(self) -> bool {
        !matches!(self, Method::F64Table | Method::F64Poly)
    }

    /// Whether the method takes `format` (every method but f32split and texlut takes every
    /// format the crate has; f32split needs 5 ≤ F ≤ 23, texlut at most [`TEXLUT_MAX_TEXELS`]
    /// inputs): what `--method all` runs.
    pub fn takes(self, format: Format) -> bool {
        match self {
            Method::F32Split => F32Split::takes(format),
            Method::TexLut => texlut_takes(format),
            _ => true,
        }
    }

    /// The table reader of a table-driven method.
    pub fn reader(self) -> Option<Reader> {
        match self {
            Method::Horner(d) => Some(Reader::Horner(d as usize)),
            Method::Tex1 => Some(Reader::Texture1),
            Method::Tex2 => Some(Reader::Texture2),
            _ => None,
        }
    }

    /// Tables with the default geometry for `format`: far segments per unit of z chosen so the
    /// approximation error is a small fraction of an ulp at F = 23 (degree 2: 64 per unit,
    /// 3: 16, 4: 8, 5: 4; order 1: 256, the texel budget a texture cache holds; order 2: 64).
    /// Shorter formats get the same segments per unit, or one code per segment at least.
    pub fn tables(self, format: Format) -> Option<Result<Tables, LnsError>> {
        let reader = self.reader()?;
        let per_unit_bits: u32 = match self {
            Method::Horner(2) => 6,
            Method::Horner(3) => 4,
            Method::Horner(4) => 3,
            Method::Horner(5) => 2,
            Method::Tex1 => 8,
            _ => 6,
        };
        let shift = format.frac_bits.saturating_sub(per_unit_bits);
        let log2m_bits = if self == Method::Tex1 {
            8
        } else {
            per_unit_bits + 2
        };
        Some(Tables::build(
            format,
            reader,
            shift,
            shift.min(format.frac_bits),
            log2m_bits,
        ))
    }

    /// A CPU evaluator of this method, when it has one.
    pub fn cpu(self, format: Format) -> Result<Option<Box<dyn AddSub>>, LnsError> {
        Ok(match self {
            Method::F64 => Some(Box::new(Accurate(format))),
            Method::F64Table => Some(Box::new(F64Tables::new(format)?)),
            Method::F64Poly => Some(Box::new(F64Poly::new(format)?)),
            Method::F32Split => Some(Box::new(F32Split::new(format)?)),
            Method::Accurate | Method::Sfu => None,
            // The texels are this evaluator's codes (src/gpu/lut.rs).
            Method::TexLut => Some(Box::new(Accurate(format))),
            table => Some(Box::new(table.tables(format).expect("table method")?)),
        })
    }
}

/// The most texels a texlut table may have: one per input z0 − 1 ..= 0 (lns16: 11,809), in a
/// 1-D CUDA array (sm_90 takes up to 131,072; the bound keeps a table within 256 KB).
pub const TEXLUT_MAX_TEXELS: i64 = 1 << 16;

/// Whether every s_b / d_b input of `format` fits one texlut table: F ≤ 12.
fn texlut_takes(format: Format) -> bool {
    2 - format.essential_zero_code() <= TEXLUT_MAX_TEXELS
}

impl AddSub for Box<dyn AddSub> {
    fn format(&self) -> Format {
        (**self).format()
    }
    fn sb(&self, z: i64) -> i64 {
        (**self).sb(z)
    }
    fn db(&self, z: i64) -> i64 {
        (**self).db(z)
    }
    fn eval_codes(&self, db: bool, zs: &[i64], out: &mut [i64]) {
        (**self).eval_codes(db, zs, out)
    }
    fn add_words(&self, a: &[u32], b: &[u32], out: &mut [u32]) {
        (**self).add_words(a, b, out)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Method::F64 => f.write_str("f64"),
            Method::F64Table => f.write_str("f64table"),
            Method::F64Poly => f.write_str("f64poly"),
            Method::F32Split => f.write_str("f32split"),
            Method::Accurate => f.write_str("accurate"),
            Method::Sfu => f.write_str("sfu"),
            Method::Horner(d) => write!(f, "horner{d}"),
            Method::Tex1 => f.write_str("tex1"),
            Method::Tex2 => f.write_str("tex2"),
            Method::TexLut => f.write_str("texlut"),
        }
    }
}

/// A method name [`Method`] does not parse; the message lists the names it does.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown s_b/d_b method {0:?}: expected one of f64, f64table, f64poly, f32split, accurate, sfu, horner2..horner5, tex1, tex2, texlut")]
pub struct MethodError(String);

impl FromStr for Method {
    type Err = MethodError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        by_name(s, Method::ALL).ok_or_else(|| MethodError(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::{certify, Which};

    #[test]
    fn names_round_trip() {
        for m in Method::ALL {
            assert_eq!(m.to_string().parse(), Ok(m));
        }
        assert!("horner6".parse::<Method>().is_err());
        assert!("".parse::<Method>().is_err());
    }

    #[test]
    fn texlut_takes_short_formats_only() {
        assert!(Method::TexLut.takes(Format::LNS16));
        assert!(!Method::TexLut.takes(Format::LNS32));
    }

    #[test]
    fn every_cpu_method_is_faithful_on_lns16_by_default() {
        for m in Method::ALL.into_iter().filter(|m| m.runs_on_cpu()) {
            let eval = m.cpu(Format::LNS16).unwrap().unwrap();
            for func in [Which::Sb, Which::Db] {
                let c = certify(&eval, func, &m.to_string(), &|_| {});
                assert!(c.faithful, "{m} {func:?}: {c:?}");
            }
        }
    }
}

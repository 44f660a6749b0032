//! What the planner takes: a filter as a user gives it, and the element type it runs in.

use crate::elem::DType;
use crate::error::FilterError;
use crate::filter::FilterOptions;
use crate::numbers::short;
use crate::signature::Signature;

/// A filter as a user gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum FilterSpec {
    /// SciPy's `lfilter(b, a)`: numerator and denominator, a[0] normalises.
    Ba {
        /// Numerator.
        b: Vec<f64>,
        /// Denominator.
        a: Vec<f64>,
    },
    /// The signature notation of Maleki & Burtscher's PLR paper (integer coefficients run
    /// exactly in integer element types).
    Signature(Signature),
    /// Second-order sections, SciPy's `(n_sections, 6)` rows `[b0, b1, b2, 1, a1, a2]`.
    Sos(Vec<[f64; 6]>),
}

impl FilterSpec {
    /// SciPy's `(b, a)`.
    pub fn ba(b: &[f64], a: &[f64]) -> FilterSpec {
        FilterSpec::Ba {
            b: b.to_vec(),
            a: a.to_vec(),
        }
    }

    /// The values that identify the filter exactly (for the planner's cache).
    pub(super) fn key(&self) -> Vec<u64> {
        let bits = |v: &[f64]| v.iter().map(|c| c.to_bits()).collect::<Vec<u64>>();
        match self {
            FilterSpec::Ba { b, a } => {
                let mut k = vec![0, b.len() as u64];
                k.extend(bits(b));
                k.extend(bits(a));
                k
            }
            FilterSpec::Signature(s) => {
                let mut k = vec![1, s.feedforward.len() as u64, s.state_len as u64];
                for c in s.feedforward.iter().chain(&s.feedback) {
                    k.push(c.value.to_bits());
                    k.push(c.int.map_or(u64::MAX, |i| i as u64));
                    k.push(u64::from(c.int.is_some()));
                }
                k
            }
            FilterSpec::Sos(rows) => {
                let mut k = vec![2];
                k.extend(rows.iter().flat_map(|r| bits(r)));
                k
            }
        }
    }

    /// The filter as a signature (a (b, a) filter converted; sections have none).
    pub fn as_signature(&self) -> Result<FilterSpec, FilterError> {
        match self {
            FilterSpec::Signature(_) => Ok(self.clone()),
            FilterSpec::Ba { b, a } => Ok(FilterSpec::Signature(Signature::from_lfilter(b, a)?)),
            FilterSpec::Sos(_) => Err(FilterError::Input(
                "--emit-cuda shows the (b, a) / signature kernel; give --signature or --b/--a"
                    .into(),
            )),
        }
    }

    /// The CUDA source the PLR generator writes for this (b, a) filter or signature in
    /// `dtype` (what the GPU would compile where the contract picks plr; needs no GPU).
    pub fn cuda_source(&self, dtype: DType, options: FilterOptions) -> Result<String, FilterError> {
        let FilterSpec::Signature(signature) = self.as_signature()? else {
            unreachable!("as_signature gives a signature")
        };
        crate::with_dtype!(dtype, T => {
            let filter = crate::filter::Filter::<T>::new(&signature, options)?;
            Ok(crate::gpu::generate(&filter, crate::gpu::GpuConfig::default())?.source)
        })
    }

    /// The element type the filter runs in for input of element type `input`: `asked`, else
    /// `natural` (the input's own; a WAV file's sample format). Integer input runs a (b, a)
    /// filter or sections in f64 (SciPy's promotion), and a signature exactly in the integer
    /// type, which needs integer coefficients.
    pub fn dtype_for(
        &self,
        input: DType,
        natural: DType,
        asked: Option<DType>,
    ) -> Result<DType, FilterError> {
        let d = asked.unwrap_or(natural);
        if d.is_float() {
            return Ok(d);
        }
        match self {
            FilterSpec::Signature(s) => {
                let all = s.feedforward.iter().chain(&s.feedback);
                match all.clone().find(|c| c.int.is_none()) {
                    None => Ok(d),
                    Some(c) => Err(FilterError::Coefficients(format!(
                        "holds {input} values, so the signature runs as an exact integer \
                         recurrence, but its coefficient {} is not an integer: pass --dtype \
                         f64 (or f32) to filter in floating point",
                        c.text
                    ))),
                }
            }
            _ if asked.is_none() => Ok(DType::F64),
            _ => Err(FilterError::Input(format!(
                "(b, a) filters and sections run in f32 or f64 (SciPy promotes integer input \
                 to f64), not {d}: drop --dtype {d} or give f32/f64"
            ))),
        }
    }
}

impl std::fmt::Display for FilterSpec {
    /// The filter as given: the signature, the (b, a) values, or the number of sections.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |v: &[f64]| v.iter().map(|&x| short(x)).collect::<Vec<_>>().join(", ");
        match self {
            FilterSpec::Signature(s) => write!(f, "{s}"),
            FilterSpec::Ba { b, a } => write!(f, "b = [{}], a = [{}]", list(b), list(a)),
            FilterSpec::Sos(rows) => write!(f, "{} second-order section(s)", rows.len()),
        }
    }
}

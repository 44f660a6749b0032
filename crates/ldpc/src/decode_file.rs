//! Decoding a user's file: LLRs from a `.npy` file (float32, or int8 at a given scale;
//! codewords × N) into hard decisions written as a uint8 `.npy` file of the same shape — what
//! `sigpu ldpc decode` does, here so that any program can do it too.

use crate::npy::{read_llrs_typed, write_u8, NpyLlrs};
use crate::{Code, DecodeStats, DecoderConfig, LdpcError, Llrs, Precision, Result};
use sigpu_runtime::Target;
use std::path::{Path, PathBuf};

/// What one file's decoding did.
#[derive(Clone, Debug)]
pub struct FileDecoded {
    /// The code's name.
    pub code: String,
    /// The files read and written.
    pub files: DecodeFiles,
    /// The decoder as [`Decoder::describe`] names it.
    pub decoder: String,
    /// The decoder's counts.
    pub stats: DecodeStats,
    /// The decoding alone (not reading or writing the files).
    pub seconds: f64,
    /// The input's type: `float32`, `int8`, or `float64` (converted to float32 on reading).
    pub input_dtype: &'static str,
}

/// Where a decoding reads its LLRs and writes its results.
#[derive(Clone, Debug)]
pub struct DecodeFiles {
    /// LLRs, codewords × N: float32, float64 (converted) or int8 (at `scale` steps per unit).
    pub input: PathBuf,
    /// The int8 input's steps per LLR unit.
    pub scale: f32,
    /// Hard decisions, uint8, codewords × N.
    pub output: PathBuf,
    /// Each bit's posterior LLR, float32, codewords × N (the f32 CPU decoder only).
    pub soft: Option<PathBuf>,
    /// The information bits alone (the first K of each codeword), uint8, codewords × K.
    pub info: Option<PathBuf>,
}

/// Decodes every codeword of `files.input` with the decoder [`crate::plan::decoder`] gives
/// for `config` on `target`, and writes the files asked for. Posterior LLRs (`files.soft`)
/// come from the f32 CPU decoder only: asked of another, they are refused before any work.
pub fn decode_npy(
    code: &Code,
    config: DecoderConfig,
    target: &Target,
    files: &DecodeFiles,
) -> Result<FileDecoded> {
    let soft_ok = target.gpu().is_none() && config.precision == Precision::Float;
    if files.soft.is_some() && !soft_ok {
        return Err(LdpcError::invalid(
            "--soft: posterior LLRs come from the f32 CPU decoder only; add --precision float \
             (and leave out --device cuda)",
        ));
    }
    let mut decoder = crate::plan::decoder(code, config, target)?;
    let (llrs, input_dtype) = read_words(code, &files.input)?;
    let values = match &llrs {
        NpyLlrs::F32(v) => Llrs::F32(v),
        NpyLlrs::I8(v) => Llrs::I8 {
            values: v,
            scale: files.scale,
        },
    };
    let mut bits = vec![0u8; values.len()];
    let mut posterior = vec![0f32; if files.soft.is_some() { bits.len() } else { 0 }];
    let start = std::time::Instant::now();
    let stats = match files.soft {
        Some(_) => decoder.decode_soft(values, &mut bits, &mut posterior)?,
        None => decoder.decode(values, &mut bits)?,
    };
    let seconds = start.elapsed().as_secs_f64();
    let (rows, n) = (bits.len() / code.n(), code.n());
    write_u8(&files.output, &bits, rows, n)?;
    if let Some(soft) = &files.soft {
        let bytes: Vec<u8> = posterior.iter().flat_map(|v| v.to_le_bytes()).collect();
        let file = sigpu_runtime::npy::encode("<f4", &[rows, n], &bytes);
        sigpu_runtime::fs::write_atomic(soft, &file).map_err(|source| LdpcError::Io {
            path: soft.to_owned(),
            source,
        })?;
    }
    if let Some(info) = &files.info {
        crate::info_bits_npy(code, &files.output, info)?;
    }
    Ok(FileDecoded {
        code: code.name().to_owned(),
        files: files.clone(),
        decoder: decoder.describe(),
        stats,
        seconds,
        input_dtype,
    })
}

impl FileDecoded {
    /// The decoding as `sigpu ldpc decode --json` reports it: code, decoder, counts, seconds,
    /// the input's type and every file written.
    pub fn report(&self) -> serde_json::Value {
        let s = &self.stats;
        let mut report = serde_json::json!({
            "code": self.code, "decoder": self.decoder, "codewords": s.codewords,
            "valid": s.valid, "iterations": s.iterations, "seconds": self.seconds,
            "output": self.files.output.display().to_string(), "input_dtype": self.input_dtype,
        });
        for (key, path) in [
            ("output_info", &self.files.info),
            ("soft", &self.files.soft),
        ] {
            if let Some(path) = path {
                report[key] = path.display().to_string().into();
            }
        }
        report
    }

    /// The decoding in one line of text, naming every file written.
    pub fn summary(&self) -> String {
        let named = |what: &str, p: &Option<PathBuf>| {
            (p.as_ref()).map_or_else(String::new, |p| format!(", {what} to {}", p.display()))
        };
        format!(
            "{}: decoded {} codewords with {} in {:.3} s; {} satisfy every check; wrote {}{}{}",
            self.code,
            self.stats.codewords,
            self.decoder,
            self.seconds,
            self.stats.valid,
            self.files.output.display(),
            named("the information bits", &self.files.info),
            named("the posterior LLRs", &self.files.soft),
        )
    }
}

/// The LLRs of `input` and their type, refused unless they are whole codewords of `code`.
fn read_words(code: &Code, input: &Path) -> Result<(NpyLlrs, &'static str)> {
    let (llrs, shape, input_dtype) = read_llrs_typed(input)?;
    let n = code.n();
    if llrs.is_empty() || llrs.len() % n != 0 || (shape.len() == 2 && shape[1] != n) {
        let name = code.name();
        return Err(LdpcError::Npy {
            file: input.to_owned(),
            message: format!("shape {shape:?} does not hold whole codewords of {name} (N = {n})"),
        });
    }
    Ok((llrs, input_dtype))
}

//! Decoding a user's file: LLRs from a `.npy` file (float32, or int8 at a given scale;
//! codewords × N) into hard decisions written as a uint8 `.npy` file of the same shape — what
//! `sigpu ldpc decode` does, here so that any program can do it too.

use crate::decoder::cpu_decoder;
use crate::npy::{read_llrs_typed, write_u8, NpyLlrs};
use crate::{Code, DecodeStats, Decoder, DecoderConfig, LdpcError, Llrs, Result};
use sigpu_runtime::cuda::Gpu;
use std::path::Path;

/// What one file's decoding did.
#[derive(Clone, Debug)]
pub struct FileDecoded {
    /// The decoder as [`Decoder::describe`] names it.
    pub decoder: String,
    pub stats: DecodeStats,
    /// The decoding alone (not reading or writing the files).
    pub seconds: f64,
    /// The input's type: `float32`, `int8`, or `float64` (converted to float32 on reading).
    pub input_dtype: &'static str,
}

/// Decodes every codeword in `input` with `config` on `gpu` (or the CPU), `scale` being the
/// int8 LLRs' steps per unit, and writes the hard decisions to `output`.
pub fn decode_npy(
    code: &Code,
    gpu: Option<&Gpu>,
    config: DecoderConfig,
    scale: f32,
    input: &Path,
    output: &Path,
) -> Result<FileDecoded> {
    let (llrs, shape, input_dtype) = read_llrs_typed(input)?;
    let n = code.n();
    if llrs.is_empty() || llrs.len() % n != 0 || (shape.len() == 2 && shape[1] != n) {
        let name = code.name();
        return Err(LdpcError::Npy {
            file: input.to_owned(),
            message: format!("shape {shape:?} does not hold whole codewords of {name} (N = {n})"),
        });
    }
    let mut decoder: Box<dyn Decoder + '_> = match gpu {
        Some(gpu) => crate::gpu::decoder(gpu, code, config)?,
        None => cpu_decoder(code, config)?,
    };
    let mut bits = vec![0u8; llrs.len()];
    let start = std::time::Instant::now();
    let values = match &llrs {
        NpyLlrs::F32(v) => Llrs::F32(v),
        NpyLlrs::I8(v) => Llrs::I8 { values: v, scale },
    };
    let stats = decoder.decode(values, &mut bits)?;
    let seconds = start.elapsed().as_secs_f64();
    write_u8(output, &bits, bits.len() / n, n)?;
    Ok(FileDecoded {
        decoder: decoder.describe(),
        stats,
        seconds,
        input_dtype,
    })
}

/// What [`decode_npy_soft`] did.
#[derive(Clone, Debug)]
pub struct SoftDecoded {
    pub decoder: String,
    pub stats: DecodeStats,
    pub seconds: f64,
    /// The input's type, as [`FileDecoded::input_dtype`].
    pub input_dtype: &'static str,
}

/// As [`decode_npy`] on the CPU, and also writes each bit's posterior LLR (ln P(0)/P(1) after
/// the last iteration, float32, codewords × N) to `soft`. Posteriors come from the f32 decoder
/// only: `config` must ask for float precision (the 8-bit and GPU decoders keep none).
pub fn decode_npy_soft(
    code: &Code,
    config: DecoderConfig,
    scale: f32,
    input: &Path,
    output: &Path,
    soft: &Path,
) -> Result<SoftDecoded> {
    let (llrs, shape, input_dtype) = read_llrs_typed(input)?;
    let n = code.n();
    if llrs.is_empty() || llrs.len() % n != 0 || (shape.len() == 2 && shape[1] != n) {
        let name = code.name();
        return Err(LdpcError::Npy {
            file: input.to_owned(),
            message: format!("shape {shape:?} does not hold whole codewords of {name} (N = {n})"),
        });
    }
    let mut decoder = cpu_decoder(code, config)?;
    let mut bits = vec![0u8; llrs.len()];
    let mut posterior = vec![0f32; llrs.len()];
    let start = std::time::Instant::now();
    let values = match &llrs {
        NpyLlrs::I8(v) => Llrs::I8 { values: v, scale },
        NpyLlrs::F32(v) => Llrs::F32(v),
    };
    let stats = decoder.decode_soft(values, &mut bits, &mut posterior)?;
    let seconds = start.elapsed().as_secs_f64();
    let rows = bits.len() / n;
    write_u8(output, &bits, rows, n)?;
    let bytes: Vec<u8> = posterior.iter().flat_map(|v| v.to_le_bytes()).collect();
    let file = sigpu_runtime::npy::encode("<f4", &[rows, n], &bytes);
    sigpu_runtime::fs::write_atomic(soft, &file).map_err(|source| LdpcError::Io {
        path: soft.to_owned(),
        source,
    })?;
    Ok(SoftDecoded {
        decoder: decoder.describe(),
        stats,
        seconds,
        input_dtype,
    })
}

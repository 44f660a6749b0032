//! The front door: a code, a [`DecoderConfig`] and a [`Target`] in, one [`Decoder`] out. The
//! engine is picked here, once, for every face (the command line, the Python binding, the
//! sweeps): the f32 or 8-bit CPU decoders on a CPU target, the 8-bit GPU decoder of the
//! schedule on a GPU target, and for simulations the GPU frame chain where it holds the code.
//! A configuration no engine of the target runs is refused with the way out, never swapped
//! for another decoder.

use crate::code::Code;
use crate::decoder::{cpu_decoder, Decoder, DecoderConfig, Precision};
use crate::error::{LdpcError, Result};
use crate::gpu;
use sigpu_runtime::{CpuTarget, GpuTarget, Target};

/// The decoder for `config` on `target`. A CPU target's thread count applies where `config`
/// leaves it to the decoder (`threads` 0). GPU decoders are 8-bit: float on a GPU target is
/// refused (float decoders run on the CPU).
pub fn decoder(code: &Code, config: DecoderConfig, target: &Target) -> Result<Box<dyn Decoder>> {
    config.validate()?;
    match target {
        Target::Cpu(cpu) => cpu_decoder(code, on_cpu(config, cpu)),
        Target::Gpu(g) => {
            on_gpu(config)?;
            gpu::decoder(g.gpu(), code, config)
        }
    }
}

/// The decoder a simulation runs on `target`: as [`decoder`], except that on a GPU with
/// `device_frames`, the flooding schedule and a code the frame chain holds, the frames are made
/// on the GPU too ([`gpu::ChainDecoder`]: the same frames and counts as the host's).
pub fn simulation_decoder(
    code: &Code,
    config: DecoderConfig,
    target: &Target,
    device_frames: bool,
) -> Result<Box<dyn Decoder>> {
    match target {
        Target::Gpu(g) => {
            config.validate()?;
            on_gpu(config)?;
            gpu::simulation_decoder(g.gpu(), code, config, device_frames)
        }
        cpu => decoder(code, config, cpu),
    }
}

/// The decoder for LLRs that already live on `gpu`'s device ([`Decoder::decode_device`]): the
/// 8-bit GPU decoder of the schedule there; a float configuration gets the f32 CPU decoder,
/// which copies the LLRs through the host on the target's stream.
pub fn device_decoder(
    code: &Code,
    config: DecoderConfig,
    gpu: &GpuTarget,
) -> Result<Box<dyn Decoder>> {
    match config.precision {
        Precision::Float => decoder(code, config, &Target::cpu()),
        Precision::Fixed8 { .. } => decoder(code, config, &Target::Gpu(gpu.clone())),
    }
}

/// The GPU target of `gpu` on its own stream, or the host when there is none: how faces that
/// default to the CPU turn an optional device into a target.
pub fn target(gpu: Option<sigpu_runtime::cuda::Gpu>) -> Target {
    gpu.map_or_else(Target::cpu, |g| Target::Gpu(GpuTarget::new(g)))
}

fn on_cpu(mut config: DecoderConfig, cpu: &CpuTarget) -> DecoderConfig {
    if config.threads == 0 {
        config.threads = cpu.threads.unwrap_or(0);
    }
    config
}

fn on_gpu(config: DecoderConfig) -> Result<()> {
    match config.precision {
        Precision::Fixed8 { .. } => Ok(()),
        Precision::Float => Err(LdpcError::invalid(
            "the GPU decoders are 8-bit min-sum: use --precision 8bit, or the CPU for float",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Algorithm, Schedule};

    #[test]
    fn a_cpu_target_gets_the_decoder_of_its_precision_and_schedule() {
        let code = Code::standard("dvbt2-short-1/2").unwrap();
        let cases = [
            (Precision::Float, Schedule::Flooding, "f32"),
            (Precision::Fixed8 { scale: 4.0 }, Schedule::Layered, "8-bit"),
            (
                Precision::Fixed8 { scale: 4.0 },
                Schedule::LayeredCompact,
                "compact",
            ),
        ];
        for (precision, schedule, word) in cases {
            let config = DecoderConfig {
                precision,
                schedule,
                ..DecoderConfig::default()
            };
            let d = decoder(&code, config, &Target::cpu()).unwrap();
            assert!(d.describe().contains(word), "{}", d.describe());
        }
        let spa8 = DecoderConfig {
            algorithm: Algorithm::SumProduct,
            ..DecoderConfig::default()
        };
        assert!(decoder(&code, spa8, &Target::cpu()).is_err());
        assert_eq!(
            on_cpu(
                DecoderConfig::default(),
                &CpuTarget {
                    threads: Some(3),
                    ..CpuTarget::default()
                }
            )
            .threads,
            3
        );
    }
}

//! The decoder as a user's face names it — algorithm, schedule, precision, iterations, early
//! termination, the 8-bit scale apart from the precision, threads — turned into one checked
//! [`DecoderConfig`]. The command line's decoder flags and the Python keywords both come
//! through here, so the two read the same options the same way.

use crate::{Algorithm, DecoderConfig, Precision, Result, Schedule};

/// A decoder choice as flat options (`--decoder`, `--precision`, `--schedule`, …).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecoderOptions {
    /// The check-node rule.
    pub algorithm: Algorithm,
    /// The message-passing schedule.
    pub schedule: Schedule,
    /// Float or 8-bit; an 8-bit precision takes `scale`.
    pub precision: Precision,
    /// Most decoding iterations per codeword.
    pub iterations: usize,
    /// Stop each batch once all its codewords satisfy every check.
    pub early_termination: bool,
    /// The 8-bit LLR scale: quantised = round(LLR · scale), saturated to ±127.
    pub scale: f32,
    /// CPU threads (0 = all).
    pub threads: usize,
}

impl DecoderOptions {
    /// The configuration these options ask for, refused when no decoder runs it
    /// ([`DecoderConfig::validate`]).
    pub fn config(&self) -> Result<DecoderConfig> {
        let config = DecoderConfig {
            algorithm: self.algorithm,
            schedule: self.schedule,
            precision: self.precision.with_scale(self.scale),
            iterations: self.iterations,
            early_termination: self.early_termination,
            threads: self.threads,
        };
        config.validate()?;
        Ok(config)
    }

    /// The default decoder's 8-bit LLR scale (8 when the default is float).
    pub fn default_scale() -> f32 {
        match DecoderConfig::default().precision {
            Precision::Fixed8 { scale } => scale,
            Precision::Float => 8.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> DecoderOptions {
        let d = DecoderConfig::default();
        DecoderOptions {
            algorithm: d.algorithm,
            schedule: d.schedule,
            precision: Precision::Fixed8 { scale: 1.0 },
            iterations: d.iterations,
            early_termination: false,
            scale: DecoderOptions::default_scale(),
            threads: 0,
        }
    }

    #[test]
    fn the_defaults_give_the_default_config_and_the_scale_reaches_the_precision() {
        assert_eq!(options().config().unwrap(), DecoderConfig::default());
        let scaled = DecoderOptions {
            scale: 4.0,
            ..options()
        }
        .config()
        .unwrap();
        assert_eq!(scaled.precision, Precision::Fixed8 { scale: 4.0 });
    }

    #[test]
    fn a_configuration_no_decoder_runs_is_refused() {
        let spa8 = DecoderOptions {
            algorithm: Algorithm::SumProduct,
            ..options()
        };
        assert!(spa8.config().is_err());
    }
}

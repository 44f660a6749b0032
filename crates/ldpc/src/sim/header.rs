//! The decoder and demapper a sweep file names, readable in the files of every version.

use crate::channel::Demapper;
use crate::decoder::{Algorithm, DecoderConfig, DecoderSpec, Precision};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The decoder of a sweep file: the machine-readable [`DecoderSpec`], or in files written
/// before it existed the prose description alone (still read, plotted and resumed: a resumed
/// run is the same decoder when its description is the same).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum SweepDecoder {
    /// The machine-readable decoder.
    Spec(DecoderSpec),
    /// The prose description of files written before the fields.
    Description(String),
}

impl SweepDecoder {
    /// [`DecoderConfig::describe`] of the decoder, e.g. for a curve's label.
    pub fn description(&self) -> &str {
        match self {
            SweepDecoder::Spec(spec) => &spec.description,
            SweepDecoder::Description(text) => text,
        }
    }
}

impl SweepDecoder {
    /// The configuration the fields name, checked against the file's own description: the
    /// fields of a file written by this version must name a decoder that runs
    /// ([`DecoderConfig::validate`]) and write back to the same fields and description (a
    /// file whose `kind` was changed under the same description is refused). `Ok(None)` for
    /// a file with the prose description alone.
    pub fn config(&self) -> std::result::Result<Option<DecoderConfig>, String> {
        let SweepDecoder::Spec(spec) = self else {
            return Ok(None);
        };
        let rule = match (spec.alpha, spec.beta) {
            (Some(a), None) => format!("{}:{a}", spec.kind),
            (None, Some(b)) => format!("{}:{b}", spec.kind),
            _ => spec.kind.clone(),
        };
        let algorithm: Algorithm = rule.parse().map_err(|e| format!("decoder: {e}"))?;
        let precision: Precision =
            (spec.precision.parse::<Precision>()).map_err(|e| format!("decoder: {e}"))?;
        let precision = match (precision, spec.scale) {
            (Precision::Fixed8 { .. }, Some(scale)) => precision.with_scale(scale),
            (Precision::Float, None) => precision,
            _ => {
                return Err(format!(
                    "decoder: precision {:?} with scale {:?} (an 8-bit decoder has a scale, a \
                     float one none)",
                    spec.precision, spec.scale
                ))
            }
        };
        let config = DecoderConfig {
            algorithm,
            schedule: spec.schedule,
            precision,
            iterations: spec.iterations,
            early_termination: spec.early_termination,
            threads: 0,
        };
        config.validate().map_err(|e| format!("decoder: {e}"))?;
        if DecoderSpec::from(&config) != *spec {
            return Err(format!(
                "decoder: its fields name \"{}\" but its description says \"{}\"",
                config.describe(),
                spec.description
            ));
        }
        Ok(Some(config))
    }
}

impl From<&DecoderConfig> for SweepDecoder {
    fn from(config: &DecoderConfig) -> SweepDecoder {
        SweepDecoder::Spec(config.into())
    }
}

impl From<&str> for SweepDecoder {
    fn from(text: &str) -> SweepDecoder {
        SweepDecoder::Description(text.to_owned())
    }
}

impl fmt::Display for SweepDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// A demapper name as compared on resume: files before the CLI spelling wrote `Exact` and
/// `MaxLog`, which name the same demappers as `exact` and `max-log`.
pub(super) fn demapper_key(name: &str) -> String {
    name.parse::<Demapper>()
        .map_or_else(|_| name.to_owned(), |d| d.name().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoder_fields_are_machine_readable_and_old_prose_still_reads() {
        let config = DecoderConfig {
            algorithm: Algorithm::NormalizedMinSum { alpha: 0.75 },
            ..DecoderConfig::PAPER
        };
        let json = serde_json::to_value(SweepDecoder::from(&config)).unwrap();
        assert_eq!(json["kind"], "nms");
        assert_eq!(json["alpha"], 0.75);
        assert_eq!(json["precision"], "8bit");
        assert_eq!(json["scale"], 4.0);
        assert_eq!(json["schedule"], "flooding");
        assert_eq!(json["iterations"], 50);
        assert!(json.get("beta").is_none() && json.get("threads").is_none());
        let back: SweepDecoder = serde_json::from_value(json).unwrap();
        assert_eq!(back, SweepDecoder::from(&config));
        let float = DecoderConfig {
            precision: Precision::Float,
            algorithm: Algorithm::OffsetMinSum { beta: 0.5 },
            ..config
        };
        let json = serde_json::to_value(SweepDecoder::from(&float)).unwrap();
        assert_eq!(
            (json["kind"].as_str(), json["beta"].as_f64()),
            (Some("oms"), Some(0.5))
        );
        assert!(json.get("scale").is_none() && json["precision"] == "float");
        let old: SweepDecoder = serde_json::from_str(&format!("{:?}", config.describe())).unwrap();
        assert_eq!(old.description(), SweepDecoder::from(&config).description());
        assert_eq!(demapper_key("MaxLog"), "max-log");
        assert_eq!(demapper_key("Exact"), demapper_key("exact"));
    }
}

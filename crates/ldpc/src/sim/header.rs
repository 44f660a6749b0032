//! The decoder and demapper a sweep file names, readable in the files of every version.

use crate::channel::Demapper;
use crate::decoder::{DecoderConfig, DecoderSpec};
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
    use crate::{Algorithm, Precision};

    #[test]
    fn decoder_fields_are_machine_readable_and_old_prose_still_reads() {
        let config = DecoderConfig {
            algorithm: Algorithm::NormalizedMinSum { alpha: 0.75 },
            ..DecoderConfig::default()
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

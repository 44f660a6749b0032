//! Every spelling the faces accept, parsed by the library: the command line's flags and the
//! Python keywords go through these `FromStr` impls, so this table is what both accept.
//! Each canonical spelling (`Display`) parses back to the same value.

use sigpu_ldpc::channel::{Demapper, Modulation};
use sigpu_ldpc::interleave::{InterleaverChoice, Interleaving};
use sigpu_ldpc::sim::sweep::SnrAxis;
use sigpu_ldpc::{Algorithm, Precision, Schedule};
use std::fmt::Display;
use std::str::FromStr;

/// Every spelling in `table` parses to its value, and the value's `Display` is `canonical`
/// and parses back to it.
fn accepts<T>(table: &[(&[&str], T, &str)])
where
    T: FromStr + Display + PartialEq + std::fmt::Debug,
    T::Err: Display,
{
    for (spellings, want, canonical) in table {
        for s in *spellings {
            match s.parse::<T>() {
                Ok(got) => assert_eq!(&got, want, "{s:?}"),
                Err(e) => panic!("{s:?} refused: {e}"),
            }
        }
        assert_eq!(want.to_string(), *canonical);
        assert_eq!(canonical.parse::<T>().ok().as_ref(), Some(want));
    }
}

#[test]
fn precision_accepts_the_union_of_the_faces_spellings() {
    let fixed = Precision::Fixed8 {
        scale: Precision::DEFAULT_SCALE,
    };
    accepts(&[
        (
            &["float", "f32", "float32", "FLOAT", " f32 "],
            Precision::Float,
            "float",
        ),
        (
            &["8bit", "8", "i8", "int8", "fixed8", "8BIT"],
            fixed,
            "8bit",
        ),
    ]);
    assert_eq!(
        fixed.with_scale(8.0),
        Precision::Fixed8 { scale: 8.0 },
        "the scale is its own option"
    );
    assert_eq!(Precision::Float.with_scale(8.0), Precision::Float);
    let e = "16bit".parse::<Precision>().unwrap_err().to_string();
    assert!(
        e.contains("precision") && e.contains("8bit or float"),
        "{e}"
    );
}

#[test]
fn decoder_rules_parse_with_their_parameters() {
    accepts(&[
        (
            &["spa", "sum-product", "bp", "SPA"],
            Algorithm::SumProduct,
            "spa",
        ),
        (&["minsum", "min-sum", "ms"], Algorithm::MinSum, "minsum"),
        (
            &["nms", "nms:0.875", "normalized", "normalised=0.875"],
            Algorithm::NormalizedMinSum { alpha: 0.875 },
            "nms:0.875",
        ),
        (
            &["nms:0.75"],
            Algorithm::NormalizedMinSum { alpha: 0.75 },
            "nms:0.75",
        ),
        (
            &["oms", "oms:0.5", "offset"],
            Algorithm::OffsetMinSum { beta: 0.5 },
            "oms:0.5",
        ),
        (
            &["aoms", "aoms:0.5", "adaptive-offset", "AOMS=0.5"],
            Algorithm::AdaptiveOffsetMinSum { beta: 0.5 },
            "aoms:0.5",
        ),
        (
            &["lmin", "lmin:0.125", "lambda-min", "LMIN=0.125"],
            Algorithm::LambdaMinSum { beta: 0.125 },
            "lmin:0.125",
        ),
    ]);
    for bad in [
        "bp2", "minsum:3", "nms:2", "oms:x", "aoms:9", "aoms:-1", "lmin:9", "lmin:x",
    ] {
        assert!(bad.parse::<Algorithm>().is_err(), "{bad}");
    }
}

#[test]
fn schedules_modulations_demappers_interleavers_and_axes() {
    accepts(&[
        (
            &["flooding", "flood", "Flooding"],
            Schedule::Flooding,
            "flooding",
        ),
        (&["layered"], Schedule::Layered, "layered"),
        (
            &["layered-compact", "compact"],
            Schedule::LayeredCompact,
            "layered-compact",
        ),
    ]);
    accepts(&[
        (&["bpsk", "BPSK"], Modulation::Bpsk, "bpsk"),
        (&["qpsk", "4qam", "4-QAM"], Modulation::Qpsk, "qpsk"),
        (&["16qam", "qam16", "16-qam"], Modulation::Qam16, "16qam"),
        (&["64qam", "qam64", "64_qam"], Modulation::Qam64, "64qam"),
        (&["256qam", "qam256"], Modulation::Qam256, "256qam"),
    ]);
    accepts(&[
        (&["exact", "log-map", "logmap"], Demapper::Exact, "exact"),
        (&["max-log", "maxlog"], Demapper::MaxLog, "max-log"),
    ]);
    accepts(&[
        (&["auto", "AUTO"], InterleaverChoice::Auto, "auto"),
        (
            &["dvbt2", "dvb-t2", "t2"],
            InterleaverChoice::Fixed(Interleaving::Dvbt2),
            "dvbt2",
        ),
        (
            &["none", "off"],
            InterleaverChoice::Fixed(Interleaving::None),
            "none",
        ),
    ]);
    accepts(&[
        (&["es-n0", "esn0", "snr", "Es_N0"], SnrAxis::EsN0, "es-n0"),
        (&["eb-n0", "ebn0", "EbN0"], SnrAxis::EbN0, "eb-n0"),
    ]);
    assert!(Schedule::ALL
        .iter()
        .all(|s| s.name().parse::<Schedule>().ok() == Some(*s)));
    for (bad, what) in [
        ("random", "unknown schedule"),
        ("8psk", "unknown modulation"),
        ("soft", "unknown demapper"),
        ("dvbs2", "unknown bit interleaver"),
    ] {
        let e = match what {
            "unknown schedule" => bad.parse::<Schedule>().unwrap_err().to_string(),
            "unknown modulation" => bad.parse::<Modulation>().unwrap_err().to_string(),
            "unknown demapper" => bad.parse::<Demapper>().unwrap_err().to_string(),
            _ => bad.parse::<InterleaverChoice>().unwrap_err().to_string(),
        };
        assert!(e.contains(what), "{e}");
    }
}

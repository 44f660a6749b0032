//! Fuzzing the filter's parsers: signature strings (`(b… : a…)`), coefficient / state lists
//! (`--zi 1,2`), `.npy` signals and WAV audio. No input may panic, hang or allocate without bound; what
//! parses must print and parse back to the same value. `scripts/fuzz` runs these longer.

use sigpu_recurrence::{io, parse_values, DType, Filter, FilterOptions, Signature};
use sigpu_runtime::fuzz::{self, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn seeds(texts: &[&str]) -> Vec<Vec<u8>> {
    texts.iter().map(|t| t.as_bytes().to_vec()).collect()
}

#[test]
fn fuzz_signature() {
    let s = seeds(&[
        "(1 : 1)",
        "(0.2 : 0.8)",
        "(0.81, -1.62, 0.81 : 1.6, -0.64)",
        "1 : 1",
        "(1, 2, 3 : 0)",
        "(1e-3 : 0.5, 0.25)",
    ]);
    let dict = ["(", ")", ":", ",", " ", "0.5", "-1.62", "1e-3"];
    fuzz::run("recurrence signature", &s, &dict, 512, |b| {
        let Ok(text) = std::str::from_utf8(b) else {
            return false;
        };
        let Ok(sig) = Signature::parse(text) else {
            return false;
        };
        // The signature prints in a form that parses back to itself.
        let again = Signature::parse(&sig.to_string()).expect("a printed signature parses");
        assert_eq!(again.to_string(), sig.to_string());
        // Building the filter refuses or succeeds; orders are small at this input length.
        if sig.feedback.len() <= 64 {
            let _ = Filter::<f64>::new(&sig, FilterOptions::default());
        }
        true
    });
}

#[test]
fn fuzz_coefficient_lists() {
    let s = seeds(&["1,2,3", "0.5, -0.25", "1e300,-1e-300", "7"]);
    fuzz::run("recurrence value lists", &s, &[",", " "], 1024, |b| {
        let Ok(text) = std::str::from_utf8(b) else {
            return false;
        };
        let f = parse_values::<f64>(text);
        let i = parse_values::<i32>(text);
        let l = parse_values::<i64>(text);
        let g = parse_values::<f32>(text);
        if let Ok(v) = &f {
            assert!(v.iter().all(|x| x.is_finite()), "{v:?}");
            let list: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
            assert_eq!(&parse_values::<f64>(&list.join(",")).unwrap(), v);
        }
        f.is_ok() || i.is_ok() || l.is_ok() || g.is_ok()
    });
}

#[test]
fn fuzz_npy_signal() {
    let f64s: Vec<u8> = (0..6).flat_map(|i| (i as f64).to_le_bytes()).collect();
    let i32s: Vec<u8> = (0..4).flat_map(|i: i32| i.to_le_bytes()).collect();
    // The container's own seeds too: big-endian data, data at an odd offset, shapes with no
    // values (a 0 beside a huge dimension).
    let mut s = fuzz::npy_seeds();
    s.push(io::encode(DType::F64, &[2, 3], &f64s));
    s.push(io::encode(DType::I32, &[4], &i32s));
    let mut dict = fuzz::NPY_TOKENS.to_vec();
    dict.push("<i4");
    fuzz::run("recurrence .npy", &s, &dict, 4096, |b| {
        let Ok(a) = io::parse(b) else {
            return false;
        };
        assert!(
            !a.shape.contains(&0),
            "an array with no values: {:?}",
            a.shape
        );
        let again = io::parse(&io::encode(a.dtype, &a.shape, &a.bytes)).expect("encoded parses");
        assert_eq!(
            (again.dtype, &again.shape, &again.bytes),
            (a.dtype, &a.shape, &a.bytes)
        );
        true
    });
}

/// A canonical WAV file: `format` 1 (PCM) or 3 (float), `channels`, `rate`, `bits`, `data`.
fn wav(format: u16, channels: u16, rate: u32, bits: u16, data: &[u8]) -> Vec<u8> {
    let block = channels * bits / 8;
    let mut w = b"RIFF".to_vec();
    w.extend((36 + data.len() as u32).to_le_bytes());
    w.extend(b"WAVEfmt ");
    w.extend(16u32.to_le_bytes());
    w.extend(format.to_le_bytes());
    w.extend(channels.to_le_bytes());
    w.extend(rate.to_le_bytes());
    w.extend((rate * block as u32).to_le_bytes());
    w.extend(block.to_le_bytes());
    w.extend(bits.to_le_bytes());
    w.extend(b"data");
    w.extend((data.len() as u32).to_le_bytes());
    w.extend(data);
    w
}

/// WAV files as `sigpu filter` reads them, in f64 and as integers (`--dtype i32`): no header
/// may panic the reader or the writer (a sample rate of 0 did, in the writer); what is read
/// writes back, and integer PCM read as integers writes back to the same samples.
#[test]
fn fuzz_wav_signal() {
    let pcm: Vec<u8> = (0..24u8).map(|i| i.wrapping_mul(37)).collect();
    let s = vec![
        wav(1, 1, 8000, 16, &pcm),
        wav(1, 2, 44100, 16, &pcm),
        wav(1, 1, 8000, 8, &pcm[..9]),
        wav(1, 1, 48000, 24, &pcm),
        wav(1, 3, 1, 32, &pcm),
        wav(3, 1, 8000, 32, &0.5f32.to_le_bytes()),
        wav(1, 1, 0, 16, &pcm),
        wav(1, 0, 8000, 16, &pcm),
    ];
    let dict = [
        "RIFF",
        "WAVE",
        "fmt ",
        "data",
        "LIST",
        "\x00\x00\x00\x00",
        "\x7f\x7f\x7f\x7f",
        "\x01\x00",
        "\x03\x00",
        "\x10\x00",
        "\x18\x00",
        "\x20\x00",
    ];
    fuzz::run("recurrence WAV", &s, &dict, 4096, |b| {
        let mut accepted = false;
        for dtype in [None, Some(DType::I32)] {
            let Ok(f) = io::SignalFile::parse(b.to_vec(), io::Format::Wav, dtype, 1) else {
                continue;
            };
            accepted = true;
            let n: usize = f.shape.iter().product();
            assert!(
                f.shape[1] > 0 && n * f.dtype.size() == f.bytes.len(),
                "{:?}",
                f.shape
            );
            if f.dtype == DType::I32 {
                let x: Vec<i32> = f.values();
                let (out, clipped) = f.encode(io::Format::Wav, &f.shape, &x).expect("writes");
                assert_eq!(clipped, Some(0));
                let again = io::SignalFile::parse(out, io::Format::Wav, dtype, 1).expect("reads");
                assert_eq!(again.bytes, f.bytes);
            } else {
                let x: Vec<f64> = f.values();
                f.encode(io::Format::Wav, &f.shape, &x).expect("writes");
            }
        }
        accepted
    });
}

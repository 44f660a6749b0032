//! Fuzzing the filter's parsers: signature strings (`(b… : a…)`), coefficient / state lists
//! (`--zi 1,2`) and `.npy` signals. No input may panic, hang or allocate without bound; what
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
    let s = vec![
        io::encode(DType::F64, &[2, 3], &f64s),
        io::encode(DType::I32, &[4], &i32s),
    ];
    let dict = [
        "'descr'",
        "'shape'",
        "'fortran_order'",
        "True",
        "False",
        "(",
        ")",
        "<f8",
        "<i4",
    ];
    fuzz::run("recurrence .npy", &s, &dict, 4096, |b| {
        let Ok(a) = io::parse(b) else {
            return false;
        };
        let again = io::parse(&io::encode(a.dtype, &a.shape, &a.bytes)).expect("encoded parses");
        assert_eq!(
            (again.dtype, &again.shape, &again.bytes),
            (a.dtype, &a.shape, &a.bytes)
        );
        true
    });
}

//! Fuzzing every parser of LDPC input (`sigpu_runtime::fuzz`): .npy LLR files, alist files,
//! DVB tables, code names, decoder / modulation names, SNR lists and sweep files. No input may
//! panic, hang or allocate without bound; what parses must round-trip.
//! `scripts/fuzz` runs these longer.

use sigpu_ldpc::sim::sweep::{parse_points, Sweep};
use sigpu_ldpc::table::DvbTable;
use sigpu_ldpc::{Algorithm, Code};
use sigpu_runtime::fuzz::{self, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn seeds(texts: &[&str]) -> Vec<Vec<u8>> {
    texts.iter().map(|t| t.as_bytes().to_vec()).collect()
}

fn small_alist() -> String {
    // A (7,4) Hamming code.
    let rows = [vec![1u32, 2, 3, 5], vec![1, 2, 4, 6], vec![1, 3, 4, 7]];
    let rows0: Vec<Vec<u32>> = rows
        .iter()
        .map(|r| r.iter().map(|c| c - 1).collect())
        .collect();
    let code = Code::from_rows("hamming", 7, 4, &rows0).unwrap();
    sigpu_ldpc::to_alist(&code)
}

/// A directory in memory when the machine has one: the readers under test take paths.
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap()
}

#[test]
fn fuzz_alist() {
    let dict = ["\n", " ", "0", "7 3", "1 1 0"];
    fuzz::run("ldpc alist", &seeds(&[&small_alist()]), &dict, 4096, |b| {
        let Ok(text) = std::str::from_utf8(b) else {
            return false;
        };
        let Ok(code) = sigpu_ldpc::alist::parse_alist("fuzz", text) else {
            return false;
        };
        // What parses writes back to the same matrix.
        let again = sigpu_ldpc::alist::parse_alist("fuzz", &sigpu_ldpc::to_alist(&code))
            .expect("a written alist parses");
        assert_eq!((again.n(), again.k()), (code.n(), code.k()));
        assert_eq!(again.row_start(), code.row_start());
        assert_eq!(again.edge_col(), code.edge_col());
        true
    });
}

#[test]
fn fuzz_dvb_table() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/dvbt2_short_1-2.txt"
    ))
    .expect("the table of dvbt2-short-1/2");
    let dict = ["\n", " ", "#", "N=", "K=", "rows=", "edges=", "q="];
    fuzz::run("ldpc DVB table", &seeds(&[&text]), &dict, 1 << 14, |b| {
        let Ok(text) = std::str::from_utf8(b) else {
            return false;
        };
        DvbTable::parse("fuzz", text).is_ok()
    });
}

#[test]
fn fuzz_code_and_decoder_names() {
    let names: Vec<&str> = Code::standard_names();
    let mut all: Vec<&str> = names.clone();
    all.extend([
        "minsum", "spa", "nms:0.75", "oms:0.5", "qpsk", "256qam", "layered",
    ]);
    let dict: Vec<&str> = [
        "dvbt2", "dvbs2", "normal", "short", "-", "/", ":", "nms", "oms",
    ]
    .into_iter()
    .chain(names.iter().copied())
    .collect();
    fuzz::run(
        "ldpc code and decoder names",
        &seeds(&all),
        &dict,
        64,
        |b| {
            let s = String::from_utf8_lossy(b);
            // A listed name builds a code (tested in tests/codes.rs, and slow): the lookup of
            // every other name must refuse it.
            let mut accepted = names.contains(&&*s.trim().to_ascii_lowercase());
            if !accepted {
                assert!(Code::standard(&s).is_err(), "{s:?} is not a listed code");
            }
            accepted |= Algorithm::parse(&s).is_ok();
            accepted |= s.parse::<sigpu_ldpc::channel::Modulation>().is_ok();
            accepted |= s.parse::<sigpu_ldpc::channel::Demapper>().is_ok();
            accepted |= s.parse::<sigpu_ldpc::Schedule>().is_ok();
            accepted |= s.parse::<sigpu_ldpc::interleave::Interleaving>().is_ok();
            accepted
        },
    );
}

#[test]
fn fuzz_snr_points() {
    let dict = [":", ",", "0.1", "-5", "1e-9", "10000"];
    let s = seeds(&["0.5:2.0:0.1", "1,2,3", "-1:-0.5:0.25", "4"]);
    fuzz::run("ldpc SNR points", &s, &dict, 256, |b| {
        let Ok(text) = std::str::from_utf8(b) else {
            return false;
        };
        let Ok(points) = parse_points(text) else {
            return false;
        };
        assert!(points.len() <= 10_001, "{} points", points.len());
        assert!(points.iter().all(|x| x.is_finite()), "{points:?}");
        // A list of the points parses to the same points.
        let list: Vec<String> = points.iter().map(|x| format!("{x:?}")).collect();
        assert_eq!(parse_points(&list.join(",")).unwrap(), points);
        true
    });
}

#[test]
fn fuzz_sweep_file() {
    let seed = r#"{"code":"dvbt2-short-1/2","modulation":"qpsk","demapper":"Exact",
"bit_interleaver":"dvbt2","decoder":"minsum, flooding, 8-bit (scale 4), 50 iterations",
"seed":1,"min_errors":100,"max_frames":10000,"points":[{"es_n0_db":1.0,"eb_n0_db":-0.5,
"frames":128,"frame_errors":100,"bit_errors":3000,"info_bits":920000,"ber":0.003,"fer":0.78,
"ber_ci":[0.002,0.004],"fer_ci":[0.7,0.85],"mean_iterations":40.5,"seconds":1.5}]}"#;
    // Written since Σ e² is kept: with it and the interval's method.
    let seed_sq = r#"{"code":"dvbt2-short-1/2","modulation":"qpsk","demapper":"exact",
"bit_interleaver":"dvbt2","decoder":"minsum, flooding, 8-bit (scale 4), 50 iterations",
"seed":1,"min_errors":100,"max_frames":10000,"points":[{"es_n0_db":1.0,"eb_n0_db":-0.5,
"frames":128,"frame_errors":100,"bit_errors":3000,"bit_errors_sq":120000,"info_bits":920000,
"ber":0.003,"fer":0.78,"ber_ci":[0.002,0.004],"fer_ci":[0.7,0.85],
"ber_ci_method":"frames-t","mean_iterations":40.5,"seconds":1.5}]}"#;
    let dict = [
        "\"",
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        "null",
        "true",
        "\"points\"",
    ];
    let dir = scratch();
    let path = dir.path().join("sweep.json");
    fuzz::run(
        "ldpc sweep file",
        &seeds(&[seed, seed_sq]),
        &dict,
        8192,
        |b| {
            let Ok(sweep) = serde_json::from_slice::<Sweep>(b) else {
                return false;
            };
            // Written and read back, the counts are the same.
            let text = serde_json::to_string(&sweep).expect("a sweep serialises");
            std::fs::write(&path, &text).unwrap();
            let again = Sweep::read(&path).expect("a written sweep reads back");
            assert_eq!(again.points.len(), sweep.points.len());
            for (a, b) in again.points.iter().zip(&sweep.points) {
                let counts =
                    |p: &sigpu_ldpc::sim::PointResult| (p.frames, p.frame_errors, p.bit_errors);
                assert_eq!(counts(a), counts(b));
                // The BER interval is made again from the counts, the same way each time.
                assert_eq!(a.ber_ci_method, b.ber_ci_method);
                assert_eq!(a.ber_ci.map(f64::to_bits), b.ber_ci.map(f64::to_bits));
                let [lo, hi] = a.ber_ci;
                assert!(
                    (0.0..=1.0).contains(&lo) && lo <= hi && hi <= 1.0,
                    "{lo} {hi}"
                );
            }
            true
        },
    );
}

#[test]
fn fuzz_npy_llrs() {
    let f32s: Vec<u8> = [1.5f32, -2.0, 0.25, 8.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let s = vec![
        sigpu_runtime::npy::encode("<f4", &[2, 2], &f32s),
        sigpu_runtime::npy::encode("|i1", &[4], &[1, 255, 3, 4]),
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
        "|i1",
        "<f4",
    ];
    let dir = scratch();
    let path = dir.path().join("llrs.npy");
    fuzz::run("ldpc .npy LLRs", &s, &dict, 4096, |b| {
        std::fs::write(&path, b).unwrap();
        let Ok((llrs, shape)) = sigpu_ldpc::npy::read_llrs(&path) else {
            return false;
        };
        assert_eq!(llrs.len(), shape.iter().product::<usize>());
        true
    });
}

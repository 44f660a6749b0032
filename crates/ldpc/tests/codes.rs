//! Every standard code against the shared reference note's parameter table (ldpc.md §1):
//! edge count (the tables' checksum) and degree profile.

use sigpu_ldpc::{read_alist, to_alist, Code};

/// `(degree, 360-column groups)` of the information columns.
type Profile = &'static [(usize, usize)];

/// (name, K, edges, information-column degree profile).
const PROFILES: &[(&str, usize, usize, Profile)] = &[
    ("normal-1/4", 16200, 194_399, &[(12, 15), (3, 30)]),
    ("normal-1/3", 21600, 215_999, &[(12, 20), (3, 40)]),
    ("normal-2/5", 25920, 233_279, &[(12, 24), (3, 48)]),
    ("normal-1/2", 32400, 226_799, &[(8, 36), (3, 54)]),
    ("normal-3/5", 38880, 285_119, &[(12, 36), (3, 72)]),
    ("normal-2/3", 43200, 215_999, &[(13, 12), (3, 108)]),
    ("normal-3/4", 48600, 226_799, &[(12, 15), (3, 120)]),
    ("normal-4/5", 51840, 233_279, &[(11, 18), (3, 126)]),
    ("normal-5/6", 54000, 237_599, &[(13, 15), (3, 135)]),
    ("normal-8/9", 57600, 194_399, &[(4, 20), (3, 140)]),
    ("normal-9/10", 58320, 194_399, &[(4, 18), (3, 144)]),
    ("short-1/4", 3240, 48_599, &[(12, 4), (3, 5)]),
    ("short-1/3", 5400, 53_999, &[(12, 5), (3, 10)]),
    ("short-2/5", 6480, 58_319, &[(12, 6), (3, 12)]),
    ("short-1/2", 7200, 48_599, &[(8, 5), (3, 15)]),
    ("short-2/3", 10800, 53_999, &[(13, 3), (3, 27)]),
    ("short-3/4", 11880, 47_519, &[(12, 1), (3, 32)]),
    ("short-4/5", 12600, 44_999, &[(3, 35)]),
    ("short-5/6", 13320, 49_319, &[(13, 1), (3, 36)]),
    ("short-8/9", 14400, 48_599, &[(4, 5), (3, 35)]),
];

fn check(name: &str, k: usize, edges: usize, profile: &[(usize, usize)]) {
    let code = Code::standard(name).unwrap();
    let n = if name.contains("normal") {
        64800
    } else {
        16200
    };
    assert_eq!((code.n(), code.k(), code.edges()), (n, k, edges), "{name}");
    let info = code.info();
    // Parity columns: M − 1 of degree 2 and the last of degree 1.
    let mut want: Vec<(usize, usize)> = profile.iter().map(|&(d, g)| (d, 360 * g)).collect();
    let m = n - k;
    match want.iter_mut().find(|(d, _)| *d == 2) {
        Some(e) => e.1 += m - 1,
        None => want.push((2, m - 1)),
    }
    want.push((1, 1));
    want.sort_by_key(|&(d, _)| std::cmp::Reverse(d));
    assert_eq!(info.column_degrees, want, "{name}");
    assert!(code.is_encodable(), "{name}");
}

#[test]
fn every_standard_code_matches_the_reference_table() {
    let names = Code::standard_names();
    assert_eq!(names.len(), 36);
    for (short, k, edges, profile) in PROFILES {
        for std in ["dvbs2", "dvbt2"] {
            let name = format!("{std}-{short}");
            if names.contains(&name.as_str()) {
                check(&name, *k, *edges, profile);
            }
        }
    }
    // The two codes where T2 differs from S2.
    check("dvbt2-short-3/5", 9720, 58_319, &[(12, 5), (3, 22)]);
    check("dvbs2-short-3/5", 9720, 71_279, &[(12, 9), (3, 18)]);
    let t2 = Code::standard("dvbt2-normal-2/3").unwrap();
    let s2 = Code::standard("dvbs2-normal-2/3").unwrap();
    assert_ne!(
        t2.edge_col(),
        s2.edge_col(),
        "T2 and S2 normal 2/3 differ in addresses"
    );
}

#[test]
fn alist_export_round_trips_a_dvb_code() {
    let code = Code::standard("dvbt2-short-1/2").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t2-short-half.alist");
    sigpu_ldpc::write_alist(&code, &path).unwrap();
    let back = read_alist(&path).unwrap();
    assert_eq!(back.edge_col(), code.edge_col());
    assert_eq!(back.k(), code.k());
    assert!(back.is_encodable());
    assert_eq!(to_alist(&back), std::fs::read_to_string(&path).unwrap());
    let resolved = Code::resolve(path.to_str().unwrap()).unwrap();
    assert_eq!(resolved.edges(), code.edges());
}

#[test]
fn malformed_alist_files_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.alist");
    std::fs::write(&path, "4 2\n2 2\n1 1 1 1\n2 x\n").unwrap();
    let e = read_alist(&path).unwrap_err().to_string();
    assert!(e.contains("bad.alist:4:") && e.contains("\"x\""), "{e}");
    let missing = dir.path().join("none.alist");
    let e = read_alist(&missing).unwrap_err().to_string();
    assert!(e.contains("none.alist"), "{e}");
}

#[test]
fn layers_are_the_circulants_and_conflicts_match_the_tables() {
    // q layers of 360 checks; T2 short 3/5 is the one table without two addresses congruent
    // mod q in a row (reference note: conf = 0), so none of its layers has a shared bit.
    for (name, q, conflict_free) in [
        ("dvbt2-short-3/5", 18, true),
        ("dvbt2-normal-1/2", 90, false),
    ] {
        let order = sigpu_ldpc::Code::standard(name).unwrap().decoding_order();
        let layers = order.layers();
        assert_eq!(layers.len(), q, "{name}");
        assert!(layers.iter().all(|l| l.rows.len() == 360), "{name}");
        assert_eq!(layers.iter().all(|l| !l.conflict), conflict_free, "{name}");
    }
}

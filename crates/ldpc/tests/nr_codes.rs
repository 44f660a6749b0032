//! 5G NR base graphs and lifted codes: the vendored tables against their headers and hashes,
//! the structure the encoder relies on, and H·c = 0 for both graphs at all 51 lifting sizes.

use rand::{Rng, SeedableRng};
use sha2::{Digest, Sha256};
use sigpu_ldpc::nr::base_graph::BaseMatrix;
use sigpu_ldpc::nr::lifting::lifting_sizes;
use sigpu_ldpc::nr::{lifted_code, BaseGraph, LiftedEncoder};

const FILES: [(BaseGraph, &str, &str); 2] = [
    (
        BaseGraph::Bg1,
        "bg1.txt",
        include_str!("../data/nr/bg1.txt"),
    ),
    (
        BaseGraph::Bg2,
        "bg2.txt",
        include_str!("../data/nr/bg2.txt"),
    ),
];

#[test]
fn tables_match_their_counts_and_hashes() {
    // (rows, cols, entries, sha256 of the body) as TS 38.212 Tables 5.3.2-2 / 5.3.2-3 give them.
    let want = [
        (
            46,
            68,
            316,
            "8303573c470203e2bb9539ebcd894f26a5ef3bf6c7f9a45f04f65d2a1e407658",
        ),
        (
            42,
            52,
            197,
            "d525c00e4b64720bdf465250798709ccadcc7fa464dbd3a61f0d55d4cacd06d9",
        ),
    ];
    for ((graph, file, text), (rows, cols, entries, hash)) in FILES.iter().zip(want) {
        let body: String = text.lines().skip(2).map(|l| format!("{l}\n")).collect();
        let digest: String = Sha256::digest(body.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(digest, hash, "{file}");
        assert!(
            text.lines().nth(1).unwrap().contains(hash),
            "{file}: header hash"
        );
        let m = BaseMatrix::parse(*graph, file, text).unwrap();
        assert_eq!(
            (m.rows, m.cols, m.entries.len()),
            (rows, cols, entries),
            "{file}"
        );
        assert_eq!(graph.matrix().entries, m.entries);
    }
}

#[test]
fn known_entries_of_the_standard() {
    // Spot values of Table 5.3.2-2 (BG1) and 5.3.2-3 (BG2), iLS 0 … 7.
    let bg1 = BaseGraph::Bg1.matrix();
    assert_eq!(
        bg1.get(0, 0).unwrap().shift,
        [250, 307, 73, 223, 211, 294, 0, 135]
    );
    assert_eq!(bg1.get(1, 22).unwrap().shift, [0, 0, 0, 0, 0, 0, 105, 0]);
    let bg2 = BaseGraph::Bg2.matrix();
    assert_eq!(bg2.get(0, 10).unwrap().shift, [0, 0, 0, 1, 0, 0, 0, 1]);
    assert_eq!(
        bg2.get(4, 11).unwrap().shift,
        [71, 29, 157, 101, 51, 83, 117, 180]
    );
}

#[test]
fn dual_diagonal_core_and_identity_extension() {
    for graph in [BaseGraph::Bg1, BaseGraph::Bg2] {
        let m = graph.matrix();
        let kb = graph.info_cols();
        // Columns kb+1 … kb+3 of the core: two diagonals of zero shifts.
        for t in 1..4 {
            let rows: Vec<usize> = (0..m.rows)
                .filter(|&r| m.get(r, kb + t).is_some() && r < 4)
                .collect();
            assert_eq!(rows, [t - 1, t], "{graph} column {}", kb + t);
        }
        // The first parity column: three core entries.
        let first = (0..4).filter(|&r| m.get(r, kb).is_some()).count();
        assert_eq!(first, 3, "{graph}");
        // Extension: column kb + r only in row r, shift 0; lower-triangular identity.
        for r in 4..m.rows {
            let in_col: Vec<_> = m
                .entries
                .iter()
                .filter(|e| e.col as usize == kb + r)
                .collect();
            assert_eq!(in_col.len(), 1);
            assert_eq!((in_col[0].row as usize, in_col[0].shift), (r, [0; 8]));
        }
    }
}

#[test]
fn a_broken_table_names_its_line() {
    let text = FILES[0].2.replacen("0 1 69 19", "0 1 69 x", 1);
    let e = BaseMatrix::parse(BaseGraph::Bg1, "bg1.txt", &text)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("bg1.txt:4:"), "{e}");
    let mut lines: Vec<&str> = FILES[0].2.lines().collect();
    lines.remove(10);
    let e = BaseMatrix::parse(BaseGraph::Bg1, "bg1.txt", &lines.join("\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("316 entries"), "{e}");
}

#[test]
fn every_lifting_encodes_to_codewords() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for graph in [BaseGraph::Bg1, BaseGraph::Bg2] {
        let entries = graph.matrix().entries.len();
        for (z, _) in lifting_sizes() {
            let code = lifted_code(graph, z).unwrap();
            assert_eq!(code.n(), graph.block_cols() * z);
            assert_eq!(code.k(), graph.info_cols() * z);
            assert_eq!(code.edges(), entries * z, "{graph} Z = {z}");
            let enc = LiftedEncoder::new(graph, z).unwrap();
            let mut word = vec![0u8; code.n()];
            for _ in 0..2 {
                let info: Vec<u8> = (0..code.k()).map(|_| rng.random_range(0..2)).collect();
                enc.encode(&info, &mut word).unwrap();
                assert_eq!(&word[..code.k()], &info[..]);
                assert!(code.is_codeword(&word), "{graph} Z = {z}: H·c ≠ 0");
            }
            // Linear: a single information bit gives a codeword with that bit set.
            let mut info = vec![0u8; code.k()];
            info[code.k() - 1] = 1;
            enc.encode(&info, &mut word).unwrap();
            assert!(code.is_codeword(&word) && word.iter().skip(code.k()).any(|&b| b == 1));
        }
    }
}

#[test]
fn an_unlisted_lifting_size_is_refused() {
    let e = lifted_code(BaseGraph::Bg1, 17).unwrap_err().to_string();
    assert!(e.contains("Z = 17"), "{e}");
    assert!(LiftedEncoder::new(BaseGraph::Bg2, 400).is_err());
}

#[test]
fn the_crate_encoder_takes_lifted_codes_whole_and_cut() {
    use sigpu_ldpc::nr::NrCode;
    for (k, n) in [(8448usize, 9126usize), (300, 900), (1000, 20000)] {
        let nr = NrCode::new(k, n, None).unwrap();
        let code = nr.decoding_code(&[0]).unwrap();
        assert!(code.is_encodable() && code.info().encodable);
        let enc = sigpu_ldpc::Encoder::new(&code).unwrap();
        let info: Vec<u8> = (0..code.k()).map(|i| ((i * 5 + i / 7) % 2) as u8).collect();
        let mut word = vec![0u8; code.n()];
        enc.encode(&info, &mut word).unwrap();
        assert!(code.is_codeword(&word), "{}", code.name());
    }
}

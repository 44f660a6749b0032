//! Fuzzing the `.npy` container (`sigpu_runtime::npy`): header and body. No input may panic,
//! hang or allocate without bound; what parses must encode back to the same array.
//! `scripts/fuzz` runs this longer.

use sigpu_runtime::fuzz::{self, CountingAlloc};
use sigpu_runtime::npy;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn size(descr: &str) -> Result<usize, String> {
    match descr {
        "<f4" | "<i4" | "<u4" => Ok(4),
        "<f8" | "<i8" => Ok(8),
        "|i1" | "|u1" | "|b1" => Ok(1),
        "<f2" | "<i2" => Ok(2),
        other => Err(format!("{other:?}")),
    }
}

#[test]
fn fuzz_npy_header_and_body() {
    let f32s: Vec<u8> = (0..12).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let mut v2 = npy::encode("<f8", &[3], &[0u8; 24]);
    // A version-2 header: 4-byte length.
    if let Some(v) = v2.get_mut(6) {
        *v = 2;
        let len = u16::from_le_bytes([v2[8], v2[9]]) as u32;
        v2.splice(8..10, len.to_le_bytes());
    }
    let seeds = vec![
        npy::encode("<f4", &[3, 4], &f32s),
        npy::encode("|i1", &[5], &[1, 2, 3, 4, 5]),
        npy::encode("<i8", &[], &[0; 8]),
        npy::encode("<f4", &[0, 7], &[]),
        v2,
    ];
    let dict = [
        "'descr'",
        "'shape'",
        "'fortran_order'",
        "True",
        "False",
        "'yes'",
        "(",
        ")",
        ",",
        "{",
        "}",
        "<f8",
        "|i1",
        "<f4",
        ">f4",
        "NUMPY",
        "\x01\x00",
        "\x02\x00",
        "\x03\x00",
    ];
    fuzz::run("runtime .npy", &seeds, &dict, 4096, |b| {
        let Ok(a) = npy::parse(b, size) else {
            return false;
        };
        let elem = size(&a.descr).expect("parse accepted only known types");
        assert_eq!(a.data.len(), a.count() * elem, "{a:?}");
        // What parses encodes back to the same array.
        let again = npy::parse(&npy::encode(&a.descr, &a.shape, &a.data), size)
            .expect("an encoded array parses");
        assert_eq!(again, a);
        true
    });
}

//! Fuzzing the `.npy` container (`sigpu_runtime::npy`): header and body. No input may panic,
//! hang or allocate without bound; what parses must encode back to the same array, hold at
//! least one value and be little-endian.
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
    let seeds = fuzz::npy_seeds();
    fuzz::run("runtime .npy", &seeds, fuzz::NPY_TOKENS, 4096, |b| {
        let Ok(a) = npy::parse(b, size) else {
            return false;
        };
        let elem = size(&a.descr).expect("parse accepted only known types");
        assert_eq!(a.data.len(), a.count() * elem, "{a:?}");
        // Never an empty array (its dimensions could name any size) nor a big-endian one
        // (swapped on reading): callers see values in one byte order.
        assert!(a.count() > 0 && !a.descr.starts_with('>'), "{a:?}");
        // What parses encodes back to the same array.
        let again = npy::parse(&npy::encode(&a.descr, &a.shape, &a.data), size)
            .expect("an encoded array parses");
        assert_eq!(again, a);
        true
    });
}

//! Fuzzing the LNS names users type (`--format lns16|lns32|i<I>f<F>`, `--method`): refused or
//! parsed, never a panic; a parsed format prints back to itself. The calculator's lines are
//! fuzzed through the command (crates/cli/tests/fuzz.rs). `scripts/fuzz` runs this longer.

use sigpu_lns::{Format, Method};
use sigpu_runtime::fuzz::{self, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn fuzz_format_and_method_names() {
    let seeds: Vec<Vec<u8>> = ["lns16", "lns32", "i4f20", "i3f20", "i8f23", "i1f1"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    fuzz::run(
        "lns format and method names",
        &seeds,
        &["i", "f", "lns"],
        64,
        |b| {
            let s = String::from_utf8_lossy(b);
            let format = s.parse::<Format>();
            if let Ok(f) = &format {
                assert_eq!(f.to_string().parse::<Format>().ok(), Some(*f), "{s:?}");
            }
            format.is_ok() | s.parse::<Method>().is_ok()
        },
    );
}

/// What the fuzzer found: field widths whose sum overflows u32 panicked in `Format::new`.
#[test]
fn huge_field_widths_are_refused() {
    for name in ["i8f4294967295", "i4294967295f1", "i2147483648f2147483648"] {
        let e = name.parse::<Format>().unwrap_err().to_string();
        assert!(e.contains("32 bits"), "{name}: {e}");
    }
}

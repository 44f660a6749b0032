//! NVRTC tests that need no GPU: every CUDA source in the workspace must compile for sm_90 (the
//! H100), so a syntax error in any kernel fails CI on a machine without a GPU.
//!
//! Without NVRTC these tests print SKIP and pass, unless SIGPU_REQUIRE_NVRTC=1 (set by
//! `.ci/run`, which installs NVRTC from PyPI), when they fail.

use sigpu_runtime::cuda::{
    compile, nvrtc_for_test, nvrtc_version, Error, KernelCache, KernelSource,
};
use std::path::{Path, PathBuf};

const ARCH: &str = "sm_90";

fn nvrtc_or_skip(test: &str) -> Option<String> {
    if nvrtc_for_test(test) {
        nvrtc_version().ok()
    } else {
        None
    }
}

/// Every `.cu` file under `crates/`.
fn workspace_sources() -> Vec<PathBuf> {
    workspace_files("cu")
}

/// Every file under `crates/` with extension `ext`, sorted.
fn workspace_files(ext: &'static str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>, ext: &str) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && path.file_name().is_some_and(|n| n != "target") {
                walk(&path, out, ext);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates/ directory");
    let mut found = Vec::new();
    walk(crates, &mut found, ext);
    found.sort();
    found
}

/// Every `.cuh` header of the workspace, by file name, as the crates embed them.
fn with_headers(mut source: KernelSource) -> KernelSource {
    for path in workspace_files("cuh") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let code = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        source = source.with_header(name, code);
    }
    source
}

#[test]
fn header_names_are_unique_across_the_workspace() {
    let mut names: Vec<_> = workspace_files("cuh")
        .iter()
        .map(|p| p.file_name().unwrap().to_owned())
        .collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(n, names.len(), "two .cuh files share a name");
}

#[test]
fn nvrtc_compiles_every_workspace_kernel_for_sm_90() {
    let sources = workspace_sources();
    assert!(!sources.is_empty(), "no .cu files found under crates/");
    let Some(version) = nvrtc_or_skip("nvrtc_compiles_every_workspace_kernel_for_sm_90") else {
        return;
    };
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let (mut kernels, mut failures) = (0, Vec::new());
    for path in &sources {
        let name = path
            .strip_prefix(crates)
            .unwrap_or(path)
            .display()
            .to_string();
        let code = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let source = with_headers(KernelSource::generated(name.clone(), code));
        match compile(&source, ARCH, &KernelCache::disabled()) {
            Ok(c) => {
                let names = c.kernel_names();
                // Every kernel the source declares by hand is in the image (macros may add more).
                for declared in source.entry_points() {
                    assert!(
                        names.contains(&declared),
                        "{name}: {declared} missing from {names:?}"
                    );
                }
                // The launch helper checks arguments against this count (never probing past
                // the last parameter), so every kernel of the workspace must report one.
                for kernel in &names {
                    assert!(
                        c.param_count(kernel).is_some(),
                        "{name}: {kernel} has no count"
                    );
                }
                kernels += names.len();
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    println!(
        "NVRTC {version} compiled {} CUDA source files ({kernels} kernels) for {ARCH}",
        sources.len()
    );
}

#[test]
fn the_image_tells_each_kernels_parameter_count() {
    let Some(_) = nvrtc_or_skip("the_image_tells_each_kernels_parameter_count") else {
        return;
    };
    let code = r#"
struct Wide { double x[5]; };
extern "C" __global__ void none() {}
extern "C" __global__ void three(float* a, const double* b, int n) { a[n] = b[n]; }
extern "C" __global__ void five(Wide w, char c, float* o, long long z, short q) {
    o[0] = w.x[2] + c + z + q;
}
"#;
    let c = compile(
        &KernelSource::generated("params.cu", code),
        ARCH,
        &KernelCache::disabled(),
    )
    .expect("compiles");
    assert_eq!(c.param_count("none"), Some(0));
    assert_eq!(c.param_count("three"), Some(3));
    assert_eq!(c.param_count("five"), Some(5));
    assert_eq!(c.param_count("absent"), None);
}

#[test]
fn compile_error_carries_the_log_and_the_offending_line() {
    let Some(_) = nvrtc_or_skip("compile_error_carries_the_log_and_the_offending_line") else {
        return;
    };
    let code = "extern \"C\" __global__ void k(float* x) {\n    x[0] = 1.0f\n    x[1] = undefined_name;\n}\n";
    let err = compile(
        &KernelSource::generated("broken.cu", code),
        ARCH,
        &KernelCache::disabled(),
    )
    .expect_err("a broken kernel must not compile");
    let Error::Compile(c) = &err else {
        panic!("expected a compile error, got {err}")
    };
    assert!(c.log.contains("broken.cu(3)"), "log: {}", c.log);
    assert!(
        c.excerpt.contains("> ") && c.excerpt.contains("undefined_name"),
        "excerpt: {}",
        c.excerpt
    );
    let shown = err.to_string();
    assert!(
        shown.contains("NVRTC could not compile broken.cu for sm_90"),
        "{shown}"
    );
}

#[test]
fn second_compile_comes_from_the_disk_cache() {
    let Some(_) = nvrtc_or_skip("second_compile_comes_from_the_disk_cache") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cache = KernelCache::at(dir.path());
    let src = KernelSource::generated(
        "inc.cu",
        "extern \"C\" __global__ void inc(int* x) { x[threadIdx.x] += 1; }",
    );
    let first = compile(&src, ARCH, &cache).unwrap();
    let second = compile(&src, ARCH, &cache).unwrap();
    assert!(!first.from_cache && second.from_cache);
    assert_eq!(first.cubin, second.cubin);
    let other = compile(&src.clone().with_option("--use_fast_math"), ARCH, &cache).unwrap();
    assert!(
        !other.from_cache,
        "different options must not share an entry"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

//! The CUDA generator: golden sources pinned for a few signatures (the generated part: each
//! includes `plr.cuh`, which includes the runtime's primitive headers; regenerate with
//! `SIGPU_BLESS=1 cargo test -p sigpu-recurrence --test codegen`), and NVRTC compiles of
//! generated kernels for sm_90 across signatures, element types and the optimisation switch
//! (no GPU needed; SKIP without NVRTC unless SIGPU_REQUIRE_NVRTC=1). The golden files are
//! `.cu` files under crates/, so the runtime's NVRTC test compiles them too.

use sigpu_recurrence::gpu::{
    generate, generate_laid_out, GpuConfig, KernelLayout, FILTER_KERNEL, PLR_HEADER,
    PLR_HEADER_NAME, STATE_KERNEL,
};
use sigpu_recurrence::{with_dtype, DType, Filter, FilterOptions};
use sigpu_runtime::cuda::primitives::with_primitives;
use sigpu_runtime::cuda::tuning::PlrPolicy;
use sigpu_runtime::cuda::{compile, nvrtc_for_test, KernelCache, KernelSource};
use std::path::PathBuf;

const GOLDEN: [(&str, &str, DType, bool); 4] = [
    ("lowpass1_f32", "(0.2 : 0.8)", DType::F32, true),
    (
        "highpass2_f32",
        "(0.81, -1.62, 0.81 : 1.6, -0.64)",
        DType::F32,
        true,
    ),
    ("prefix_sum_i32", "(1 : 1)", DType::I32, true),
    ("prefix2_f64_noopt", "(1 : 2, -1)", DType::F64, false),
];

fn source(sig: &str, dtype: DType, optimize: bool, config: GpuConfig) -> (String, String) {
    let options = FilterOptions {
        optimize,
        ..FilterOptions::default()
    };
    with_dtype!(dtype, T => {
        let filter = Filter::<T>::parse(sig, options).unwrap();
        let g = generate(&filter, config).unwrap();
        (g.name, g.source)
    })
}

#[test]
fn generated_sources_match_the_golden_files() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let bless = std::env::var("SIGPU_BLESS").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    for (file, sig, dtype, optimize) in GOLDEN {
        let (_, code) = source(sig, dtype, optimize, GpuConfig::default());
        let path = dir.join(format!("{file}.cu"));
        if bless {
            std::fs::write(&path, &code).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(pinned) if pinned == code => {}
            _ => stale.push(path.display().to_string()),
        }
    }
    assert!(
        stale.is_empty(),
        "generated CUDA differs from {stale:?}; review the change and regenerate with \
         SIGPU_BLESS=1 cargo test -p sigpu-recurrence --test codegen"
    );
}

#[test]
fn generated_source_bakes_in_the_constants() {
    let (name, code) = source("(0.2 : 0.8)", DType::F32, true, GpuConfig::default());
    assert!(
        name.starts_with("plr_f32_k1_p0_") && name.ends_with("_256x16t.cu"),
        "{name}"
    );
    assert!(code.contains("typedef float S;") && code.contains("#define PLR_PAIRS 0"));
    assert!(
        code.contains("v[0] = 0.2f * v[0];"),
        "map constant baked in"
    );
    assert!(
        code.contains("v[1] += 0.8f * v[0];"),
        "recurrence constant baked in"
    );
    assert!(
        code.contains("__launch_bounds__(THREADS + 32)")
            && code.contains("warp WARPS runs the same local")
            && !code.contains("look_back(")
            && !code.contains("unsigned int* flags"),
        "0.8 decays within a warp's 512 values: the carry-in is recomputed, no look-back"
    );
    // A pole at 0.999 decays too slowly: decoupled look-back, over chunks of 256 x 32 values,
    // by a look-back warp (one more per block): the data warps wait at named barrier 1, where
    // the look-back warp only arrives, and the whole block meets at one __syncthreads that both
    // sides of the warp branch reach.
    let (name, slow) = source("(0.001 : 0.999)", DType::F32, true, GpuConfig::default());
    assert!(slow.contains("look_back(flags") && slow.contains("__launch_bounds__(THREADS + 32)"));
    assert!(slow.contains("if (warp == WARPS)") && slow.contains("named_barrier(1, THREADS + 32)"));
    assert!(
        slow.contains("named_arrive(1, THREADS + 32)"),
        "the look-back warp arrives at 1"
    );
    assert!(
        !slow.contains("named_barrier(2"),
        "the whole block meets at __syncthreads only"
    );
    let block_barriers = slow.matches("__syncthreads();").count();
    assert_eq!(
        block_barriers, 1,
        "one block barrier after the chunk order's"
    );
    assert!(!slow.contains("__syncthreads();\n    if (warp == 0)"));
    assert!(name.ends_with("_256x32tw.cu"), "{name}");
    // Without the look-back warp, warp 0 looks back after the merge.
    let warp0 = GpuConfig {
        lookback_warp: false,
        ..GpuConfig::default()
    };
    let (name, slow) = source("(0.001 : 0.999)", DType::F32, true, warp0);
    assert!(slow.contains("look_back(flags") && !slow.contains("THREADS + 32"));
    assert!(
        !slow.contains("named_barrier(") && name.ends_with("_256x32t.cu"),
        "{name}"
    );
    // Prefix sums: 512 threads (64 KiB of dynamic shared memory), no multiplications by 1 in
    // the merges, integer arithmetic unsigned.
    let (name, code) = source("(1 : 1)", DType::I32, true, GpuConfig::default());
    assert!(name.ends_with("_512x32tw.cu"), "{name}");
    assert!(code.contains("extern __shared__ uint4 s_tiles[];"));
    assert!(code.contains("typedef unsigned int S;"));
    assert!(
        code.contains("v[1] += v[0];") && !code.contains("1u * "),
        "1 specialised"
    );
    assert!(code.contains("a[0] += o[0];"));
    // Optimisations off: the same multiplications by 1 stay.
    let (_, off) = source("(1 : 1)", DType::I32, false, GpuConfig::default());
    assert!(
        off.contains("v[1] += 1u * v[0];"),
        "no specialisation when off"
    );
    // Zero factors suppressed: the tuple prefix sum's odd factors vanish.
    let (_, tuple) = source("(1 : 0, 1)", DType::I64, true, GpuConfig::default());
    assert!(
        tuple.contains("v[2] += v[0];") && !tuple.contains("0u * "),
        "zeros dropped"
    );
}

#[test]
fn nvrtc_compiles_generated_kernels_for_sm_90() {
    if !nvrtc_for_test("nvrtc_compiles_generated_kernels_for_sm_90") {
        return;
    }
    let cases: [(&str, DType); 8] = [
        ("(0.04 : 1.6, -0.64)", DType::F32),
        ("(0.9, -0.9 : 0.8)", DType::F64),
        ("(1 : 0, 1)", DType::I32),
        ("(1 : 2, -1)", DType::I64),
        ("(1, 2, 3 : 0)", DType::F32),
        ("(0.001 : 0.999)", DType::F32),
        (
            "(1, -1, 1, -1, 1, -1, 1, -1, 1 : 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1)",
            DType::F64,
        ),
        ("(3, -2 : 1, 1, 1, 1, 1, 1, 1, 1)", DType::I64),
    ];
    let mut compiled = 0;
    for (sig, dtype) in cases {
        for optimize in [true, false] {
            for config in [
                GpuConfig::default(),
                GpuConfig {
                    threads: 512,
                    vpt: 8,
                    transpose: false,
                    min_blocks: 4,
                    lookback_warp: true,
                },
                GpuConfig {
                    threads: 128,
                    vpt: 16,
                    transpose: true,
                    min_blocks: 0,
                    lookback_warp: false,
                },
            ] {
                let (name, code) = source(sig, dtype, optimize, config);
                let src = with_primitives(KernelSource::generated(name.clone(), code))
                    .with_header(PLR_HEADER_NAME, PLR_HEADER);
                assert_eq!(src.entry_points(), [FILTER_KERNEL, STATE_KERNEL], "{name}");
                let out = compile(&src, "sm_90", &KernelCache::disabled())
                    .unwrap_or_else(|e| panic!("{sig} {dtype} optimize={optimize}: {e}"));
                assert!(!out.cubin.is_empty());
                compiled += 1;
            }
        }
    }
    println!("NVRTC compiled {compiled} generated kernels for sm_90");
}

/// Every value layout a view can take (interleaved pairs of float channels, backwards, both)
/// compiles for sm_90 in every kernel kind: tail carry, look-back with and without its warp,
/// direct loads, prefix sums, the compensated f64 recurrence, and integers backwards.
#[test]
fn nvrtc_compiles_laid_out_kernels_for_sm_90() {
    if !nvrtc_for_test("nvrtc_compiles_laid_out_kernels_for_sm_90") {
        return;
    }
    let direct = GpuConfig {
        threads: 128,
        vpt: 0,
        transpose: false,
        min_blocks: 0,
        lookback_warp: true,
    };
    let no_warp = GpuConfig {
        lookback_warp: false,
        ..GpuConfig::default()
    };
    // The H200's tiles with the pairs' half values per thread: tail carry 128 x 16 pairs,
    // look-back 512 x 16 pairs at 2 blocks per SM.
    let h200_tail = GpuConfig {
        threads: 128,
        vpt: 16,
        ..GpuConfig::default()
    };
    let h200_look_back = GpuConfig {
        threads: 512,
        vpt: 16,
        min_blocks: 2,
        ..GpuConfig::default()
    };
    let cases: [(&str, DType, GpuConfig); 9] = [
        ("(0.04 : 1.6, -0.64)", DType::F32, GpuConfig::default()),
        ("(0.04 : 1.6, -0.64)", DType::F32, h200_tail),
        ("(0.001 : 0.999)", DType::F32, h200_look_back),
        ("(0.001 : 0.999)", DType::F32, GpuConfig::default()),
        ("(0.001 : 0.999)", DType::F64, no_warp),
        ("(0.9, -0.9 : 0.8)", DType::F64, direct),
        ("(1 : 1)", DType::F32, GpuConfig::default()),
        ("(1, 2, 3 : 0)", DType::F32, direct),
        ("(1 : 2, -1)", DType::I32, GpuConfig::default()),
    ];
    let mut compiled = 0;
    for (sig, dtype, config) in cases {
        for (pairs, reversed) in [(true, false), (false, true), (true, true)] {
            if pairs && !dtype.is_float() {
                continue;
            }
            let layout = KernelLayout { pairs, reversed };
            let g = with_dtype!(dtype, T => {
                let filter = Filter::<T>::parse(sig, FilterOptions::default()).unwrap();
                let g = generate_laid_out(&filter, config, &PlrPolicy::default(), layout).unwrap();
                let plain = generate(&filter, config).unwrap();
                assert_eq!(g.constants, plain.constants, "{sig}: the layouts share constants");
                assert_eq!(g.config, plain.config, "{sig}: and the launch shape");
                (g.name, g.source)
            });
            let (name, code) = g;
            assert!(
                code.contains(&format!("#define PLR_PAIRS {}", u8::from(pairs)))
                    && code.contains(&format!("#define PLR_REVERSED {}", u8::from(reversed))),
                "{name}"
            );
            let src = with_primitives(KernelSource::generated(name.clone(), code))
                .with_header(PLR_HEADER_NAME, PLR_HEADER);
            let out = compile(&src, "sm_90", &KernelCache::disabled())
                .unwrap_or_else(|e| panic!("{sig} {dtype} {layout:?}: {e}"));
            assert!(!out.cubin.is_empty());
            compiled += 1;
        }
    }
    assert_eq!(compiled, 25);
    println!("NVRTC compiled {compiled} laid-out kernels for sm_90");
}

/// The tail-carry kernel's premise: where the generator picks it, the recurrence's carry-out
/// of a whole chunk equals the carry-out, from zero, of the chunk's last 32 × V values alone
/// (computed here in f64, on the mapped input, so only the truncated factors can differ).
#[test]
fn tail_carry_premise_holds_where_the_generator_uses_it() {
    use rand::{Rng, SeedableRng};
    use sigpu_recurrence::serial::filter_serial;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let cases = [
        ("(0.2 : 0.8)", 256),
        ("(0.04 : 1.6, -0.64)", 256),
        ("(0.9, -0.9 : 0.8)", 256),
        ("(0.81, -1.62, 0.81 : 1.6, -0.64)", 256),
        ("(0.5 : 0.5, -0.3)", 32),
    ];
    for (sig, threads) in cases {
        let filter = Filter::<f32>::parse(sig, FilterOptions::default()).unwrap();
        let config = GpuConfig {
            threads,
            ..GpuConfig::default()
        };
        let g = generate(&filter, config).unwrap();
        assert!(
            g.tail_carry,
            "{sig}: expected the tail-carry kernel ({} of {} factors, {:?})",
            g.factor_len,
            g.config.chunk(),
            g.config
        );
        let chunk = g.config.chunk();
        let span = 32 * g.config.vpt;
        let fb: Vec<f64> = filter.feedback().iter().map(|&b| b as f64).collect();
        let k = fb.len();
        let t: Vec<f64> = (0..chunk).map(|_| rng.random_range(-1.0..1.0)).collect();
        let mut whole = vec![0.0; chunk];
        filter_serial(&[1.0], &fb, &t, None, &mut whole);
        let mut tail = vec![0.0; span];
        filter_serial(&[1.0], &fb, &t[chunk - span..], None, &mut tail);
        for r in 0..k {
            let (a, b) = (whole[chunk - 1 - r], tail[span - 1 - r]);
            assert!(
                (a - b).abs() <= 1e-30 * a.abs().max(1.0),
                "{sig}: carry {r} {a} vs {b} from the last {span} values"
            );
        }
    }
}

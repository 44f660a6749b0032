//! The launch-shape search: the fused sum's compile-time variant furthest from the default
//! compiles for sm_90 (NVRTC, no GPU; SKIP without NVRTC unless SIGPU_REQUIRE_NVRTC=1), and on
//! a GPU the whole search runs on a tiny size, keeps the results and stores its choices
//! (SKIP without a GPU unless SIGPU_REQUIRE_GPU=1).

use sigpu_lab::tune::candidates::{candidates, Part};
use sigpu_lab::tune::search::Outcome;
use sigpu_lab::tune::{tune, Request};
use sigpu_lns::gpu::{fused, stream_kernels};
use sigpu_lns::Format;
use sigpu_runtime::cuda::tuning::{Family, Source, Tuning, TuningCache, TUNING_CACHE_ENV};
use sigpu_runtime::cuda::{compile, gpu_for_test, nvrtc_for_test, KernelCache};

#[test]
fn the_fused_sum_variant_furthest_from_the_default_compiles() {
    if !nvrtc_for_test("the_fused_sum_variant_furthest_from_the_default_compiles") {
        return;
    }
    // The fewest blocks per SM without cp.async: other launch bounds, the other load path.
    // (lns.cu's unrolled variants compile too, but take NVRTC over a minute: the search
    // compiles them on the GPU machine, where a failure is a refused candidate's error.)
    let p = (candidates(Part::LnsFusedSum).iter())
        .map(|c| c.policies.lns_fused_sum)
        .find(|p| p.stages == 0 && p.blocks_per_sm == 2)
        .unwrap();
    let source = fused::kernels_for(&p);
    assert_eq!(source.options, ["-DRED_MINB=2", "-DRED_CPA=0"]);
    let c = compile(&source, "sm_90", &KernelCache::disabled())
        .unwrap_or_else(|e| panic!("{} {:?}: {e}", source.name, source.options));
    assert!(c
        .kernel_names()
        .iter()
        .any(|k| k == fused::partials_kernel(Format::LNS32)));
    // The default policy compiles the file as it is: the kernel cache's entry of every run.
    let default = (candidates(Part::LnsStream)[0]).policies;
    assert!(stream_kernels(&default.lns_stream).options.is_empty());
    assert!(fused::kernels_for(&default.lns_fused_sum)
        .options
        .is_empty());
}

#[test]
fn the_search_runs_keeps_the_results_and_stores_its_choices() {
    let Some(gpu) = gpu_for_test("the_search_runs_keeps_the_results_and_stores_its_choices") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // This test alone reads the variable in this binary.
    std::env::set_var(TUNING_CACHE_ENV, dir.path());
    let request = Request {
        families: Family::ALL.to_vec(),
        log2_n: vec![12, 13],
        warmup: 0,
        runs: 2,
        store: true,
    };
    let mut lines = 0;
    let report = tune(&gpu, &request, &mut |_| lines += 1).unwrap();
    assert!(lines > 50, "{lines} progress lines");
    assert_eq!(report.families.len(), 4);
    for f in &report.families {
        for p in &f.parts {
            let default = &p.rows[0];
            assert_eq!(default.time_ratio, 1.0);
            assert!(
                default.outcomes.iter().all(|o| *o == Outcome::Identical),
                "{}",
                p.part
            );
            assert!(default.median_ms.iter().all(|t| t.is_some_and(|t| t > 0.0)));
            let chosen = &p.rows[p.chosen];
            assert!(
                chosen.outcomes.iter().all(Outcome::keeps_results),
                "{}",
                p.part
            );
        }
    }
    let stored = report.stored_in.as_deref().expect("written");
    assert!(
        stored.starts_with(&dir.path().display().to_string()),
        "{stored}"
    );
    // The device now runs what was stored, every family from the cache.
    let cache = TuningCache::at(dir.path());
    let t = Tuning::resolve(gpu.info(), &cache);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    for family in Family::ALL {
        assert!(
            matches!(t.source(family), Source::Measured { .. }),
            "{family}"
        );
    }
    assert_eq!(gpu.policies(), t.policies);
    println!("{}", report.text());
}

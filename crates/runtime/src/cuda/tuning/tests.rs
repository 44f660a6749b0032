//! The lookup order, the cache's round trip and what it ignores.

use super::*;

fn key(class: u32) -> TuneKey {
    TuneKey {
        arch: "sm_90".into(),
        sms: 132,
        dram_class_gb_per_s: class,
        l2_mib: 50,
    }
}

/// The device name the cache files are made for (the keys below, 4 TB/s, are a class no
/// built-in row covers).
const H200: &str = "NVIDIA H200";

fn measured_stream() -> StreamPolicy {
    StreamPolicy {
        threads: 512,
        blocks_per_sm: 16,
        unroll: 2,
    }
}

fn store_stream(cache: &TuningCache, device: &str, key: &TuneKey) -> PathBuf {
    let v = serde_json::to_value(measured_stream()).unwrap();
    let note = serde_json::json!({"speedup": 1.1});
    cache
        .store(device, key, Family::LnsStream, v, note)
        .unwrap()
}

#[test]
fn lookup_order_is_measured_then_built_in_then_default() {
    let dir = tempfile::tempdir().unwrap();
    let cache = TuningCache::at(dir.path());
    // An H100 without a measurement: the built-in row, every family.
    let h100 = Tuning::resolve_in("NVIDIA H100 80GB HBM3", key(3500), &cache, BUILT_IN);
    assert_eq!(h100.policies, Policies::default());
    assert!(
        matches!(h100.source(Family::Plr), Source::BuiltIn { entry } if entry.starts_with("H100"))
    );
    // The H200's own row (its searched shapes), every family.
    let row = Tuning::resolve_in("NVIDIA H200", key(5000), &cache, BUILT_IN);
    assert_ne!(row.policies.plr, PlrPolicy::default());
    assert!(
        matches!(row.source(Family::Plr), Source::BuiltIn { entry } if entry.starts_with("H200"))
    );
    // A device no row covers, without a measurement: the default.
    let h200 = Tuning::resolve_in(H200, key(4000), &cache, BUILT_IN);
    assert_eq!(h200.policies, Policies::default());
    assert_eq!(h200.source(Family::Sos), &Source::Default);
    // Measured: that family from the cache, the others as before.
    let file = store_stream(&cache, H200, &key(4000));
    let h200 = Tuning::resolve_in(H200, key(4000), &cache, BUILT_IN);
    assert_eq!(h200.policies.lns_stream, measured_stream());
    assert_eq!(h200.source(Family::LnsStream), &Source::Measured { file });
    assert_eq!(h200.policies.plr, PlrPolicy::default());
    assert_eq!(h200.source(Family::Plr), &Source::Default);
    assert!(h200.warnings.is_empty(), "{:?}", h200.warnings);
    // The cache disabled: the same device runs the default again.
    let off = Tuning::resolve_in(H200, key(4000), &TuningCache::disabled(), BUILT_IN);
    assert_eq!(off.policies, Policies::default());
    assert!(off.warnings.is_empty());
}

#[test]
fn the_cache_round_trips_and_keeps_other_families() {
    let dir = tempfile::tempdir().unwrap();
    let cache = TuningCache::at(dir.path().join("made-on-store"));
    let k = key(4000);
    store_stream(&cache, H200, &k);
    let fused = FusedSumPolicy {
        blocks_per_sm: 3,
        stages: 0,
    };
    let v = serde_json::to_value(fused).unwrap();
    let path = (cache.store(H200, &k, Family::LnsFusedSum, v, serde_json::Value::Null)).unwrap();
    assert!(path.starts_with(dir.path().join("made-on-store")));
    assert!(path
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("NVIDIA_H200-sm_90-132sm"));
    let t = Tuning::resolve_in(H200, k.clone(), &cache, BUILT_IN);
    assert_eq!(t.policies.lns_stream, measured_stream());
    assert_eq!(t.policies.lns_fused_sum, fused);
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
    assert_eq!(names.len(), 1);
    // Another device of the same name and key shares it; another key does not.
    let other = Tuning::resolve_in(H200, key(2000), &cache, BUILT_IN);
    assert_eq!(other.policies, Policies::default());
    cache.clear(H200, &k).unwrap();
    cache.clear(H200, &k).unwrap();
    assert_eq!(
        Tuning::resolve_in(H200, k, &cache, BUILT_IN).policies,
        Policies::default()
    );
}

#[test]
fn corrupt_stale_and_invalid_files_are_ignored_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let cache = TuningCache::at(dir.path());
    let k = key(4000);
    let path = cache.path(H200, &k).unwrap();
    let good = || {
        store_stream(&cache, H200, &k);
        std::fs::read_to_string(&path).unwrap()
    };
    let text = good();
    let cases: Vec<(String, &str)> = vec![
        ("{\"format\": ".into(), "not a tuning file"),
        (
            String::from_utf8_lossy(&[0xff, 0xfe, 0]).into(),
            "not a tuning file",
        ),
        (String::new(), "not a tuning file"),
        (text.replace(FORMAT, "sigpu-tuning-0"), "format"),
        (
            text.replace("\"NVIDIA H200\"", "\"NVIDIA H100\""),
            "measured on",
        ),
        (text.replace("\"sms\": 132", "\"sms\": 114"), "measured for"),
        (text.replace("\"unroll\": 2", "\"unroll\": 99"), "unroll"),
        (
            text.replace("\"unroll\": 2", "\"unroll\": \"two\""),
            "invalid type",
        ),
        (text.replace("lns-stream", "lns-warp"), "unknown family"),
    ];
    for (body, says) in cases {
        std::fs::write(&path, &body).unwrap();
        let t = Tuning::resolve_in(H200, k.clone(), &cache, BUILT_IN);
        assert_eq!(t.policies, Policies::default(), "{says}");
        assert_eq!(t.warnings.len(), 1, "{says}: {:?}", t.warnings);
        assert!(t.warnings[0].contains(says), "{says}: {:?}", t.warnings);
        assert!(t.warnings[0].contains(&path.display().to_string()));
        // A store over an unusable file leaves a usable one (an unknown family is kept, for
        // the newer sigpu that wrote it).
        good();
        let t = Tuning::resolve_in(H200, k.clone(), &cache, BUILT_IN);
        assert_eq!(t.policies.lns_stream, measured_stream(), "{says}");
        std::fs::remove_file(&path).unwrap();
    }
    // A directory where the file should be: a warning, never a panic.
    std::fs::create_dir(&path).unwrap();
    let t = Tuning::resolve_in(H200, k.clone(), &cache, BUILT_IN);
    assert_eq!((t.policies, t.warnings.len()), (Policies::default(), 1));
    assert!(cache
        .store(
            H200,
            &k,
            Family::Sos,
            serde_json::json!({}),
            serde_json::Value::Null
        )
        .is_err());
}

#[test]
fn a_disabled_cache_stores_nothing_and_says_so() {
    let e = TuningCache::disabled()
        .store(
            H200,
            &key(4000),
            Family::Sos,
            serde_json::json!({}),
            serde_json::Value::Null,
        )
        .unwrap_err();
    assert!(e.to_string().contains(TUNING_CACHE_ENV), "{e}");
    assert_eq!(TuningCache::disabled().dir(), None);
}

//! The suite's kernels as per-call-site plans: which mix functions (the apps `approx tune
//! --app … --per-site` searches per site), and a mixed per-site setting of each compiling
//! under NVRTC for sm_90 without a GPU (SKIP without NVRTC unless SIGPU_REQUIRE_NVRTC=1).

use sigpu_approx::apps::APPS;
use sigpu_approx::sites::{Choice, Plan, Setting};
use sigpu_approx::tune::per_site::mixes_functions;
use sigpu_runtime::cuda::{compile, nvrtc_for_test, KernelCache, KernelSource};

fn plan(name: &str) -> Plan {
    let app = APPS.iter().find(|a| a.name == name).unwrap();
    Plan::new(app.code, app.kernel).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_app_has_a_plan_and_the_mixed_ones_are_found() {
    let sites = |name: &str| -> Vec<String> {
        plan(name)
            .sites
            .iter()
            .map(|s| s.function.clone())
            .collect()
    };
    assert_eq!(
        sites("blackscholes"),
        ["sqrtf", "logf", "cnd", "cnd", "expf", "/"]
    );
    assert_eq!(sites("mriq"), ["cosf", "sinf"]);
    let mixed: Vec<&str> = APPS
        .iter()
        .filter(|a| mixes_functions(&plan(a.name)))
        .map(|a| a.name)
        .collect();
    // All divisions are one site (gaussian, srad) and a device function is one (Box-Muller's
    // `box_muller`): those call one function as far as sites go.
    assert_eq!(
        mixed,
        [
            "blackscholes",
            "montecarlo",
            "cp",
            "lavamd",
            "nbody",
            "corr",
            "cfd",
            "mriq",
            "bilateral"
        ]
    );
}

#[test]
fn a_mixed_per_site_setting_of_each_mixed_app_compiles() {
    if !nvrtc_for_test("a_mixed_per_site_setting_of_each_mixed_app_compiles") {
        return;
    }
    for a in APPS.iter().filter(|a| mixes_functions(&plan(a.name))) {
        let p = plan(a.name);
        // Every site in its last form (polynomial where there is one), each at its own λ,
        // guarded: the most branches a per-site kernel can have.
        let mut s = Setting::accurate(p.sites.len(), true);
        for site in &p.sites {
            s.choices[site.index] = Choice {
                form: *site.forms.last().unwrap(),
                lambda: 1 + site.index as u32 % 4,
            };
        }
        let code = p.source(&s, 8).unwrap();
        let c = compile(
            &KernelSource::generated(a.file, code),
            "sm_90",
            &KernelCache::disabled(),
        )
        .unwrap_or_else(|e| panic!("{}: the per-site setting does not compile: {e}", a.name));
        assert!(c.kernel_names().iter().any(|k| k == a.kernel), "{}", a.name);
    }
}

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
    let mixed: Vec<&str> = APPS
        .iter()
        .filter(|a| mixes_functions(&plan(a.name)))
        .map(|a| a.name)
        .collect();
    // A kernel that mixes functions lists more than one; all divisions are one site, so
    // srad (reciprocals and divisions) calls one function as far as sites go.
    for a in APPS {
        let p = plan(a.name);
        assert!(!p.sites.is_empty(), "{}: no sites", a.name);
        if mixed.contains(&a.name) {
            assert!(a.functions.contains(','), "{}: {}", a.name, a.functions);
        }
    }
    for many in ["blackscholes", "montecarlo", "boxmuller", "mriq", "bilateral"] {
        assert!(mixed.contains(&many), "{many}: {mixed:?}");
    }
    for one in ["lavamd", "nbody", "gaussian", "srad"] {
        assert!(!mixed.contains(&one), "{one}: {mixed:?}");
    }
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

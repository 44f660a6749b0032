//! Device views laid out otherwise than rows one after another (`ChannelLayout`): interleaved
//! (re, im) pairs and channels read backwards, through the planner's front door. Without a GPU:
//! the planner's CPU engines refuse such layouts, and a laid-out run's CPU twin (gather, the plain engine, scatter) is the
//! plain run on the split or reversed data. On a GPU (`SIGPU_REQUIRE_GPU=1` makes a skip a
//! failure): the fused sections refuse interleaved pairs with the reason (the caller copies)
//! and run backwards as the plain kernel on reversed rows; the crate's laid-out kernel checks,
//! and the planned PLR engine's laid-out run
//! equal to its plain run on the gathered rows (bit for bit backwards; pairs run half the
//! values per thread, so within the f32 contract's rounding).

use sigpu_recurrence::{
    gpu, plan, ChannelLayout, DeviceBatch, FilterError, FilterOptions, FilterSpec,
};
use sigpu_runtime::cuda::{gpu_for_test, DeviceSlice, DeviceSliceMut};
use sigpu_runtime::{GpuTarget, Target};

/// butter(2, 0.1).
const B: [f64; 3] = [
    0.020083365564211236,
    0.04016673112842247,
    0.020083365564211236,
];
const A: [f64; 3] = [1.0, -1.5610180758007182, 0.6413515380575631];

fn signal(len: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((7919 * i) % 1013) as f32 / 506.5 - 1.0)
        .collect()
}

#[test]
fn the_cpu_twin_of_a_laid_out_run_is_the_plain_run_on_the_split_parts() {
    let f = plan::<f32>(
        &FilterSpec::ba(&B, &A),
        FilterOptions::default(),
        &Target::cpu(),
    )
    .unwrap();
    assert!(!f.reads_layout(&ChannelLayout::reversed(301), 4, 301));
    let (channels, n) = (4, 301);
    let layout = ChannelLayout::interleaved(n);
    let mem = signal(layout.span(channels, n).unwrap());
    // The twin: gather, filter the rows, scatter back.
    let rows = layout.gather(&mem, channels, n);
    let mut y_rows = vec![0.0f32; rows.len()];
    f.apply_batch(&rows, channels, &mut y_rows, None, None)
        .unwrap();
    let mut y_mem = vec![f32::NAN; mem.len()];
    layout.scatter(&y_rows, &mut y_mem, channels, n);
    // Row r's re part is channel 2r: the plain run on the real parts alone.
    for r in 0..channels / 2 {
        let re: Vec<f32> = (0..n).map(|i| mem[r * 2 * n + 2 * i]).collect();
        let (want, _) = f.apply(&re, None).unwrap();
        let got: Vec<f32> = (0..n).map(|i| y_mem[r * 2 * n + 2 * i]).collect();
        assert_eq!(got, want, "row {r}");
    }
    // Backwards: the plain run on the reversed channel, reversed.
    let rev = ChannelLayout::reversed(n);
    let x: Vec<f32> = signal(n);
    let backwards: Vec<f32> = x.iter().rev().copied().collect();
    let (want, _) = f.apply(&backwards, None).unwrap();
    let mut y_rows = vec![0.0f32; n];
    f.apply_batch(&rev.gather(&x, 1, n), 1, &mut y_rows, None, None)
        .unwrap();
    assert_eq!(y_rows, want);
}

#[test]
fn engines_that_read_rows_only_refuse_other_layouts_with_the_way_out() {
    let Some(gpu) = gpu_for_test("engines_that_read_rows_only_refuse_other_layouts") else {
        return;
    };
    let target = Target::Gpu(GpuTarget::new(gpu.clone()));
    let sos = FilterSpec::Sos(vec![[B[0], B[1], B[2], A[0], A[1], A[2]]]);
    let f = plan::<f32>(&sos, FilterOptions::default(), &target).unwrap();
    let n = 64;
    // The fused sections read channels backwards, not interleaved pairs.
    assert!(f.reads_layout(&ChannelLayout::reversed(n), 4, n));
    assert!(!f.reads_layout(&ChannelLayout::interleaved(n), 4, n));
    let x = gpu.upload(&signal(4 * n)).unwrap();
    let mut y = gpu.alloc_poisoned::<f32>(4 * n).unwrap();
    let batch = DeviceBatch {
        x: DeviceSlice::of(&x),
        channels: 4,
        y: DeviceSliceMut::of(&mut y),
        zi: None,
        zf: None,
    };
    let err = f
        .apply_device_laid_out(batch, n, ChannelLayout::interleaved(n))
        .unwrap_err();
    assert!(
        matches!(&err, FilterError::Refused(m) if m.contains("copy the data to rows")),
        "{err}"
    );
    // Backwards: the planned (checked) section engine equals its plain run on reversed rows.
    let rev = ChannelLayout::reversed(n);
    let host = signal(4 * n);
    let mut want = vec![0.0f32; 4 * n];
    f.apply_batch(&rev.gather(&host, 4, n), 4, &mut want, None, None)
        .unwrap();
    let batch = DeviceBatch {
        x: DeviceSlice::of(&x),
        channels: 4,
        y: DeviceSliceMut::of(&mut y),
        zi: None,
        zf: None,
    };
    f.apply_device_laid_out(batch, n, rev).unwrap();
    assert_eq!(rev.gather(&gpu.download(&y).unwrap(), 4, n), want);
}

#[test]
fn laid_out_kernel_checks_pass_on_a_gpu() {
    let Some(gpu) = gpu_for_test("laid_out_kernel_checks_pass_on_a_gpu") else {
        return;
    };
    let mut ran = 0;
    for check in gpu::checks()
        .into_iter()
        .filter(|c| c.name.starts_with("recurrence/view_"))
    {
        let report = (check.run)(&gpu, check.seed(1)).unwrap();
        assert!(report.passed(), "{}: {report:?}", check.name);
        println!("{}: {}", check.name, report.note);
        ran += 1;
    }
    assert_eq!(ran, 7);
}

#[test]
fn the_planned_engine_reads_complex_pairs_in_place_as_its_plain_run() {
    let Some(gpu) = gpu_for_test("the_planned_engine_reads_complex_pairs_in_place") else {
        return;
    };
    let target = Target::Gpu(GpuTarget::new(gpu.clone()));
    let f = plan::<f32>(&FilterSpec::ba(&B, &A), FilterOptions::default(), &target).unwrap();
    let (channels, n) = (6, 100_000);
    assert!(
        f.reads_layout(&ChannelLayout::interleaved(n), 6, n),
        "{:?}",
        f.report()
    );
    let layout = ChannelLayout::interleaved(n);
    let mem = signal(layout.span(channels, n).unwrap());
    let rows = layout.gather(&mem, channels, n);
    let mut want = vec![0.0f32; rows.len()];
    let zi_rows: Vec<f32> = (0..2 * channels).map(|i| i as f32 * 0.1 - 0.5).collect();
    let mut want_zf = vec![0.0f32; zi_rows.len()];
    f.apply_batch(
        &rows,
        channels,
        &mut want,
        Some(&zi_rows),
        Some(&mut want_zf),
    )
    .unwrap();
    let x = gpu.upload(&mem).unwrap();
    let mut y = gpu.alloc_poisoned::<f32>(mem.len()).unwrap();
    let zi = gpu
        .upload(&layout.state_from_rows(&zi_rows, channels, 2))
        .unwrap();
    let mut zf = gpu.alloc_poisoned::<f32>(zi_rows.len()).unwrap();
    let batch = DeviceBatch {
        x: DeviceSlice::of(&x),
        channels,
        y: DeviceSliceMut::of(&mut y),
        zi: Some(DeviceSlice::of(&zi)),
        zf: Some(DeviceSliceMut::of(&mut zf)),
    };
    f.apply_device_laid_out(batch, n, layout).unwrap();
    let got = layout.gather(&gpu.download(&y).unwrap(), channels, n);
    let got_zf = layout.state_to_rows(&gpu.download(&zf).unwrap(), channels, 2);
    let diff = |a: &[f32], b: &[f32]| {
        a.iter()
            .zip(b)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0f32, f32::max)
    };
    assert!(diff(&got, &want) < 1e-5 && diff(&got_zf, &want_zf) < 1e-5);
    // Backwards (same shape as the plain kernel): bit for bit its run on reversed rows.
    let rev = ChannelLayout::reversed(n);
    let rows = rev.gather(&mem[..channels * n], channels, n);
    f.apply_batch(
        &rows,
        channels,
        &mut want,
        Some(&zi_rows),
        Some(&mut want_zf),
    )
    .unwrap();
    let x = gpu.upload(&mem[..channels * n]).unwrap();
    let mut y = gpu.alloc_poisoned::<f32>(channels * n).unwrap();
    let zi = gpu.upload(&zi_rows).unwrap();
    let batch = DeviceBatch {
        x: DeviceSlice::of(&x),
        channels,
        y: DeviceSliceMut::of(&mut y),
        zi: Some(DeviceSlice::of(&zi)),
        zf: Some(DeviceSliceMut::of(&mut zf)),
    };
    f.apply_device_laid_out(batch, n, rev).unwrap();
    assert_eq!(rev.gather(&gpu.download(&y).unwrap(), channels, n), want);
    assert_eq!(gpu.download(&zf).unwrap(), want_zf);
}

/// The fused section kernel reading channels backwards (`-DSOS_REVERSED=1`) compiles for sm_90
/// in its kernel kinds: tail carry with several chunks per block, look-back, f64 arithmetic on
/// f32 signals, f64 signals.
#[test]
fn nvrtc_compiles_the_reversed_section_kernel_for_sm_90() {
    use sigpu_recurrence::gpu::sos_kernel_source;
    use sigpu_recurrence::gpu::sos_tables::{sos_coefficients, SosTables};
    use sigpu_recurrence::testing::BUTTER8_01;
    use sigpu_recurrence::{Element, SosConfig};
    use sigpu_runtime::cuda::{compile, nvrtc_for_test, KernelCache};
    if !nvrtc_for_test("nvrtc_compiles_the_reversed_section_kernel_for_sm_90") {
        return;
    }
    fn compiles<T: Element>(config: SosConfig) {
        let config = config.normalized(T::DTYPE).unwrap();
        let t = SosTables::new(sos_coefficients::<T>(&BUTTER8_01).unwrap(), config);
        let src = sos_kernel_source(&t).with_option("-DSOS_REVERSED=1");
        let out = compile(&src, "sm_90", &KernelCache::disabled())
            .unwrap_or_else(|e| panic!("{} {config:?}: {e}", T::DTYPE));
        assert_eq!(out.kernel_names(), ["sos_filter"]);
    }
    let tail = SosConfig {
        threads: 128,
        vpt: 32,
        chunks_per_block: 4,
        ..SosConfig::default()
    };
    let look_back = SosConfig {
        force_look_back: true,
        ..SosConfig::default()
    };
    let wide = SosConfig {
        wide: true,
        ..SosConfig::default()
    };
    for config in [tail, look_back, wide] {
        compiles::<f32>(config);
    }
    compiles::<f64>(SosConfig::default());
}

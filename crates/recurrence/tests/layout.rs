//! Device views laid out otherwise than rows one after another (`ChannelLayout`): interleaved
//! (re, im) pairs and channels read backwards, through the planner's front door. Without a GPU:
//! the planner's CPU engines and the section engine refuse such layouts with the reason (the
//! caller copies), and a laid-out run's CPU twin (gather, the plain engine, scatter) is the
//! plain run on the split or reversed data. On a GPU (`SIGPU_REQUIRE_GPU=1` makes a skip a
//! failure): the crate's laid-out kernel checks, and the planned PLR engine's laid-out run
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
    assert!(!f.reads_layouts());
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
    assert!(!f.reads_layouts());
    let n = 64;
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
    assert_eq!(ran, 6);
}

#[test]
fn the_planned_engine_reads_complex_pairs_in_place_as_its_plain_run() {
    let Some(gpu) = gpu_for_test("the_planned_engine_reads_complex_pairs_in_place") else {
        return;
    };
    let target = Target::Gpu(GpuTarget::new(gpu.clone()));
    let f = plan::<f32>(&FilterSpec::ba(&B, &A), FilterOptions::default(), &target).unwrap();
    assert!(f.reads_layouts(), "{:?}", f.report());
    let (channels, n) = (6, 100_000);
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

//! texture-LNS's Fig. 3 on the GPU (`kernels/fig3.cu`): every input of every precision f = 8..23
//! evaluated by the texture unit (order 1 and the order-2 bilinear trick), FMA Horner, the SFU
//! and libdevice, the error measured on the host against s_b in f64. The table methods'
//! CPU twins are in `fig3.rs`; the check `lns/fig3_tables` compares the two.

use super::fig3::{Fig3Point, Fig3Tables, FIG3_METHODS};
use sigpu_runtime::cuda::cudarc::driver::DevicePtr;
use sigpu_runtime::cuda::{
    grid_1d, Check, CheckReport, Coordinates, Filter, Gpu, KernelSource, Result, Texture,
    TextureDesc, Tolerance,
};

/// The Fig. 3 kernel (`kernels/fig3.cu`).
pub fn kernels() -> KernelSource {
    KernelSource::embedded("fig3.cu", include_str!("../../kernels/fig3.cu"))
}

/// The methods of the GPU figure: the CPU figure's table methods, then the SFU and libdevice.
/// A method's index here is its id in the kernel.
pub const FIG3_GPU_METHODS: [&str; 6] = ["tex1", "tex2", "horner2", "horner3", "sfu", "accurate"];

/// Raw f32 values of method `FIG3_GPU_METHODS[id]` at every input of `t`.
fn values(gpu: &Gpu, t: &Fig3Tables, id: usize) -> Result<Vec<f32>> {
    let desc = TextureDesc {
        filter: Filter::Linear,
        coords: Coordinates::Unnormalized,
    };
    // Owned here so the tables outlive the launch.
    let (mut tex, mut coeffs) = (None, None);
    let handle: u64 = match FIG3_GPU_METHODS[id] {
        "tex1" => tex.insert(Texture::new_1d(gpu, &t.t1, desc)?).handle(),
        "tex2" => tex
            .insert(Texture::new_2d(gpu, &t.t2, 2 * t.k, 2, desc)?)
            .handle(),
        "horner2" | "horner3" => {
            let p = if id == 2 { &t.p2 } else { &t.p3 };
            let buf = coeffs.insert(gpu.upload(&p.coeffs)?);
            let (ptr, _sync) = buf.device_ptr(gpu.stream());
            ptr
        }
        _ => 0,
    };
    let n = t.inputs();
    let mut out = gpu.alloc_poisoned::<f32>(n)?;
    let kernel = gpu.kernel(&kernels(), "lns_fig3")?;
    let (id, f, k) = (id as i32, t.f as i32, t.k as i32);
    gpu.launch(&kernel)
        .arg(&id)
        .arg(&handle)
        .arg(&f)
        .arg(&k)
        .buf_mut(&mut out)
        .run(grid_1d(n, 256))?;
    let v = gpu.download(&out)?;
    drop((tex, coeffs));
    Ok(v)
}

/// Fig. 3 measured on the GPU for input precisions `fs` (each 8..=23).
pub fn fig3(gpu: &Gpu, fs: impl IntoIterator<Item = u32>) -> anyhow::Result<Vec<Fig3Point>> {
    let mut points = Vec::new();
    for f in fs {
        let t = Fig3Tables::new(f)?;
        for (id, method) in FIG3_GPU_METHODS.into_iter().enumerate() {
            let v = values(gpu, &t, id)?;
            points.push(t.point(method, |i| v[i] as f64));
        }
    }
    Ok(points)
}

/// GPU self-check: the table methods' raw values against their CPU twins at f = 12 and 16.
pub fn checks() -> Vec<Check> {
    vec![Check {
        name: "lns/fig3_tables",
        about: "Fig. 3 raw s_b of texture and Horner tables at f = 12, 16 vs the CPU twins",
        run: |gpu, _seed| Ok(check_tables(gpu)?),
    }]
}

fn check_tables(gpu: &Gpu) -> Result<CheckReport> {
    let (mut elements, mut mismatches, mut worst) = (0, 0, 0.0f64);
    let mut note = String::new();
    for f in [12, 16] {
        let t = Fig3Tables::new(f).expect("f = 12 and 16 are in Fig. 3's 8..=23");
        // The table methods lead FIG3_GPU_METHODS in FIG3_METHODS' order.
        for (id, method) in FIG3_METHODS.into_iter().enumerate() {
            let v = values(gpu, &t, id)?;
            // Horner is bit-exact; the filter's final f32 rounding may differ by one ulp.
            let ulps = if method.starts_with("tex") { 1.0 } else { 0.0 };
            for (i, &got) in v.iter().enumerate() {
                let want = t.eval(method, i);
                let err = (got as f64 - want as f64).abs();
                elements += 1;
                worst = worst.max(err);
                if err > ulps * f32::EPSILON as f64 * want.abs().max(f32::MIN_POSITIVE) as f64 {
                    mismatches += 1;
                    if note.is_empty() {
                        note = format!("{method} f = {f} input {i}: GPU {got:e}, twin {want:e}");
                    }
                }
            }
        }
    }
    Ok(CheckReport {
        elements,
        mismatches,
        max_error: worst,
        tolerance: Tolerance {
            abs: 0.0,
            rel: f32::EPSILON as f64,
        },
        note,
    })
}

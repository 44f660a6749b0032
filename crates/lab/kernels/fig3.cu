// Raw s_b values for texture-LNS's Fig. 3 (src/fig3_gpu.rs; CPU twins in src/fig3.rs): inputs
// z_i = -i 2^-f, i = 0..2^f, k = 2^(f-8) segments on [-1, 0], so every input sits on the 1/256
// grid of its segment and the filter's 8-bit weights are exact.
//
// method: 0 order-1 texture, 1 order-2 texture, 2 / 3 f32 Horner of degree 2 / 3 (coefficients
// ascending per segment), 4 SFU log2(1 + 2^z) (ex2.approx / lg2.approx), 5 libdevice
// log2f(1 + exp2f(z)).
extern "C" __global__ void lns_fig3(int method, unsigned long long table, int f, int k,
                                    float* __restrict__ out) {
    const int n = (1 << f) + 1;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int u = (1 << f) - i;  // (z + 1) 2^f
        const int w = min(u >> 8, k - 1);
        const float s = (float)(u - (w << 8)) * (1.0f / 256.0f);
        const float z = -(float)i * __int_as_float((127 - f) << 23);  // exact: i < 2^24
        float v;
        if (method == 0) {
            v = tex1D<float>(table, (float)u * (1.0f / 256.0f) + 0.5f);
        } else if (method == 1) {
            const float t = s + 0.5f;
            v = tex2D<float>(table, 2.0f * (float)w + t, t);
        } else if (method == 2 || method == 3) {
            const int deg = method;
            const float* c = reinterpret_cast<const float*>(table) + w * (deg + 1);
            v = 0.0f;
            for (int j = deg; j >= 0; --j) v = fmaf(v, s, c[j]);
        } else if (method == 4) {
            float e, l;
            asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(z));
            asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(l) : "f"(1.0f + e));
            v = l;
        } else {
            v = log2f(1.0f + exp2f(z));
        }
        out[i] = v;
    }
}

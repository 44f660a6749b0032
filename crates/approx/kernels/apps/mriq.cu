// MRI-Q (Parboil mri-q ComputeQ): Q at every voxel sums phi-weighted cos / sin of 2π k·x over
// the k-space samples; the arguments leave [-π, π].

#define PIx2 6.2831853071795864769252867665590058f

extern "C" __global__ void mriq(float* qr, float* qi, const float* x, const float* y,
                                const float* z, int voxels, const float4* k, int samples) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= voxels) return;
    const float px = x[i], py = y[i], pz = z[i];
    float sr = 0.0f, si = 0.0f;
    for (int s = 0; s < samples; s++) {
        const float4 ks = k[s];
        const float arg = PIx2 * (ks.x * px + ks.y * py + ks.z * pz);
        sr += ks.w * cosf(arg);
        si += ks.w * sinf(arg);
    }
    qr[i] = sr;
    qi[i] = si;
}

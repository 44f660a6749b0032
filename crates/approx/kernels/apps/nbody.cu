// All-pairs n-body accelerations (after the CUDA SDK's nbody integrateBodies), with the
// softened inverse distance cubed written as the accurate 1 / sqrtf.

extern "C" __global__ void nbody(const float4* pos, float4* acc, int n, float eps2) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 me = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        const float4 other = pos[j];
        const float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
        const float dist2 = dx * dx + dy * dy + dz * dz + eps2;
        const float inv = 1.0f / sqrtf(dist2);
        const float s = other.w * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
}

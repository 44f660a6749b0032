// lavaMD-style particle potential (Rodinia lavaMD kernel_gpu_cuda, in float): each particle
// interacts with the particles of its own box and the next one through exp(-a2 r^2).

#define PER_BOX 100

extern "C" __global__ void lavamd(float4* force, const float4* particle, const float* charge,
                                  int boxes, float a2) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= boxes * PER_BOX) return;
    const int box = i / PER_BOX;
    const float4 me = particle[i];
    float fv = 0.0f, fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int nb = 0; nb < 2; nb++) {
        const int first = ((box + nb) % boxes) * PER_BOX;
        for (int j = first; j < first + PER_BOX; j++) {
            const float4 other = particle[j];
            const float r2 = me.w + other.w - (me.x * other.x + me.y * other.y + me.z * other.z);
            const float u2 = a2 * r2;
            const float vij = expf(-u2);
            const float fs = 2.0f * vij;
            const float q = charge[j];
            fv += q * vij;
            fx += q * fs * (me.x - other.x);
            fy += q * fs * (me.y - other.y);
            fz += q * fs * (me.z - other.z);
        }
    }
    force[i] = make_float4(fv, fx, fy, fz);
}

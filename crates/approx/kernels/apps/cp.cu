// Coulombic potential on a lattice plane (the GPGPU-Sim / Parboil cp cenergy kernel): every
// lattice point sums q / r over all atoms.

extern "C" __global__ void cp(float* energy, const float4* atoms, int natoms, int width,
                              int height, float spacing, float z) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const float px = x * spacing, py = y * spacing;
    float e = 0.0f;
    for (int a = 0; a < natoms; a++) {
        const float4 at = atoms[a];
        const float dx = px - at.x, dy = py - at.y, dz = z - at.z;
        e += at.w / sqrtf(dx * dx + dy * dy + dz * dz);
    }
    energy[y * width + x] = e;
}

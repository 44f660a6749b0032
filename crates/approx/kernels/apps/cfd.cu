// CFD step factor (Rodinia cfd compute_step_factor, double precision): the local time step
// from each cell's velocity, pressure and speed of sound.

#define GAMMA 1.4

extern "C" __global__ void cfd(double* step, const double* density, const double* mx,
                               const double* my, const double* mz, const double* energy,
                               const double* area, int cells) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cells) return;
    const double d = density[i];
    const double vx = mx[i] / d, vy = my[i] / d, vz = mz[i] / d;
    const double speed2 = vx * vx + vy * vy + vz * vz;
    const double pressure = (GAMMA - 1.0) * (energy[i] - 0.5 * d * speed2);
    const double sound = sqrt(GAMMA * pressure / d);
    step[i] = 0.5 / (sqrt(area[i]) * (sqrt(speed2) + sound));
}

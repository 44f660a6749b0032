// SRAD diffusion coefficient (Rodinia srad, first kernel): from the four neighbour
// differences, the instantaneous coefficient of variation and c = 1 / (1 + den), clamped.

extern "C" __global__ void srad(float* c, const float* j, int rows, int cols, float q0sqr) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows) return;
    const int k = y * cols + x;
    const float jc = j[k];
    const float dn = j[max(y - 1, 0) * cols + x] - jc;
    const float ds = j[min(y + 1, rows - 1) * cols + x] - jc;
    const float dw = j[y * cols + max(x - 1, 0)] - jc;
    const float de = j[y * cols + min(x + 1, cols - 1)] - jc;
    const float g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc);
    const float l = (dn + ds + dw + de) / jc;
    const float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
    float den = 1.0f + 0.25f * l;
    const float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float coef = 1.0f / (1.0f + den);
    if (coef < 0.0f) coef = 0.0f;
    else if (coef > 1.0f) coef = 1.0f;
    c[k] = coef;
}

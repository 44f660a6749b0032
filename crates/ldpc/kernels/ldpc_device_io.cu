// Device-side input and output of the 8-bit GPU decoders, for LLRs that are already on the
// GPU (a PyTorch tensor, a CuPy array): no host round trip.

// Quantises `count` float32 LLRs into the decoder's 8-bit input as channel::Quantizer does:
// round(llr · scale) (half away from zero), saturated to ±127, NaN → 0; the rest of the
// `total` inputs (a partial batch's missing codewords) become 0.
extern "C" __global__ void ldpc_quantize_f32(const float* __restrict__ llr,
                                             signed char* __restrict__ out,
                                             long long count, long long total, float scale) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        signed char q = 0;
        if (i < count) {
            float v = roundf(llr[i] * scale);
            v = fminf(fmaxf(v, -127.0f), 127.0f);
            q = (v == v) ? (signed char)v : (signed char)0;
        }
        out[i] = q;
    }
}

// Unpacks the flooding decoder's hard decisions of `count` codewords into bytes (count × n,
// row-major): codeword c is in part c / sub of `hard` (n × 4 words each), bit (c % sub) / 4
// of word 4v + c % 4 for bit v.
extern "C" __global__ void ldpc_unpack_hard(const unsigned int* __restrict__ hard,
                                            unsigned char* __restrict__ out, int n, int sub,
                                            long long count) {
    long long total = count * n;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        long long c = i / n;
        long long v = i - c * n;
        const unsigned int* part = hard + (c / sub) * (long long)n * 4;
        int t = (int)((c % sub) / 4), j = (int)(c % 4);
        out[i] = (unsigned char)((part[v * 4 + j] >> t) & 1u);
    }
}

#include <cstdio>
#define plr_filter plr_filter_TAG
#define plr_final_state plr_final_state_TAG
#include "gen/TAG_src.cu"
void launch_TAG(const void* x, void* y, long long n, const void* consts, unsigned* flags, void* aggs, void* incls,
               unsigned* counters, unsigned epoch) {
    const long long chunks = (n + CHUNK - 1) / CHUNK;
    const int block = THREADS + (PLR_LOOK_BACK_WARP ? 32 : 0);
    const size_t smem = (PLR_LOOK_BACK && PLR_TRANSPOSE) ? (size_t)CHUNK * sizeof(T) : 0;
    static bool once = false;
    if (!once && smem > 48 * 1024) cudaFuncSetAttribute(plr_filter_TAG, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    once = true;

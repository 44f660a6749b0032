#include <cstdint>
#define plr_filter plr_filter_i32
#define plr_final_state plr_final_state_i32
#include "golden_i32_src.cu"
void launch_golden_i32(const void* x, void* y, long long n, unsigned* flags, void* aggs, void* incls, unsigned* counters, unsigned epoch, cudaStream_t s) {
    long long chunks = n / CHUNK;
    plr_filter_i32<<<(unsigned)chunks, THREADS, 0, s>>>((const T*)x, (T*)y, n, chunks, nullptr, 0, nullptr, flags, (T*)aggs, (T*)incls, counters, epoch);
}

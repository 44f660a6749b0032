// The quasi-cyclic 5G NR layered 8-bit min-sum of ldpc_nr_layered8.cu with two check lanes
// per thread: each thread updates checks 2t and 2t + 1 of a block row with the 16-bit
// posteriors of both packed in one 32-bit word and SIMD-in-word arithmetic (__vsub2,
// __vmins2, __vminu2, __vcmpgtu2, ...), halving the arithmetic per check. Same tables, same
// check-state format (8 bytes per check lane), same results bit for bit: every packed
// operation is the 16-bit operation of the one-lane kernel on each half (no carry or borrow
// crosses halves), and the clamp to ±127 keeps every magnitude within 7 bits.
//
// A block of NR_THREADS / 2 threads decodes G = (NR_THREADS / 2) / ⌈Z / 2⌉ codewords (one for
// Z > 192, 192 for Z = 2: the same shared memory as the one-lane kernel). For odd Z the last
// thread of a codeword has one lane; its upper half computes nothing that is stored.

#include "ldpc_nr_qc.cuh"

extern "C" __global__ void __launch_bounds__(NR_THREADS / 2) ldpc_nr_layered8x2(NR_KERNEL_PARAMS) {
    nr_layered<2>(NR_KERNEL_ARGS);
}

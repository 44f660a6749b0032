// Quasi-cyclic layered 8-bit min-sum for lifted 5G NR codes (TS 38.212, both base graphs,
// every Z from 2 to 384), bit for bit the CPU's quasi-cyclic decoder
// (crates/ldpc/src/decoder/qc.rs).
//
// Work split. A block of NR_THREADS threads decodes G = NR_THREADS / Z codewords of one code
// (one codeword for Z > 192, 192 of them for Z = 2); thread t works on lane t % Z of codeword
// t / Z. A lifted row block is Z checks that share no bit (every circulant is a permutation),
// so the Z threads of a codeword update a whole row block at once with no conflict, which is
// exactly the check-by-check layered schedule of the CPU twin; one barrier separates row
// blocks. Blocks of different codes run in one launch: each block reads its code from a
// descriptor (a mixed batch of different Z, base graphs, rates and redundancy versions).
//
// Memory. The 16-bit posteriors P of the block's codewords live in shared memory (at most
// NR_THREADS · 68 · 2 = 52 KB, any Z). A check keeps its c2v compressed as (min1, min2,
// argmin, one sign per edge) in 8 bytes in global memory, read and written once per
// iteration, each thread its own check: coalesced. The base graph's block row (first bit of
// the column and shift of every circulant) is copied into shared memory once; check `lane`
// of block row i meets bit (lane + V) mod Z of block column j, computed, never looked up.
//
// Arithmetic (the CPU twin's values; ldpc_nr_qc.cuh says how the row update computes them):
// P in i16 (channel LLR + Σ c2v, which never wraps), diff = P − old c2v,
// v2c = clamp(diff, ±127), the two smallest |v2c| (the first met wins ties), the product of
// signs (0 counts as positive), the correction (mode 0 none, 1 normalised min·k/16 rounded
// down, 2 offset max(min − β, 0)), then P = diff + new c2v. A known bit (a filler bit: its
// mask bit set) starts at ±known instead of its 8-bit LLR.
//
// Early termination, per codeword: after each iteration but the last, every codeword that is
// still running checks the syndrome of its hard decisions; one that satisfies every check
// freezes (its threads skip the row blocks from then on) while the others of the block go on.

#include "ldpc_nr_qc.cuh"

extern "C" __global__ void __launch_bounds__(NR_THREADS, 2) ldpc_nr_layered8(NR_KERNEL_PARAMS) {
    nr_layered<1>(NR_KERNEL_ARGS);
}

// Compact layered 8-bit min-sum on the GPU, 4 codewords per thread (one byte lane each of a
// 32-bit word): the GPU form of the CPU's compact decoder (crates/ldpc/src/decoder/compact.rs,
// twin `compact::decode_scalar`), bit for bit.
//
// One block decodes a group of 4 codewords through all layers and iterations in one launch.
// - Posteriors P: saturated i8, the 4 codewords of a bit in one word; bits are renumbered as
//   the CPU decoder does (parity bit K + j at K + (j mod q)·360 + j div q), so the code is
//   quasi-cyclic with Z = 360: layer l (360 checks) has D circulant slots, slot k joining check
//   t to bit g_k·360 + (t + s_k) mod 360. Thread t owns check t of every layer: a warp's loads
//   of one slot are 32 consecutive words (one wrap at most).
//   The first `shared_groups` 360-bit groups of P live in shared memory (227 KB hold 161 of a
//   normal frame's 180 groups for 4 codewords); the rest (the last parity groups, two edges
//   per bit) in a global scratch area of the block, which stays in L2. A slot's group is the
//   same for all its threads, so the choice is uniform: one generic pointer per slot.
// - Check state instead of messages, per check and 4 codewords (16 bytes, global memory,
//   coalesced: thread t reads and writes its own uint4): min1, min2 (corrected, capped at 31),
//   a one-hot byte marking min1's slot (bit 7 − k for slot k), and the c2v sign bits
//   (bit 7 − k). Slot k's lane masks are a prmt with sign replication of `word << k`.
// - Schedule: layer after layer; DVB layers whose checks share no bit (the host refuses
//   others) so the 360 checks of a layer in parallel equal the twin's check-by-check order.
//   Slots are in ascending group order, which is ascending renumbered column order, the twin's
//   edge order, so "the first edge met wins ties" holds. A slot may miss one check (the
//   staircase's corner: check 0 of layer 0 has no bit in the last parity group); a missing
//   edge takes no part in the minima, the signs or P. The order of a check's edges does not
//   change its result (ties give min1 = min2), so the slots need only list its edges.
// - Layers whose checks share bits (8 of normal 1/2's 90: a table row with two addresses
//   congruent mod q, so one group is joined twice) run in rounds: the host gives each check
//   its depth (1 + the largest depth of the earlier checks of its layer that share a bit with
//   it), and round r updates the checks of depth r. A check then sees exactly the updates of
//   the earlier checks it shares bits with, as in the twin's check-by-check order, and the
//   checks of one round share no bit.
// Arithmetic (twin): old c2v_k = (k = argmin ? min2 : min1) with sign bit k;
//   v2c_k = max(sat(P − old), −127); min1 ≤ min2 the two smallest |v2c| (strictly smaller
//   replaces: the first one met wins ties); corrected (mode 1: ⌊m·k/16⌋, mode 2: max(m − b, 0))
//   and capped at 31; new c2v_k = (k = argmin ? min2 : min1) with the sign of the product of
//   the other v2c signs; P = max(sat(v2c + c2v), −127). Hard decision P < 0.

#define Z 360u
#define SLOT_NONE 0xffffu   // miss: no check lacks this slot's edge
#define SLOT_EMPTY 0xfffeu  // miss: padding slot, no edge at all

// The original index of renumbered bit v (parity bits of DVB codes renumbered when q > 0).
__device__ __forceinline__ unsigned original_bit(unsigned v, unsigned k, unsigned q) {
    if (q == 0 || v < k) return v;
    unsigned r = v - k;
    return k + (r % Z) * q + r / Z;
}

// prmt with an arbitrary selector (sign replication included).
__device__ __forceinline__ unsigned prmt(unsigned a, unsigned b, unsigned sel) {
    unsigned r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
    return r;
}

// One check's update in 16-bit lanes: a word of 4 codewords splits into two halves of 2
// lanes (h = 0: codewords 0 and 2, h = 1: codewords 1 and 3), in which sm_90's DPX
// instructions add, saturate and take minima natively (__viaddmax_s16x2, min/max.s16x2).
// The same update on byte lanes (__vsubss4, __vminu4, ...: emulated by several instructions
// each on sm_90) issued about as many instructions per check (~870) and ran 9% slower; two
// threads per check (one half each, 768 threads) ran 10% slower. A check's minima are kept as keys
// |v2c|·16 + slot, so one min/max pair tracks the magnitude and the slot of min1 together
// (equal magnitudes: the lower slot wins, as the first edge met does in the twin). State and
// P stay in bytes in memory.
#define LANES16 0x00010001u
// Lane-wise signed 16-bit minimum / maximum (PTX min/max.s16x2, native on sm_90).
__device__ __forceinline__ unsigned min16x2(unsigned a, unsigned b) {
    unsigned r;
    asm("min.s16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ unsigned max16x2(unsigned a, unsigned b) {
    unsigned r;
    asm("max.s16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
template <int D>
__device__ __forceinline__ void check16(uint4 s, unsigned* const* ptr,
                                        const bool* present, unsigned mode, unsigned param,
                                        uint4* st) {
    // Byte -> 16-bit lane selectors: sign-extended values, zero-extended values, byte masks.
    const unsigned SX[2] = {0xA280u, 0xB391u}, ZX[2] = {0x4240u, 0x4341u},
                   MK[2] = {0xAA88u, 0xBB99u};
    unsigned m1[2], m12[2], nm1[2], nm12[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        unsigned a = prmt(s.x, 0, ZX[h]), b = prmt(s.y, 0, ZX[h]);
        unsigned na = __viaddmax_s16x2(~a, LANES16, 0x80008000u);
        unsigned nb = __viaddmax_s16x2(~b, LANES16, 0x80008000u);
        m1[h] = a;
        m12[h] = a ^ b;
        nm1[h] = na;
        nm12[h] = na ^ nb;
    }
    unsigned x[D][2], key[D][2];
    unsigned min1[2] = {0x07ff07ffu, 0x07ff07ffu}, min2[2] = {0x07ff07ffu, 0x07ff07ffu};
    unsigned parity[2] = {0, 0};
    unsigned p[D];
#pragma unroll
    // Only the slots this check has: a padding slot, or the one its circulant misses (the
    // staircase corner), points at a variable another thread of the layer updates in the same
    // round, and reading it would race with that write (the value was discarded, but the
    // read was still unordered).
    for (int j = 0; j < D; ++j) p[j] = present[j] ? *ptr[j] : 0u;
#pragma unroll
    for (int j = 0; j < D; ++j) {
        unsigned zs = s.z << j, ws = s.w << j;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            unsigned here = prmt(zs, 0, MK[h]), neg = prmt(ws, 0, MK[h]);
            unsigned pos = m1[h] ^ (m12[h] & here), ng = nm1[h] ^ (nm12[h] & here);
            unsigned add = (pos & neg) | (ng & ~neg);  // -old c2v
            unsigned pv = prmt(p[j], 0, SX[h]);
            unsigned v = min16x2(__viaddmax_s16x2(pv, add, 0xff81ff81u), 0x007f007fu);
            unsigned a = __viaddmax_s16x2(~v, LANES16, v);  // |v| = max(-v, v)
            unsigned k = a * 16u + (unsigned)j * LANES16;
            if (!present[j]) {
                v = 0;
                k = 0x07ff07ffu;
            }
            x[j][h] = v;
            key[j][h] = k;
            min2[h] = min16x2(min2[h], max16x2(min1[h], k));
            min1[h] = min16x2(min1[h], k);
            parity[h] ^= v;
        }
    }
    unsigned n1[2], n12[2], nn1[2], nn12[2], sg[2] = {0, 0}, at[2] = {0, 0};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        unsigned a = (min1[h] >> 4) & 0x0fff0fffu, b = (min2[h] >> 4) & 0x0fff0fffu;
        if (mode == 1) {
            a = ((a * param) >> 4) & 0x0fff0fffu;
            b = ((b * param) >> 4) & 0x0fff0fffu;
        } else if (mode == 2) {
            unsigned nb = ((0u - param) & 0xffffu) * LANES16;  // -param in both lanes
            a = __viaddmax_s16x2(a, nb, 0);
            b = __viaddmax_s16x2(b, nb, 0);
        }
        a = min16x2(a, 0x001f001fu);
        b = min16x2(b, 0x001f001fu);
        unsigned na = __viaddmax_s16x2(~a, LANES16, 0x80008000u);
        unsigned nb = __viaddmax_s16x2(~b, LANES16, 0x80008000u);
        n1[h] = a;
        n12[h] = a ^ b;
        nn1[h] = na;
        nn12[h] = na ^ nb;
    }
#pragma unroll
    for (int j = 0; j < D; ++j) {
        unsigned out[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            // 0xffff in a lane where slot j is not min1's.
            unsigned other = min16x2(key[j][h] ^ min1[h], LANES16) * 0xffffu;
            unsigned neg = prmt(parity[h] ^ x[j][h], 0, 0xBB99u);
            unsigned pos = n1[h] ^ (n12[h] & ~other), ng = nn1[h] ^ (nn12[h] & ~other);
            unsigned c2v = (ng & neg) | (pos & ~neg);
            out[h] = min16x2(__viaddmax_s16x2(x[j][h], c2v, 0xff81ff81u), 0x007f007fu);
            sg[h] |= neg & (0x80008000u >> j);
            at[h] |= ~other & (0x80008000u >> j);
        }
        if (present[j]) *ptr[j] = prmt(out[0], out[1], 0x6240u);
    }
    *st = make_uint4(prmt(n1[0], n1[1], 0x6240u), prmt(n1[0] ^ n12[0], n1[1] ^ n12[1], 0x6240u),
                     prmt(at[0], at[1], 0x7351u), prmt(sg[0], sg[1], 0x7351u));
}

// in: count codewords of n i8 LLRs (codeword-major, original bit order); block b decodes
// codewords 4b .. 4b+3 (lanes past count decode zeros and are not written).
// slots: layers × D words, g | s << 16 (group, shift); miss: layers × D, the check t that
// lacks the slot's edge or SLOT_NONE / SLOT_EMPTY. global_p: per block (groups −
// shared_groups)·360 words; state: per block layers·360 uint4. hard: per codeword ⌈n/32⌉
// words, bit v % 32 of word v / 32 = hard decision of original bit v.
template <int D>
__device__ __forceinline__ void compact(const signed char* __restrict__ in, unsigned count,
                                        const unsigned* __restrict__ slots,
                                        const unsigned* __restrict__ miss,
                                        const unsigned char* __restrict__ depth,
                                        const unsigned* __restrict__ rounds, unsigned layers,
                                        unsigned n, unsigned k, unsigned q,
                                        unsigned shared_groups, unsigned* __restrict__ global_p,
                                        uint4* __restrict__ state, unsigned* __restrict__ hard,
                                        unsigned iterations, unsigned mode, unsigned param) {
    extern __shared__ unsigned shared_p[];
    const unsigned groups = n / Z;
    const unsigned b = blockIdx.x, t = threadIdx.x;
    unsigned* gp = global_p + (size_t)b * (groups - shared_groups) * Z;
    uint4* st = state + (size_t)b * layers * Z;

    // P from the LLRs (-128 -> -127), renumbered.
    for (unsigned v = t; v < n; v += blockDim.x) {
        unsigned o = original_bit(v, k, q), w = 0;
#pragma unroll
        for (unsigned c = 0; c < 4; ++c) {
            unsigned cw = 4 * b + c;
            int x = cw < count ? in[(size_t)cw * n + o] : 0;
            w |= (unsigned)(max(x, -127) & 0xff) << (8 * c);
        }
        if (v < shared_groups * Z) shared_p[v] = w;
        else gp[v - shared_groups * Z] = w;
    }
    __syncthreads();

    const bool active = t < Z;
    // A thread's check state of its next layer is loaded one layer ahead (it was written an
    // iteration ago), so its latency is off the layer's critical path.
    uint4 s_next = make_uint4(0, 0, 0, 0);
    for (unsigned it = 0; it < iterations; ++it) {
        for (unsigned l = 0; l < layers; ++l) {
            const uint4 s_cur = s_next;
            const bool wrap = l + 1 == layers;
            const unsigned nl = wrap ? 0 : l + 1, nit = wrap ? it + 1 : it;
            if (active && nit > 0 && nit < iterations) s_next = st[nl * Z + t];
            const unsigned nr = __ldg(&rounds[l]);
            for (unsigned r = 0; r < nr; ++r) {
                if (active && (nr == 1 || depth[l * Z + t] == r)) {
                    unsigned* ptr[D];
                    bool present[D];
#pragma unroll
                    for (int j = 0; j < D; ++j) {
                        const unsigned gs = __ldg(&slots[l * D + j]);
                        const unsigned ms = __ldg(&miss[l * D + j]);
                        const unsigned g = gs & 0xffffu, sh = gs >> 16;
                        unsigned u = t + sh;
                        u = u >= Z ? u - Z : u;
                        ptr[j] = (g < shared_groups ? shared_p + g * Z
                                                    : gp + (g - shared_groups) * Z) + u;
                        present[j] = ms != SLOT_EMPTY && ms != t;
                    }
                    check16<D>(s_cur, ptr, present, mode, param, &st[l * Z + t]);
                }
                __syncthreads();
            }
        }
    }

    // Hard decisions in original bit order, one ballot per codeword lane.
    const unsigned words = (n + 31) / 32;
    for (unsigned o = t; o < words * 32; o += blockDim.x) {
        unsigned w = 0;
        if (o < n) {
            // The renumbered position of original bit o (inverse of original_bit).
            unsigned v = o;
            if (q != 0 && o >= k) {
                unsigned j = o - k;
                v = k + (j % q) * Z + j / q;
            }
            w = v < shared_groups * Z ? shared_p[v] : gp[v - shared_groups * Z];
        }
#pragma unroll
        for (unsigned c = 0; c < 4; ++c) {
            unsigned bits = __ballot_sync(0xffffffffu, (w >> (8 * c + 7)) & 1);
            unsigned cw = 4 * b + c;
            if ((t & 31) == 0 && cw < count) hard[(size_t)cw * words + o / 32] = bits;
        }
    }
}



#define LDPC_COMPACT(D)                                                                           \
    extern "C" __global__ void __launch_bounds__(384, 1) ldpc_compact_##D(                       \
        const signed char* __restrict__ in, unsigned count, const unsigned* __restrict__ slots,  \
        const unsigned* __restrict__ miss, const unsigned char* __restrict__ depth,              \
        const unsigned* __restrict__ rounds, unsigned layers, unsigned n, unsigned k, unsigned q, \
        unsigned shared_groups, unsigned* __restrict__ global_p, uint4* __restrict__ state,      \
        unsigned* __restrict__ hard, unsigned iterations, unsigned mode, unsigned param) {       \
        compact<D>(in, count, slots, miss, depth, rounds, layers, n, k, q, shared_groups,            \
                   global_p, state, hard, iterations, mode, param);                               \
    }
LDPC_COMPACT(4)
LDPC_COMPACT(5)
LDPC_COMPACT(6)
LDPC_COMPACT(7)
LDPC_COMPACT(8)

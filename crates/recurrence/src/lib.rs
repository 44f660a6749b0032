//! Linear recurrences and IIR filters (PLR): a signature `(a0, a-1, … : b-1, …, b-k)` becomes a
//! map plus a recurrence parallelised with k-nacci correction factors, generated as CUDA C and
//! run in a single pass at memory-copy speed, with the same algorithm on CPU cores.
//!
//! Source: seed 002 (Maleki, Burtscher). Work starts in issue 5.

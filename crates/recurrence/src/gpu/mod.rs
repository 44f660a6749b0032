//! The GPU path (work in progress).

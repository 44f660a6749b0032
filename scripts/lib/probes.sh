# What scripts/test looks for on the machine before it installs anything: NVRTC, and for the
# MPI tests Open MPI and the libclang that the `mpi` crate's bindgen loads. Sourced by
# scripts/test and by .ci/probes (which runs every probe against fake roots and stub PATHs).
#
# PROBE_ROOT (default empty) is prepended to every system directory searched, so a test can
# point the probes at a fake file tree; commands (llvm-config, ldconfig, mpirun, mpicc) are
# found on PATH as usual.

# NVRTC 13 where sigpu-runtime looks for it (crates/runtime/src/cuda/libs.rs): $SIGPU_NVRTC_DIR,
# $CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda/lib64, then the loader's cache.
have_nvrtc() {
  local d
  for d in "${SIGPU_NVRTC_DIR:-}" "${CUDA_HOME:+$CUDA_HOME/lib64}" "${CUDA_PATH:+$CUDA_PATH/lib64}" \
      "${PROBE_ROOT:-}/usr/local/cuda/lib64"; do
    [ -n "$d" ] && [ -e "$d/libnvrtc.so.13" ] && return 0
  done
  # grep without -q reads all its input, so ldconfig never dies of SIGPIPE under pipefail.
  { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true; } |
    grep 'libnvrtc\.so\.13 ' >/dev/null
}

# The paths that match the glob patterns $@, one per line (none is not an error).
matches() {
  local p
  for p in "$@"; do compgen -G "$p" || true; done
}

# The libclang files in the directories $@ (glob patterns allowed) that clang-sys (bindgen's
# loader, built with its `runtime` feature as the `mpi` crate asks) accepts, one per line:
# libclang.so, libclang-*.so, libclang.so.*, libclang-*.so.*, and never libclang-cpp.so.* (the
# C++ library that shares the prefix but is not libclang: a probe that took it for libclang
# skipped the install and left bindgen to fail with "Unable to find libclang").
libclang_in() {
  local d f
  for d in "$@"; do
    while IFS= read -r f; do
      case ${f##*/} in *-cpp.*) continue ;; esac
      # A dangling symlink (a half-removed package) is not a library.
      [ -f "$f" ] && echo "$f"
    done < <(matches "$d/libclang.so" "$d/libclang-*.so" "$d/libclang.so.*" "$d/libclang-*.so.*")
  done
  return 0
}

# The directories clang-sys searches, in its order, as glob patterns: only $LIBCLANG_PATH when
# it is set (a directory, or a library file whose directory is searched); else
# `llvm-config --prefix`'s bin, lib and lib64, $LD_LIBRARY_PATH, $LIBRARY_PATH and the system
# patterns of clang-sys's DIRECTORIES_LINUX.
libclang_dirs() {
  local prefix root=${PROBE_ROOT:-}
  if [ -n "${LIBCLANG_PATH:-}" ]; then
    if [ -f "$LIBCLANG_PATH" ]; then dirname "$LIBCLANG_PATH"; else echo "$LIBCLANG_PATH"; fi
    return 0
  fi
  if prefix=$(llvm-config --prefix 2>/dev/null) && [ -n "$prefix" ]; then
    printf '%s\n' "$prefix/bin" "$prefix/lib" "$prefix/lib64"
  fi
  printf '%s\n' "${LD_LIBRARY_PATH:-}" "${LIBRARY_PATH:-}" | tr ':' '\n' | grep -v '^$' || true
  local d
  for d in '/usr/local/llvm*/lib*' '/usr/local/lib*/*/*' '/usr/local/lib*/*' '/usr/local/lib*' \
      '/usr/lib*/*/*' '/usr/lib*/*' '/usr/lib*'; do
    echo "$root$d"
  done
}

# Prints a libclang that bindgen would find; status 1 when there is none.
find_libclang() {
  local d lib
  while IFS= read -r d; do
    lib=
    read -r lib < <(libclang_in "$d") || true
    if [ -n "$lib" ]; then
      echo "$lib"
      return 0
    fi
  done < <(libclang_dirs)
  return 1
}

# Clang's own headers (stddef.h …), which bindgen needs to parse mpi.h: in a clang/VERSION/include
# folder beside a libclang (Debian's libclang-common-N-dev, pulled in by libclang-dev).
have_clang_headers() {
  local root=${PROBE_ROOT:-} prefix dirs=() d
  dirs=("$root"/usr/lib/llvm-*/lib "$root"/usr/lib "$root"/usr/lib64 "$root"/usr/local/lib)
  if prefix=$(llvm-config --prefix 2>/dev/null) && [ -n "$prefix" ]; then dirs+=("$prefix/lib"); fi
  [ -n "${LIBCLANG_PATH:-}" ] && dirs+=("${LIBCLANG_PATH%/*}" "$LIBCLANG_PATH")
  for d in "${dirs[@]}"; do
    compgen -G "$d/clang/*/include/stddef.h" >/dev/null && return 0
  done
  return 1
}

# The Debian / Ubuntu packages the MPI tests still need, space-separated (empty when none):
# openmpi-bin for mpirun, libopenmpi-dev for mpicc and mpi.h, libclang-dev for libclang and
# its headers.
mpi_missing_packages() {
  local missing=()
  command -v mpirun >/dev/null 2>&1 || missing+=(openmpi-bin)
  command -v mpicc >/dev/null 2>&1 || missing+=(libopenmpi-dev)
  { find_libclang >/dev/null && have_clang_headers; } || missing+=(libclang-dev)
  echo "${missing[*]}"
}

# Everything the MPI tests need is here.
have_mpi() {
  [ -z "$(mpi_missing_packages)" ]
}

"""ptxas's register and spill report for a .cu file, through NVRTC (no GPU needed):
python3 bench/tools/ptxas.py LIBNVRTC_SO FILE.cu [extra NVRTC options]. Compiles for sm_90 with the
options sigpu-runtime uses (--std=c++17) plus -Xptxas -v, and prints NVRTC's log."""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
src = open(sys.argv[2], 'rb').read()
prog = ctypes.c_void_p()
assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"reduce.cu", 0, None, None) == 0
opts = [b"--gpu-architecture=sm_90", b"--std=c++17", b"-Xptxas", b"-v"] + [o.encode() for o in sys.argv[3:]]
arr = (ctypes.c_char_p * len(opts))(*opts)
rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
n = ctypes.c_size_t()
lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
buf = ctypes.create_string_buffer(n.value)
lib.nvrtcGetProgramLog(prog, buf)
print("rc", rc)
print(buf.value.decode())

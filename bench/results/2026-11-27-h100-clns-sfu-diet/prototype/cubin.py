import ctypes, os, sys
lib = ctypes.CDLL(os.path.join(os.environ.get('NVRTC_LIB', ''), 'libnvrtc.so.13'))
src = open(sys.argv[1]).read().encode()
prog = ctypes.c_void_p()
assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"x.cu", 0, None, None) == 0
opts = [b"--gpu-architecture=sm_90", b"-std=c++17"] + [a.encode() for a in sys.argv[3:]]
arr = (ctypes.c_char_p * len(opts))(*opts)
r = lib.nvrtcCompileProgram(prog, len(opts), arr)
n = ctypes.c_size_t(); lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
log = ctypes.create_string_buffer(n.value); lib.nvrtcGetProgramLog(prog, log); print(log.value.decode()[:2000])
lib.nvrtcGetCUBINSize(prog, ctypes.byref(n)); b = ctypes.create_string_buffer(n.value); lib.nvrtcGetCUBIN(prog, b)
open(sys.argv[2], 'wb').write(b.raw)

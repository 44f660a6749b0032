import sys, re, subprocess
import os  # NVRTC_LIB: folder of libnvrtc.so.13; NVDISASM: the nvdisasm binary
# sass.py file.cu kernel [nvrtc opts] -> prints the kernel's SASS (labels kept) to stdout
f, k = sys.argv[1], sys.argv[2]
subprocess.run(['python3', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cubin.py'), f, '/tmp/k.cubin'] + sys.argv[3:], check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, LD_LIBRARY_PATH=os.environ.get('NVRTC_LIB', '')))
out = subprocess.run([os.environ.get('NVDISASM', 'nvdisasm'), '-c', '/tmp/k.cubin'], capture_output=True, text=True).stdout
lines = out.split('\n')
i = [j for j,l in enumerate(lines) if l.strip()=='.text.%s:' % k][0]
res = []
for l in lines[i+1:]:
    if l.strip().startswith('.section') or l.startswith('//---'): break
    l = re.sub(r'/\* 0x[0-9a-f]+ \*/', '', l).rstrip()
    if re.match(r'^\s+/\*[0-9a-f]{4}\*/\s*$', l) or not l.strip(): continue
    if 'NOP' in l: continue
    res.append(l.strip())
print('\n'.join(res))

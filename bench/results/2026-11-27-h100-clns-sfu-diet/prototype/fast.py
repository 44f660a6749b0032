import sys, re
# fast.py sass: instructions on the fast path of the main (last back-edge) loop, per MUFU.EX2 (per add)
L = [l for l in open(sys.argv[1]).read().split('\n') if l]
labels = {l[:-1]: i for i, l in enumerate(L) if l.startswith('.L')}
# the loop: a backward BRA
loops = []
for i, l in enumerate(L):
    m = re.search(r'BRA\s+`\((\.L_x_\d+)\)', l)
    if m and labels.get(m.group(1), 1e9) < i: loops.append((labels[m.group(1)], i))
head, tail = max(loops, key=lambda x: x[1] - x[0])
i, n, ex2, cats = head + 1, 0, 0, {}
while i <= tail:
    l = L[i]
    if l.startswith('.L'): i += 1; continue
    op = l.split('*/')[1].split()[0] if '*/' in l else ''
    if op.startswith('@'): op = l.split('*/')[1].split()[1]
    n += 1; cats[op.split('.')[0]] = cats.get(op.split('.')[0], 0) + 1
    ex2 += 'MUFU.EX2' in l
    m = re.search(r'@!?U?P\d BRA !?U?P\d, `\((\.L_x_\d+)\)', l) or (re.search(r'@!?U?P\d BRA `\((\.L_x_\d+)\)', l) if 'VOTE' in ' '.join(L[max(0,i-3):i]) and False else None)
    if m and labels[m.group(1)] > i: i = labels[m.group(1)]; continue
    i += 1
print('fast path: %d instructions, %d adds, %.2f per add' % (n, ex2, n / max(ex2, 1)))
print(sorted(cats.items(), key=lambda x: -x[1]))

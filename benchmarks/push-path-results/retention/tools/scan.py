import re, sys, struct
pid = int(sys.argv[1]); addr = int(sys.argv[2], 16)
full = struct.pack('<Q', addr); narrow = struct.pack('<I', addr >> 3)
maps = open('/proc/%d/maps' % pid).read().splitlines()
mem = open('/proc/%d/mem' % pid, 'rb', 0)
for line in maps:
    m = re.match(r'([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)', line)
    lo, hi, perm, name = int(m.group(1),16), int(m.group(2),16), m.group(3), m.group(4)
    if 'r' not in perm or hi - lo > 8<<30: continue
    try:
        mem.seek(lo); buf = mem.read(hi - lo)
    except Exception as e:
        continue
    for pat, kind in ((full, 'full'),):
        i = buf.find(pat)
        while i >= 0:
            if i % 8 == 0:
                print(kind, hex(lo + i), line)
            i = buf.find(pat, i + 1)

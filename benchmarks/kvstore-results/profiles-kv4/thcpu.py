import os, sys, time, re, collections
# thcpu.py SECONDS PID...: per-thread user/sys CPU (ms) over SECONDS, grouped by thread name with digits folded
def snap(pids):
    d = {}
    for p in pids:
        for t in os.listdir(f'/proc/{p}/task'):
            try:
                st = open(f'/proc/{p}/task/{t}/stat').read()
                name = st[st.index('(')+1:st.rindex(')')]
                f = st[st.rindex(')')+2:].split()
                d[(p, t)] = (name, int(f[11]), int(f[12]))
            except Exception:
                pass
    return d
secs = float(sys.argv[1]); pids = sys.argv[2:]
a = snap(pids); time.sleep(secs); b = snap(pids)
tick = 1000.0 / os.sysconf('SC_CLK_TCK')
g = collections.defaultdict(lambda: [0, 0])
for k, (n, u, s) in b.items():
    u0, s0 = (a[k][1], a[k][2]) if k in a else (0, 0)
    key = k[0] + ' ' + re.sub(r'\d+', '#', n)
    g[key][0] += (u - u0) * tick; g[key][1] += (s - s0) * tick
tot = sum(u + s for u, s in g.values())
print('total cpu ms %.0f over %.1f s' % (tot, secs))
for k, (u, s) in sorted(g.items(), key=lambda x: -(x[1][0] + x[1][1]))[:25]:
    if u + s > 0: print('%-50s user %6.0f sys %6.0f' % (k, u, s))

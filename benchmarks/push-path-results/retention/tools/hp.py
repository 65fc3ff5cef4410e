import struct, sys, collections
data = open(sys.argv[1],'rb').read()
target_msg = sys.argv[2]
p = data.index(b'\0')+1
idsz = struct.unpack('>I', data[p:p+4])[0]; p += 12
assert idsz == 8
def rid(o): return struct.unpack_from('>Q', data, o)[0]
strings = {}; classname = {}
classes = {}  # id -> (super, [(name,type)], statics [(name,type,val)])
inst = {}     # id -> (classid, offset, len)
objarr = {}   # id -> (arrclass, [ids])
primarr = {}  # id -> (type, offset, n)
roots = []    # (id, kind, extra)
TS = {2:8,4:1,5:2,6:4,7:8,8:1,9:2,10:4,11:8}
def parse_heap(p, end):
    while p < end:
        t = data[p]; p += 1
        if t == 0xFF: roots.append((rid(p),'unknown',None)); p += 8
        elif t == 0x01: roots.append((rid(p),'jni_global',None)); p += 16
        elif t == 0x02: roots.append((rid(p),'jni_local',struct.unpack_from('>II',data,p+8))); p += 16
        elif t == 0x03: roots.append((rid(p),'java_frame',struct.unpack_from('>II',data,p+8))); p += 16
        elif t == 0x04: roots.append((rid(p),'native_stack',struct.unpack_from('>I',data,p+8))); p += 12
        elif t == 0x05: roots.append((rid(p),'sticky_class',None)); p += 8
        elif t == 0x06: roots.append((rid(p),'thread_block',None)); p += 12
        elif t == 0x07: roots.append((rid(p),'monitor_used',None)); p += 8
        elif t == 0x08: roots.append((rid(p),'thread_obj',struct.unpack_from('>II',data,p+8))); p += 16
        elif t == 0x20:
            cid = rid(p); sup = rid(p+12); p += 8+4+8*6+4
            cpn = struct.unpack_from('>H',data,p)[0]; p += 2
            for _ in range(cpn):
                ty = data[p+2]; p += 3 + TS[ty]
            sn = struct.unpack_from('>H',data,p)[0]; p += 2
            st = []
            for _ in range(sn):
                nm = rid(p); ty = data[p+8]; p += 9
                v = rid(p) if ty == 2 else None
                st.append((nm,ty,v)); p += TS[ty]
            fn = struct.unpack_from('>H',data,p)[0]; p += 2
            fl = []
            for _ in range(fn):
                fl.append((rid(p), data[p+8])); p += 9
            classes[cid] = (sup, fl, st)
        elif t == 0x21:
            oid = rid(p); cid = rid(p+12); n = struct.unpack_from('>I',data,p+20)[0]
            inst[oid] = (cid, p+24, n); p += 24+n
        elif t == 0x22:
            oid = rid(p); n = struct.unpack_from('>I',data,p+12)[0]; ac = rid(p+16)
            objarr[oid] = (ac, [rid(p+24+8*i) for i in range(n)]); p += 24+8*n
        elif t == 0x23:
            oid = rid(p); n = struct.unpack_from('>I',data,p+12)[0]; ty = data[p+16]
            primarr[oid] = (ty, p+17, n); p += 17 + n*TS[ty]
        else: raise Exception('tag %x at %d' % (t,p))
while p < len(data):
    tag = data[p]; ln = struct.unpack_from('>I',data,p+5)[0]; b = p+9
    if tag == 0x01: strings[rid(b)] = data[b+8:b+ln].decode('utf8','replace')
    elif tag == 0x02: classname[rid(b+4)] = rid(b+16)
    elif tag in (0x0C,0x1C): parse_heap(b, b+ln)
    p = b+ln
cname = {c: strings.get(n,'?') for c,n in classname.items()}
def fields(cid):
    out = []
    while cid and cid in classes:
        out.extend(classes[cid][1]); cid = classes[cid][0]
    return out
def refs(oid):
    if oid in inst:
        cid, off, n = inst[oid]; o = off; r = []
        for nm, ty in fields(cid):
            if ty == 2:
                v = rid(o)
                if v and strings.get(nm) != 'referent': r.append((strings.get(nm,'?'), v))
            o += TS[ty]
        return r
    if oid in objarr:
        return [('[%d]'%i, v) for i,v in enumerate(objarr[oid][1]) if v]
    if oid in classes:
        return [('static '+strings.get(nm,'?'), v) for nm,ty,v in classes[oid][2] if ty == 2 and v]
    return []
def field(oid, name):
    for n, v in refs(oid):
        if n == name: return v
def jstr(sid):
    if sid is None or sid not in inst: return None
    v = field(sid, 'value')
    if v in primarr:
        ty, off, n = primarr[v]; return data[off:off+n].decode('latin1')
def typ(oid):
    if oid in inst: return cname.get(inst[oid][0],'?')
    if oid in objarr: return cname.get(objarr[oid][0],'?')
    if oid in classes: return 'class '+cname.get(oid,'?')
    return 'prim[]'
targets = [o for o,(c,_,_) in inst.items() if cname.get(c) == 'java/lang/IllegalStateException' and (jstr(field(o,'detailMessage')) or '').startswith('boom')]
print('boom ISEs:', [(hex(t), jstr(field(t,'detailMessage'))) for t in targets])
tgt = [t for t in targets if jstr(field(t,'detailMessage')) == target_msg]
print('target', tgt)
# forward BFS from roots
parent = {}
q = collections.deque()
for r, k, x in roots:
    if r not in parent:
        parent[r] = (None, 'ROOT %s %s' % (k, x)); q.append(r)
for c in classes:
    if c not in parent: parent[c] = (None, 'CLASS'); q.append(c)
while q:
    o = q.popleft()
    for nm, v in refs(o):
        if v not in parent:
            parent[v] = (o, nm); q.append(v)
for t in tgt:
    if t not in parent: print('target not reachable from roots!'); continue
    o = t; chain = []
    while o is not None:
        par, nm = parent[o]; chain.append((typ(o), hex(o), nm)); o = par
    for c in reversed(chain): print(c)
# also all direct referrers of target
for t in tgt:
    for o in list(inst)+list(objarr):
        for nm, v in refs(o):
            if v == t: print('referrer', typ(o), hex(o), nm)
print(len(inst), len(objarr), len(primarr), len(classes), len(roots))
print([ (hex(o), jstr(field(o,'detailMessage'))) for o,(c,_,_) in inst.items() if 'IllegalState' in cname.get(c,'')][:5])
# referent referrers
for t in tgt:
    for o,(c,off,n) in inst.items():
        oo = off
        for nm, ty in fields(c):
            if ty == 2 and rid(oo) == t: print('raw referrer', typ(o), hex(o), strings.get(nm))
            oo += TS[ty]
    for r,k,x in roots:
        if r == t: print('root', k, x)

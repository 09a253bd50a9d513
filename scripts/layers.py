#!/usr/bin/env python3
"""Layer check: the file-level `use` graph of a Rust crate's `src/` must have no cycle.

    scripts/layers.py crates/bspkit/src      # exit 1 and the cycles when there are any

Every path a file names (`crate::…`, `super::…`, `self::…`, child modules, and names brought in
by `use`) is an edge to the deepest module file it reaches; re-exports count, so a facade module
that re-exports a higher layer is a way up. `#[cfg(test)]` code is left out. `-v` prints the
graph. Run by scripts/test.sh.
"""
import os, re, sys
root = sys.argv[1]
files = {}
for dp, _, fns in os.walk(root):
    for fn in fns:
        if fn.endswith('.rs'):
            p = os.path.join(dp, fn); rel = os.path.relpath(p, root)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ('mod', 'lib'): parts = parts[:-1]
            files[tuple(parts)] = rel
mods = set(files)
def strip(src):
    src = re.sub(r'//[^\n]*', '', src)
    src = re.sub(r'/\*.*?\*/', '', src, flags=re.S)
    src = re.sub(r'"(\\.|[^"\\])*"', '""', src)
    # drop #[cfg(test)] mod tests { ... } blocks roughly: from '#[cfg(test)]' to end of file
    i = src.find('#[cfg(test)]')
    if i >= 0: src = src[:i]
    return src
def expand(s, i):
    """parse a path starting at s[i]; return (list of paths, end)"""
    out = []; seg = []
    m = re.compile(r'\s*(\w+)\s*')
    def parse_tree(i, prefix):
        res = []
        while True:
            mm = m.match(s, i)
            if s[i:].lstrip().startswith('{'):
                j = s.index('{', i) + 1
                while True:
                    sub, j = parse_tree(j, prefix)
                    res += sub
                    k = j
                    while k < len(s) and s[k] in ' \n\t': k += 1
                    if k < len(s) and s[k] == ',': j = k + 1; k = j
                    while k < len(s) and s[k] in ' \n\t': k += 1
                    if k < len(s) and s[k] == '}': return res, k + 1
                    if k >= len(s): return res, k
                    j = k
            if not mm: return res or [prefix], i
            name = mm.group(1); i = mm.end(); p = prefix + [name]
            if s.startswith('::', i):
                i += 2; prefix = p; continue
            ma = re.compile(r'as\s+\w+\s*').match(s, i)
            if ma: i = ma.end()
            return res + [p], i
    return parse_tree(i, [])
edges = {f: set() for f in mods}
for mod, rel in files.items():
    src = strip(open(os.path.join(root, rel)).read())
    children = {m[-1] for m in mods if len(m) == len(mod) + 1 and m[:len(mod)] == mod}
    aliases = {}
    # module aliases brought in by `use` (use a::b; use a::{b, c}; use a::b as c;)
    for um in re.finditer(r'\buse\s+((?:crate|super|self)::[^;]+);', src):
        text = um.group(1)
        for am in re.finditer(r'(\w+)(?:\s+as\s+(\w+))?\s*(?=[,}]|$)', text):
            pass
        paths, _ = expand(text, 0)
        # recover alias names: "X as Y" -> Y else last segment
        for asm in re.finditer(r'((?:\w+::)*\w+)\s+as\s+(\w+)', text):
            aliases[asm.group(2)] = asm.group(1).split('::')[-1]
        for p in paths:
            base = mod if p[0] in ('super','self') else ()
            q = list(p)
            if q[0] == 'crate': q = q[1:]
            while q and q[0] in ('super','self'):
                if q[0] == 'super': base = base[:-1]
                q = q[1:]
            full = base + tuple(q)
            if full in mods:
                name = full[-1]
                for al, orig in list(aliases.items()):
                    if orig == name and al != name: aliases[al] = full
                aliases.setdefault(name, full)
    aliases = {k: v for k, v in aliases.items() if isinstance(v, tuple)}
    for mm in re.finditer(r'(?<![\w:])(crate|super|self|\w+)::', src):
        first = mm.group(1)
        if first not in ('crate', 'super', 'self') and first not in children and first not in aliases: continue
        paths, _ = expand(src, mm.start())
        for p in paths:
            if not p: continue
            if p[0] in aliases and p[0] not in children: base = aliases[p[0]]; p = p[1:]
            elif p[0] == 'crate': base = (); p = p[1:]
            elif p[0] in ('super', 'self'):
                base = mod
                while p and p[0] in ('super', 'self'):
                    if p[0] == 'super': base = base[:-1]
                    p = p[1:]
            else: base = mod
            full = base + tuple(p)
            best = None
            for k in range(len(full), -1, -1):
                if full[:k] in mods: best = full[:k]; break
            if best is not None and best != mod and not (len(best) < len(mod) and mod[:len(best)] == best and best == base and not p):
                edges[mod].add(best)
# Tarjan
idx = {}; low = {}; st = []; on = set(); sccs = []; c = [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        sccs.append(comp)
for v in mods:
    if v not in idx: sc(v)
bad = [s for s in sccs if len(s) > 1]
for s in bad:
    print(f"cycle of {len(s)} files:", ' '.join(sorted(files[m] for m in s)))
    for m in sorted(s):
        print("   ", files[m], "->", ', '.join(sorted(files[w] for w in edges[m] if w in s)))
if '-v' in sys.argv:
    for m in sorted(mods): print(files[m], '->', ', '.join(sorted(files[w] for w in edges[m])))
sys.exit(1 if bad else 0)

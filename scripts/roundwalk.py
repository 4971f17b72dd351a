#!/usr/bin/env python3
"""roundwalk.py [--root FUNC] [--stop F,G] [--all | --rooms PREFIX,...] [TREE]: how far one has to walk to follow a function's calls.

Compiles the front end's C files of TREE (default: .) with gcc -fcallgraph-info (-O0, no
inlining) into a temporary directory, joins the per-file call graphs, and walks the static call
tree from FUNC (default run_round) depth first, each function of the tree once, its calls in the
order of their call sites. Calls through function pointers are not followed (gcc records them as
one placeholder), nor calls out of the tree (libc, cJSON).

A *room* is a source file; a *stay* is a stretch of the walk spent in one room, counted again on
every return from a callee in another room. A *return* is a stay in a room already left before.
By default the walk counts the rooms of src/front/ other than stats/ (numeric leaves) and src/common/
(base helpers, where a stay is one call in and out); --all counts every file of src/, --rooms only
the files whose paths begin with one of the prefixes. --stop F,G: the walk enters F and G but not
what they call (e.g. runner_run, duet_run: the process runner, which the round's state does not
enter)."""
import os, re, subprocess, sys, tempfile, glob

def graphs(tree, tmp):
    srcs = sorted(glob.glob(os.path.join(tree, 'src/front/*/*.c')) + glob.glob(os.path.join(tree, 'src/common/*.c'))
                  + glob.glob(os.path.join(tree, 'src/marks/*.c')) + glob.glob(os.path.join(tree, 'src/trace/*.c')))
    nodes, edges = {}, {}
    for i, s in enumerate(srcs):
        rel = os.path.relpath(s, tree)
        base = os.path.join(tmp, 'f%d' % i)
        r = subprocess.run(['gcc', '-std=gnu11', '-O0', '-D_GNU_SOURCE', '-DALLOCAB_VERSION="x"', '-I' + os.path.join(tree, 'src'),
                            '-I' + tree, '-fcallgraph-info', '-c', s, '-o', base + '.o', '-dumpbase', base],
                           capture_output=True, text=True, cwd=tree)
        if r.returncode != 0:
            sys.exit('roundwalk: %s does not compile:\n%s' % (rel, r.stderr[:400]))
        text = open(base + '.ci').read()
        for m in re.finditer(r'node: \{ title: "([^"]+)" label: "([^\\"]+)\\n([^:"]+):(\d+)', text):
            title, name, f = m.group(1), m.group(2), m.group(3)
            line_end = text.find('\n', m.end())
            if 'shape' not in text[m.end():line_end] and title != '__indirect_call':
                nodes[title] = (name, rel)
        for m in re.finditer(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)" label: "[^"]*:(\d+):(\d+)"', text):
            edges.setdefault(m.group(1), []).append((int(m.group(3)), int(m.group(4)), m.group(2)))
    return nodes, edges

def resolve(nodes):
    """A callee named by its bare name (extern) is the one defined function of that name."""
    by_name = {}
    for title, (name, f) in nodes.items():
        by_name.setdefault(name, []).append(title)
    return by_name

def walk(root, nodes, edges, counted, stops=()):
    by_name = resolve(nodes)
    starts = by_name.get(root, [])
    if len(starts) != 1:
        sys.exit('roundwalk: %s is defined %d times' % (root, len(starts)))
    seen, trail = set(), []
    def visit(t):
        seen.add(t)
        trail.append(nodes[t][1])
        if nodes[t][0] in stops and t != starts[0]:
            return
        for _, _, callee in sorted(edges.get(t, [])):
            if callee in nodes:
                c = callee
            else:
                cands = by_name.get(callee, [])
                if len(cands) != 1:
                    continue
                c = cands[0]
            if c in seen:
                continue
            visit(c)
            trail.append(nodes[t][1])
    visit(starts[0])
    rooms = [f for f in trail if counted(f)]
    stays = [f for i, f in enumerate(rooms) if i == 0 or rooms[i - 1] != f]
    left, returns = set(), 0
    for i, f in enumerate(stays):
        if f in left:
            returns += 1
        if i > 0:
            left.add(stays[i - 1])
    return stays, returns, len(seen)

def main():
    args = sys.argv[1:]
    root, every, stops = 'run_round', False, ()
    if '--stop' in args:
        i = args.index('--stop'); stops = tuple(args[i + 1].split(',')); del args[i:i + 2]
    if '--root' in args:
        i = args.index('--root'); root = args[i + 1]; del args[i:i + 2]
    if '--all' in args:
        every = True; args.remove('--all')
    rooms_only = ()
    if '--rooms' in args:
        i = args.index('--rooms'); rooms_only = tuple(args[i + 1].split(',')); del args[i:i + 2]
    tree = os.path.abspath(args[0] if args else '.')
    def counted(f):
        if rooms_only:
            return f.startswith(rooms_only)
        if every:
            return f.startswith('src/')
        return f.startswith('src/front/') and not f.startswith('src/front/stats/')
    with tempfile.TemporaryDirectory() as tmp:
        nodes, edges = graphs(tree, tmp)
    stays, returns, nfun = walk(root, nodes, edges, counted, stops)
    rooms = sorted(set(stays))
    print('%s: %d functions, %d stays in %d rooms, %d of them returns to a room already left'
          % (root, nfun, len(stays), len(rooms), returns))
    counts = {}
    for f in stays:
        counts[f] = counts.get(f, 0) + 1
    try:
        for f in sorted(counts, key=lambda k: -counts[k]):
            print('  %3d  %s' % (counts[f], f))
    except BrokenPipeError:
        pass

if __name__ == '__main__':
    main()

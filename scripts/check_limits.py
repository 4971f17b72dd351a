#!/usr/bin/env python3
"""check_limits.py - the size limits of the programs' code (docs/HACKING.md, "Conventions"): in
src/, workloads/ and allocators/, a C file has at most 500 lines, a header at most 400, a function
at most 60 lines (from its opening brace to its closing one) and at most 6 parameters, unless
docs/HACKING.md's table "Exceptions to the limits" lists it, with the figure it had when listed and
why: a listed one may shrink, never grow. A listed one now within the limit, or gone, is a note
("remove it from the table").

Usage: scripts/check_limits.py [--list]   (--list prints every file and function over a limit, as
table rows, for after a merge: the reasons are yours to write)."""
import os, re, sys

ROOTS = ('src', 'workloads', 'allocators')
MAX_C, MAX_H, MAX_FN, MAX_PARAMS = 500, 400, 60, 6
DOC = 'docs/HACKING.md'
HEADING = '### Exceptions to the limits'

def strip(src):
    """The source with comments, strings and character constants blanked, lines kept."""
    blank = lambda m: re.sub(r'[^\n]', ' ', m.group())
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', blank, src, flags=re.S)

def params_of(text):
    if text.strip() in ('', 'void'):
        return 0
    depth, n = 0, 1
    for c in text:
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        elif c == ',' and depth == 0:
            n += 1
    return n

def functions(path):
    """(name, first line, lines, parameters) of each function defined in path."""
    s = strip(open(path, errors='replace').read())
    s = re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', lambda m: re.sub(r'[^\n]', ' ', m.group()), s, flags=re.M)
    out, depth, cur = [], 0, None
    for i, c in enumerate(s):
        if c == '{':
            if depth == 0:
                j = i - 1
                while j >= 0 and s[j].isspace():
                    j -= 1
                if j >= 0 and s[j] == ')':
                    d, k = 0, j
                    while k >= 0:
                        d += s[k] == ')'
                        d -= s[k] == '('
                        if d == 0:
                            break
                        k -= 1
                    m = re.search(r'(\w+)\s*$', s[:k])
                    if m and m.group(1) not in ('if', 'for', 'while', 'switch', 'return', 'sizeof'):
                        cur = [m.group(1), s.count('\n', 0, i) + 1, params_of(s[k + 1:j])]
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0 and cur:
                end = s.count('\n', 0, i) + 1
                out.append((cur[0], cur[1], end - cur[1] + 1, cur[2]))
                cur = None
    return out

def measure():
    """{(file, name): (lines, params)}; name '-' for the file itself (params 0)."""
    found = {}
    for root in ROOTS:
        for dp, dns, fns in os.walk(root):
            dns.sort()
            for f in sorted(fns):
                if not f.endswith(('.c', '.h')):
                    continue
                p = os.path.join(dp, f)
                n = sum(1 for _ in open(p, errors='replace'))
                if n > (MAX_H if f.endswith('.h') else MAX_C):
                    found[(p, '-')] = (n, 0)
                if f.endswith('.c'):
                    for name, _, lines, params in functions(p):
                        if lines > MAX_FN or params > MAX_PARAMS:
                            found[(p, name)] = (lines, params)
    return found

def table():
    """The exceptions docs/HACKING.md lists: {(file, name): (lines, params, why)}."""
    rows, on = {}, False
    for line in open(DOC):
        if line.startswith('#'):
            on = line.strip() == HEADING
            continue
        if not on or not line.startswith('| `'):
            continue
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) != 5:
            sys.exit('%s: a row of "%s" needs 5 cells: %s' % (DOC, HEADING[4:], line.strip()))
        f, name, lines, params, why = cells
        num = lambda v: int(v) if v.isdigit() else 0
        rows[(f.strip('`'), name.strip('`'))] = (num(lines), num(params), why)
    return rows

def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    found = measure()
    if sys.argv[1:] == ['--list']:
        for (f, name), (lines, params) in sorted(found.items()):
            print('| `%s` | `%s` | %s | %s | |' % (f, name, lines, params if params > MAX_PARAMS else ''))
        return 0
    allowed, bad = table(), 0
    for key, (lines, params) in sorted(found.items()):
        f, name = key
        what = 'the file' if name == '-' else name + '()'
        lim = MAX_FN if name != '-' else (MAX_H if f.endswith('.h') else MAX_C)
        if key not in allowed:
            print('%s: %s: %d lines%s, over the limits (%d lines, %d parameters): split it, or list it '
                  'with a reason in %s, "%s"' % (f, what, lines, ', %d parameters' % params if params else '',
                                                   lim, MAX_PARAMS, DOC, HEADING[4:]))
            bad = 1
            continue
        a_lines, a_params, why = allowed[key]
        if not why:
            print('%s: %s: listed in %s without a reason' % (f, what, DOC))
            bad = 1
        if lines > max(a_lines, lim) or params > max(a_params, MAX_PARAMS):
            print('%s: %s: %d lines, %d parameters, more than the %d and %d it had when listed: split it rather '
                  'than grow it' % (f, what, lines, params, a_lines, a_params))
            bad = 1
    for key in sorted(allowed):
        if key not in found:
            print('# note: %s %s is within the limits now (or gone): remove it from %s' % (key[0], key[1], DOC))
    return bad

if __name__ == '__main__':
    sys.exit(main())

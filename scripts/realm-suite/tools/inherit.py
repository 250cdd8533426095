import os, sys, re, glob
from swiftsource import block_end
# inherit.py: Linux XCTest discovery lists only the test methods a class declares, and cannot list
# generic classes. Abstract bases (classes with subclasses) get their tests renamed check_testX;
# each leaf class gets `func testX() { check_testX() }` for every test it inherits.
files = glob.glob(os.environ['REALM_SUITE_DIR'] + '/Tests/RealmSwiftTests/*.swift')
srcs = {f: open(f).read().split('\n') for f in files}
classes = {}  # name -> dict(file, start, end, base, tests{name: sig})
def scan():
    classes.clear()
    for f, lines in srcs.items():
        for i, l in enumerate(lines):
            m = re.match(r'^(?:final |open |public )*class (\w+)(<[^>]*>)?\s*:\s*([\w\.]+)(<.*?>)?', l)
            if not m: continue
            end = block_end(lines, i)
            tests = {}
            for k in range(i, end):
                t = re.match(r'^    ((?:@\w+ )*)(override )?func ((?:check_)?test\w*)\(\)\s*(async )?(throws )?', lines[k])
                attr = t and (t.group(1) or ('@MainActor ' if re.match(r'^    @MainActor\s*$', lines[k-1]) else ''))
                if t: tests[t.group(3)] = (attr, t.group(4) or '', t.group(5) or '')
            classes[m.group(1)] = dict(file=f, start=i, end=end, base=m.group(3), generic=bool(m.group(2)), tests=tests)
scan()
def is_test(n):
    seen = 0
    while n in classes and seen < 20:
        n = classes[n]['base']; seen += 1
    return n in ('TestCase', 'XCTestCase', 'RLMTestCaseBase')
bases = {c['base'] for n, c in classes.items() if is_test(n)}
abstract = {n for n in classes if (n in bases or classes[n]['generic']) and is_test(n) and n not in ('TestCase', 'RLMTestCaseBase')}
# rename tests in abstract classes, and overrides of them in subclasses
def chain(n):
    out = []
    while n in classes:
        out.append(n); n = classes[n]['base']
    return out
for n, c in classes.items():
    ch = chain(n)
    if not any(a in abstract for a in ch): continue
    lines = srcs[c['file']]
    for k in range(c['start'], c['end']):
        lines[k] = re.sub(r'^(    (?:@\w+ )*(?:override )?func )test(\w*\()', r'\1check_test\2', lines[k])
scan()
inserts = {}
for n, c in classes.items():
    if n in abstract: continue
    ch = chain(n)
    if len(ch) < 2 or not any(a in abstract for a in ch[1:]): continue
    wanted = {}
    for a in reversed(ch):
        for t, sig in classes[a]['tests'].items():
            if t.startswith('check_'): wanted[t[6:]] = sig
    own = {t for t in c['tests'] if not t.startswith('check_')}
    body = []
    for t, (attr, asy, thr) in sorted(wanted.items()):
        if t in own: continue
        if asy:
            call = ('try ' if thr else '') + f'await check_{t}()'
        else:
            call = ('try ' if thr else '') + f'MainActor.assumeIsolated {{ ' + ('try ' if thr else '') + f'self.check_{t}() }}'
        body.append(f'    func {t}() {asy}{thr}{{ {call} }}')
    inserts.setdefault(c['file'], []).append((c['end'], body))
for f, ins in inserts.items():
    lines = srcs[f]
    for end, body in sorted(ins, reverse=True):
        lines[end:end] = body
for f, lines in srcs.items():
    open(f, 'w').write('\n'.join(lines))
print('abstract:', sorted(abstract))

import os, sys, re, collections
from swiftsource import block_end
# autostrip.py BUILDLOG: removes each member func (indented 4 spaces) that holds a compile error;
# prints errors outside any func, and the removed names to $REALM_SUITE_DIR/removed.log.
log = open(sys.argv[1]).read()
errs = collections.defaultdict(set)
for m in re.finditer(r'^(' + os.environ['REALM_SUITE_DIR'] + '/Tests/[^:]+):(\d+):\d+: error: (.*)$', log, re.M):
    errs[m.group(1)].add((int(m.group(2)), m.group(3)))
removedlog = open(os.environ['REALM_SUITE_DIR'] + '/removed.log', 'a')
for path, lines in errs.items():
    src = open(path).read().split('\n')
    # find member funcs: start line index, end line index (brace matched)
    funcs = []
    i = 0
    while i < len(src):
        if re.match(r'^    (?:@\w+(?:\([^)]*\))? )*(?:(?:override|private|fileprivate|internal|public|static|class|final|nonisolated|@MainActor) )*func \w+', src[i]) or re.match(r'^(?:@\w+ )*(?:private |fileprivate |public |internal )?func \w+', src[i]):
            j = block_end(src, i)
            # include preceding attribute lines
            k = i
            while k > 0 and re.match(r'^\s*@\w+', src[k-1]) : k -= 1
            funcs.append((k, j, re.search(r'func (\w+)', src[i]).group(1)))
            i = j + 1
        else:
            i += 1
    kill = set()
    for (ln, msg) in lines:
        hit = [f for f in funcs if f[0] <= ln - 1 <= f[1]]
        if hit: kill.add(hit[0])
        else:
            # the enclosing top-level declaration, unless it is a test class
            k = ln - 1
            while k >= 0 and not re.match(r'^(?:final |private |fileprivate |public )*(class|struct|extension|enum|protocol|func) ', src[k]): k -= 1
            if k >= 0 and not re.match(r'^(?:final )?class \w*Tests?\b', src[k]):
                j = block_end(src, k)
                if j >= ln - 1:
                    kill.add((k, j, 'DECL:' + src[k][:60])); continue
            print(f'OUTSIDE {path}:{ln}: {msg}')
    for (a, b, name) in sorted(kill, reverse=True):
        del src[a:b+1]
        removedlog.write(f'{path.split("/")[-1]} {name}\n')
    print(f'{path.split("/")[-1]}: removed {len(kill)}')
    open(path, 'w').write('\n'.join(src))

import sys, re
# strip.py FILE NAME... : removes the Swift declarations (func/var) with these names, braces matched.
path, names = sys.argv[1], sys.argv[2:]
s = open(path).read()
for name in names:
    m = re.search(r'\n[ \t]*(override )?(class )?(func|var) ' + re.escape(name) + r'\b', s)
    if not m:
        print("not found", name); continue
    i = s.index('{', m.end())
    depth = 0; j = i
    while True:
        if s[j] == '{': depth += 1
        elif s[j] == '}':
            depth -= 1
            if depth == 0: break
        j += 1
    s = s[:m.start()] + s[j+1:]
open(path, 'w').write(s)

import sys, re
from swiftsource import block_end
# dropdecl.py FILE REGEX...: removes top-level declarations (class/extension/struct/func) whose first line matches.
path, pats = sys.argv[1], sys.argv[2:]
src = open(path).read().split('\n')
out = []; i = 0
while i < len(src):
    if any(re.match(p, src[i]) for p in pats):
        j = block_end(src, i)
        while out and re.match(r'^\s*@', out[-1]): out.pop()
        i = j + 1; continue
    out.append(src[i]); i += 1
open(path, 'w').write('\n'.join(out))

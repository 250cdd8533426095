import sys, re
# dropdecl.py FILE REGEX...: removes top-level declarations (class/extension/struct/func) whose first line matches.
path, pats = sys.argv[1], sys.argv[2:]
src = open(path).read().split('\n')
out = []; i = 0
while i < len(src):
    if any(re.match(p, src[i]) for p in pats):
        depth = 0; started = False; j = i
        while j < len(src):
            for ch in src[j]:
                if ch == '{': depth += 1; started = True
                elif ch == '}': depth -= 1
            if started and depth == 0: break
            j += 1
        while out and re.match(r'^\s*@', out[-1]): out.pop()
        i = j + 1; continue
    out.append(src[i]); i += 1
open(path, 'w').write('\n'.join(out))

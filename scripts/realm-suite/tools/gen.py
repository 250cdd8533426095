import sys, re
# gen.py FILE: Realm builds suites of generic test classes in `defaultTestSuite`; Linux XCTest
# cannot run generic classes, so each instantiation becomes a concrete subclass.
path = sys.argv[1]
s = open(path).read()
factories = re.findall(r'addTests\(suite, (\w+)\.self\)', s)
insts = []
for m in re.finditer(r'^\s*(\w+)<(.+?)>\.defaultTestSuite\.tests\.forEach', s, re.M):
    base, args = m.group(1), m.group(2)
    if re.search(r'\bOF\b', args):
        for f in factories: insts.append((base, re.sub(r'\bOF\b', f, args)))
    else:
        insts.append((base, args))
seen = set(); out = []
for base, args in insts:
    name = 'Gen_' + base + '_' + re.sub(r'[^A-Za-z0-9]+', '_', args.replace('?', 'Opt')).strip('_')
    if name in seen: continue
    seen.add(name)
    out.append(f'final class {name}: {base}<{args}> {{\n}}')
open(path, 'w').write(s + '\n' + '\n'.join(out) + '\n')
print(path.split('/')[-1], 'generated', len(out))

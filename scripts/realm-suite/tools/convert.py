import sys, re
from swiftsource import block_end
# convert.py SRC DEST: Realm's test file with mechanical edits for Strata on Linux:
# legacy `@objc dynamic` / `let x = List<T>()` declarations become @Persisted, Objective-C imports go.
src, dest = sys.argv[1], sys.argv[2]
s = open(src).read()
OPT = 'anyCol|firstOptionalNumber|id|int16Col|int32Col|int64Col|int8Col|intCol|optBoolCol|optDoubleCol|optEnumCol|optFloatCol|optInt16Col|optInt32Col|optInt64Col|optInt8Col|optIntCol|optionalBoolCol|optionalDoubleCol|optionalFloatCol|optionalInt16Col|optionalInt32Col|optionalInt64Col|optionalInt8Col|optionalIntCol|otherIntCol|secondOptionalNumber'
out = []
for line in s.split('\n'):
    if re.match(r'\s*import (class Realm\.Private\.\w+|Realm|Realm\.Private|RealmSwiftTestSupport|RealmTestSupport|Combine|SwiftUI|os\.lock|os|Realm\.Dynamic|RealmSwift\.Private)\s*$', line):
        continue
    line = re.sub(r'@testable import RealmSwift', 'import RealmSwift', line)
    if re.match(r'\s*@objc\(\w+\)\s*$', line):
        continue
    if re.search(r'@objc dynamic (lazy var|var .*(\{.*|AnyObject\?)\s*$)', line):
        line = line.replace('@objc dynamic ', '')
    line = re.sub(r'@objc(\([A-Za-z_]+\))? dynamic ', '@Persisted ', line)
    line = re.sub(r'(@Persisted var \w+: )NSDate\?', r'\1Date?', line)
    line = re.sub(r'(@Persisted var \w+: )NSData\?', r'\1Data?', line)
    line = re.sub(r'typealias PrimaryKey = RealmOptional<(\w+)>', r'typealias PrimaryKey = \1?', line)
    line = re.sub(r'@Persisted (var \w+): NSString[?!]', r'@Persisted \1: String?', line)
    line = re.sub(r'(@Persisted var \w+: [\w<>\[\]\.]+)!', r'\1?', line)
    m = re.match(r'(\s*)(?:public )?let (\w+) = (List|MutableSet|Map)<(.+)>\(\)(.*)$', line)
    if m:
        line = f'{m.group(1)}@Persisted var {m.group(2)}: {m.group(3)}<{m.group(4)}>{m.group(5)}'
    m = re.match(r'(\s*)(?:public )?(?:let|var) (\w+) = (?:RealmOptional|RealmProperty)<(.+)>\(\)(.*)$', line)
    if m:
        t = m.group(3)
        if not t.endswith('?') and t != 'AnyRealmValue': t += '?'
        line = f'{m.group(1)}@Persisted var {m.group(2)}: {t}{m.group(4)}'
    m = re.match(r'(\s*)(?:public )?(?:let|var) (\w+) = (?:RealmOptional|RealmProperty)<(.+)>\((.+)\)(.*)$', line)
    if m:
        t = m.group(3)
        if not t.endswith('?') and t != 'AnyRealmValue': t += '?'
        line = f'{m.group(1)}@Persisted var {m.group(2)}: {t} = {m.group(4)}{m.group(5)}'
    m = re.match(r'(\s*)(?:public )?let (\w+) = LinkingObjects\(fromType: (\w+)\.self, property: ("\w+")\)(.*)$', line)
    if m:
        line = f'{m.group(1)}@Persisted(originProperty: {m.group(4)}) var {m.group(2)}: LinkingObjects<{m.group(3)}>{m.group(5)}'
    m = re.match(r'(\s{8,})@Persisted var (\w+): ((?:List|MutableSet|Map)<.+>)\s*$', line)
    if m:
        line = f'{m.group(1)}let {m.group(2)} = {m.group(3)}()'
    line = re.sub(r'@objc enum (\w+): Int, RealmEnum', r'enum \1: Int, PersistableEnum', line)
    line = re.sub(r'\.(' + OPT + r')\.value\b', r'.\1', line)
    out.append(line)
s = '\n'.join(out)
s = s.replace('NSPredicate(value: true)', '"TRUEPREDICATE"').replace('NSPredicate(value: false)', '"FALSEPREDICATE"')
# filter(NSPredicate(format: "...", args)) -> filter("...", args): the string form takes the same arguments.
while True:
    i = s.find('NSPredicate(format: ')
    if i < 0: break
    j = i + len('NSPredicate(format: '); depth = 1; k = j; instr = False
    while k < len(s) and depth:
        c = s[k]
        if c == '"' and s[k-1] != '\\': instr = not instr
        elif not instr and c == '(': depth += 1
        elif not instr and c == ')': depth -= 1
        k += 1
    s = s[:i] + s[j:k-1] + s[k:]
# properties a class names in ignoredProperties() stay plain Swift properties, in that class only
lines = s.split('\n')
for i, line in enumerate(lines):
    if not re.match(r'\s*(?:final |public |open )*class \w+', line): continue
    end = block_end(lines, i)
    body = '\n'.join(lines[i:end + 1])
    for names in re.findall(r'func ignoredProperties\(\) -> \[String\] \{\s*return \[([^\]]*)\]', body):
        for n in re.findall(r'"(\w+)"', names):
            for k in range(i, end + 1):
                lines[k] = re.sub(r'@Persisted (var ' + n + r'\b)', r'\1', lines[k])
s = '\n'.join(lines)
open(dest, 'w').write(s)

import os, re, json, collections, sys
# analyze.py: per failing test, its first failure message, grouped by cause.
detail = open(os.environ['REALM_SUITE_DIR'] + '/run-detail.log', errors='replace').read()
result = json.load(open(os.environ['REALM_SUITE_DIR'] + '/result.json'))
msgs = collections.defaultdict(list)
for m in re.finditer(r"error: (\w+)\.(\w+) : (?:failed|XCTAssert\w+ failed)[^\n]*?- ?([^\n]*)", detail):
    msgs[f"RealmSwiftTests.{m.group(1)}/{m.group(2)}"].append(m.group(3))
def cause(t, status):
    if status in ('crashed', 'timeout'): return status
    ms = msgs.get(t, [])
    if not ms: return 'failed (no message)'
    kinds = set()
    for x in ms:
        if 'but the block returned' in x:
            if re.search(r'Primary key|primary key', x): kinds.add('kept: primary-key change refused at commit')
            elif re.search(r'out of bounds|negative value|Index \d', x): kinds.add('kept: list index refused at commit')
            elif 'embedded' in x: kinds.add('kept: managed embedded object refused at commit')
            else: kinds.add('no trap where Realm raises (other)')
        elif x.startswith('expected a trap'): kinds.add('trap with another message')
        else: kinds.add('assertion')
    return ' + '.join(sorted(kinds))
c = collections.Counter(); examples = collections.defaultdict(list)
for t, st in result.items():
    if st == 'passed': continue
    k = cause(t, st); c[k] += 1
    if len(examples[k]) < 6: examples[k].append(t.replace('RealmSwiftTests.', ''))
print('total', len(result), 'passed', sum(1 for v in result.values() if v == 'passed'))
for k, n in c.most_common():
    print(n, k, examples[k][:4])

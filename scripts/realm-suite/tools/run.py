import subprocess, re, sys, collections, json, os
# run.py [CLASS...]: runs the suite class by class in separate processes; a test that kills its
# process is recorded as "crashed" and the rest of its class is run test by test.
B = os.environ['REALM_SUITE_DIR'] + '/.build/x86_64-unknown-linux-gnu/debug/RealmRunPackageTests.xctest'
listed = subprocess.run([B, '--list-tests'], capture_output=True, text=True).stdout.split('\n')
tests = [l.strip() for l in listed if re.match(r'^\s*RealmSwiftTests\.\w+/\w+', l.strip())]
byclass = collections.OrderedDict()
for t in tests:
    c = t.split('/')[0]; byclass.setdefault(c, []).append(t)
only = sys.argv[1:]
result = {}
def run(filt, timeout=300):
    try:
        p = subprocess.run([B, filt], capture_output=True, text=True, timeout=timeout, env=dict(os.environ, SWIFT_BACKTRACE='enable=no'))
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b'').decode(errors='replace') + (e.stderr or b'').decode(errors='replace'), -999
    done = {}
    for m in re.finditer(r"Test Case '(\S+)\.(\w+)' (passed|failed)", out):
        done[f'RealmSwiftTests.{m.group(1).split(".")[-1]}/{m.group(2)}'] = m.group(3)
    started = re.findall(r"Test Case '(\S+)\.(\w+)' started", out)
    return done, rc, out, started
log = open(os.environ['REALM_SUITE_DIR'] + '/run-detail.log', 'w')
for c, ts in byclass.items():
    if only and c.split('.')[-1] not in only: continue
    done, rc, out, started = run(c)
    log.write(out)
    result.update(done)
    if rc not in (0, 1) or len(done) < len(ts):
        for t in ts:
            if t in result: continue
            d, rc2, out2, _ = run(t, timeout=120)
            log.write(out2)
            if t in d: result[t] = d[t]
            else: result[t] = 'crashed' if rc2 != -999 else 'timeout'; log.write(f'\n### {t}: {result[t]} (rc {rc2})\n{out2[-3000:]}\n')
    cnt = collections.Counter(result[t] for t in ts if t in result)
    print(c, dict(cnt), flush=True)
json.dump(result, open(os.environ['REALM_SUITE_DIR'] + '/result.json' if not only else os.environ['REALM_SUITE_DIR'] + '/result-part.json', 'w'), indent=0)
cnt = collections.Counter(result.values())
print('TOTAL', len(result), dict(cnt))

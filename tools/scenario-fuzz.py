#!/usr/bin/env python3
"""Random scenarios through every command that takes them: what check accepts, run accepts.

    tools/scenario-fuzz.py [-b CORUN] [-n COUNT] [-s FIRST_SEED] [-k DIR] [--threads | --accel]

Makes COUNT scenarios (each from its own seed, so a finding is made again by its seed alone)
out of the ranges `corun help scenario` and `corun help gpu` print: a preset, up to eight
shipped kernels, overrides of the preset at the ends of their ranges and between, a predictor,
an allocator and their parameters, epochs of 1,000 to 20,000 cycles. Each goes to `corun
check`; each one check accepts is run and recorded, then read back by show (which must print
the epochs run printed), export and plot, branched after its first epoch (which re-simulates
it and compares), and branched at 0 for one epoch, which must give the run's first epoch
again. A third of the runs add a kernel or remove one part way (--add, --remove), which the
branches re-apply. With --threads every other run takes two threads, half of them under the order-free
rules (whose branches must match too), and the scenario is run again on 1, 2 and 4 threads
under the same rules, which must print the same epochs (THREADS-DIFF otherwise). With --accel the scenarios are accelerator ones
instead (applications from data/apps, latency-sensitive and batch, arrivals, rates and
instance counts at their ends and between), each run with a random predictor and read by
show, export and plot (an accelerator run has no epochs to branch from).

Prints one line per finding (CHECK-CRASH, RUN-FAIL, SHOW-FAIL, SHOW-DIFF: show's epochs are
not run's, EXPORT-FAIL, PLOT-FAIL, BRANCH-FAIL, BRANCH0-FAIL, BRANCH0-DIFF, BAD-UTF8: output
that is not UTF-8) with the seed,
and keeps each finding's scenario in DIR (default: a new directory under /tmp, named at the
end). Exit status 1 when there were findings. The scenarios' private-mode references are
cached in DIR/xdg, so a second pass over the same seeds is faster.

Found on 2026-12-07: a run whose scenario named ASM could not be branched ("epoch 1 simulates
differently now": ASM was chosen twice, from the scenario and from the run's log); an
accelerator run whose queries starved (latency inf) refused by show, export and plot as
damaged; eight kernels' moves cut in the middle of a "→" (output not UTF-8).
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

PREDICTORS = ['none', 'oracle', 'hsm', 'dase', 'asm', 'themis']
ALLOCATORS = ['static', 'even', 'proportional', 'static-smqos', 'fair', 'qos', 'themis-engine',
              'smqos', 'bw-app']
ACCEL_PREDICTORS = ['none', 'prophet', 'sequential', 'bubble', 'prophet-even']
PARAMS = ['fairness_threshold', 'qos_upper', 'hp_share', 'smqos_policy', 'smqos_interval',
          'smqos_threshold', 'smqos_batch_min', 'unassigned_sms', 'static_smqos_rounding']


def ranges(corun, topic):
    """{setting: spec} from `corun help TOPIC`: ('integer'|'number', lo, hi), ('choice',
    names) or ('bool',)."""
    text = subprocess.run([corun, 'help', topic], capture_output=True, text=True,
                          check=True).stdout
    cur, out = None, {}
    for line in text.split('\n'):
        m = re.match(r'^  ([a-z_][a-z_.0-9]*) ', line)
        if m and not line.rstrip().endswith(':'):
            cur = m.group(1)
        if not cur:
            continue
        m = re.search(r'an? (integer|number) from (\S+) to (\S+?)[,;]', line)
        if m:
            out[cur] = (m.group(1), float(m.group(2)), float(m.group(3)))
        m = re.search(r'one of ([a-z_, -]+); default', line)
        if m:
            out[cur] = ('choice', [x.strip() for x in m.group(1).split(',')])
        if re.search(r'true or false|a boolean', line):
            out[cur] = ('bool',)
    return out


def value(spec, r):
    """A value of spec: its ends often (where mistakes hide), else within it."""
    if spec[0] == 'choice':
        return '"%s"' % r.choice(spec[1])
    if spec[0] == 'bool':
        return r.choice(['true', 'false'])
    lo, hi, c = spec[1], spec[2], r.random()
    if spec[0] == 'integer':
        v = int(lo) if c < 0.3 else int(hi) if c < 0.45 else \
            int(r.uniform(lo, min(hi, lo + 64))) if c < 0.8 else int(r.uniform(lo, hi))
        return '%dL' % v if abs(v) >= 2**31 else str(v)
    return repr(float(lo if c < 0.3 else hi if c < 0.45 else r.uniform(lo, hi)))


def group(tree):
    return ' '.join('%s = { %s };' % (k, group(v)) if isinstance(v, dict) else '%s = %s;' % (k, v)
                    for k, v in tree.items())


def scenario(seed, gpu_ranges, sc_ranges, gpus, kernels):
    r = random.Random(seed)
    lines = ['name = "fuzz %d";' % seed, 'gpu = "%s";' % r.choice(gpus),
             'epochs = %d;' % r.choice([1, 2, 3, 5]),
             'epoch_cycles = %d;' % r.choice([1000, 1000, 3000, 20000])]
    if r.random() < 0.6:
        tree = {}
        for _ in range(r.randint(1, 4)):
            key = r.choice(sorted(gpu_ranges))
            node, parts = tree, key.split('.')
            for p in parts[:-1]:
                node = node.setdefault(p, {})
                if not isinstance(node, dict):
                    break
            else:
                if not isinstance(node.get(parts[-1]), dict):
                    node[parts[-1]] = value(gpu_ranges[key], r)
        lines.append('gpu_overrides = { %s };' % group(tree))
    if r.random() < 0.5:
        lines.append('predictor = "%s";' % r.choice(PREDICTORS))
    if r.random() < 0.6:
        lines.append('allocator = "%s";' % r.choice(ALLOCATORS))
    for k in PARAMS:
        if k in sc_ranges and r.random() < 0.15:
            lines.append('%s = %s;' % (k, value(sc_ranges[k], r)))
    n = r.choice([1, 2, 2, 2, 3, 4, 8])
    weights = [r.random() + 0.01 for _ in range(n)]
    weights = [w / sum(weights) for w in weights]
    weights[-1] = 1 - sum(weights[:-1])
    with_weights, with_sms = r.random() < 0.2, r.random() < 0.3
    entries = []
    for i in range(n):
        e = ['name = "%s";' % r.choice(kernels)]
        if r.random() < 0.3:
            e.append('priority = "%s";' % r.choice(['low', 'high']))
        if r.random() < 0.2:
            e.append('qos_target = %s;' % value(('number', 0.01, 1), r))
        if with_weights:
            e.append('weight = %r;' % weights[i])
        if with_sms:
            e.append('sms = %d;' % r.randint(1, 3))
        entries.append('{ %s }' % ' '.join(e))
    lines.append('kernels = ( %s );' % ', '.join(entries))
    return '\n'.join(lines) + '\n'


def accel_scenario(seed, gpus, apps):
    """An accelerator scenario: one latency-sensitive application and up to three batch ones
    (or none of either kind, now and then), with their settings often at a range's end."""
    r = random.Random(seed)
    lines = ['mode = "accelerator";', 'name = "fuzz %d";' % seed,
             'gpu = "%s";' % ('k40' if r.random() < 0.8 else r.choice(gpus)),
             'seed = %d;' % r.randint(0, 9)]
    if r.random() < 0.3:
        lines.append('warmup_ms = %r;' % r.choice([0.0, 0.01, 0.5, 2.0]))
    entries = []
    roles = ['ls'] * (r.random() < 0.9) + ['batch'] * r.choice([0, 1, 1, 2, 3])
    for role in roles:
        e = ['name = "%s";' % r.choice(apps), 'role = "%s";' % role]
        if role == 'ls':
            arrival = r.choice(['closed', 'poisson'])
            e.append('arrival = "%s";' % arrival)
            if arrival == 'poisson':
                e.append('rate_qps = %r;' % r.choice([50.0, 500.0, 4000.0, 1e6]))
            e.append('queries = %d;' % r.choice([1, 2, 5, 10]))
            e.append('qos_target = %r;' % r.choice([1.0, 1.5, 3.0, 100.0]))
        else:
            if r.random() < 0.5:
                e.append('instances = %d;' % r.choice([1, 2, 3, 15]))
            if r.random() < 0.3:
                e.append('stagger_ms = %r;' % r.choice([0.0, 0.1, 1.0]))
        entries.append('{ %s }' % ' '.join(e))
    lines.append('applications = ( %s );' % ', '.join(entries))
    return '\n'.join(lines) + '\n'


def mix_changes(seed, text, kernels):
    """Now and then a kernel added and one removed during the run (run --add/--remove), which
    a branch must re-apply: at most one of each, at epochs the run has."""
    r = random.Random(seed * 7 + 1)
    epochs = int(re.search(r'epochs = (\d+);', text).group(1))
    nk = len(re.findall(r'\{ name = ', text))
    out = []
    if r.random() < 0.3 and nk < 8:
        out += ['--add', '%d:%s' % (r.randint(1, epochs), r.choice(kernels))]
    if r.random() < 0.3 and nk >= 2:
        out += ['--remove', '%d:%d' % (r.randint(1, epochs), r.randrange(nk))]
    return out


def epoch_rows(text):
    """The epoch rows of run's or show's table ("    1  stream  ...")."""
    return [l for l in text.split('\n') if re.match(r'^\s+\d+\s', l)]


def branches(run, seed, base, epochs, rows):
    """A branch after epoch 1 (which re-simulates it and compares) and one at 0 for one epoch,
    which must give the run's epoch 1 again (rows: the run's epoch rows)."""
    found = []
    if epochs >= 2:
        rc, out = run('branch', base + '.h5', '1', '--out', base + '.b1.h5')
        if rc != 0:
            found.append('BRANCH-FAIL %d rc=%s: %s' % (seed, rc, last_lines(out)))
    rc, out = run('branch', base + '.h5', '0', '--epochs', '1', '--out', base + '.b0.h5')
    if rc != 0:
        found.append('BRANCH0-FAIL %d rc=%s: %s' % (seed, rc, last_lines(out)))
    elif [l for l in epoch_rows(run('show', base + '.b0.h5')[1]) if l.split()[0] == '1'] != \
            [l for l in rows if l.split()[0] == '1']:
        found.append('BRANCH0-DIFF %d: epoch 1 of a branch at 0 differs' % seed)
    return found


def last_lines(text, n=2):
    return ' '.join(text.strip().split('\n')[-n:])[:300]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('-b', '--corun', default=os.path.join(here, '..', 'build', 'corun'))
    ap.add_argument('-n', '--count', type=int, default=100)
    ap.add_argument('-s', '--seed', type=int, default=1, help='the first scenario\'s seed')
    ap.add_argument('-k', '--keep', help='directory for findings and the cache')
    ap.add_argument('--threads', action='store_true',
                    help='every other run on two threads, half of those order-free')
    ap.add_argument('--accel', action='store_true',
                    help='accelerator scenarios (run with a random predictor; not branched)')
    a = ap.parse_args()
    datadir = os.path.join(here, '..')
    env = dict(os.environ, CORUN_DATADIR=datadir)
    top = a.keep or tempfile.mkdtemp(prefix='corun-scenario-fuzz-')
    os.makedirs(top, exist_ok=True)
    env['XDG_DATA_HOME'] = os.path.join(top, 'xdg')
    gpu_ranges, sc_ranges = ranges(a.corun, 'gpu'), ranges(a.corun, 'scenario')
    # k40 is the accelerator scenarios' preset (Prophet's); spatial mixes use the others.
    gpus = sorted(f[:-4] for f in os.listdir(os.path.join(datadir, 'data', 'gpus'))
                  if f.endswith('.cfg') and f != 'k40.cfg')
    kernels = sorted(f[:-4] for f in os.listdir(os.path.join(datadir, 'data', 'kernels'))
                     if f.endswith('.cfg'))
    apps = sorted(f[:-4] for f in os.listdir(os.path.join(datadir, 'data', 'apps'))
                  if f.endswith('.cfg'))
    findings = accepted = 0

    bad_text = []  # the commands whose output was not UTF-8

    def run(*args, timeout=300):
        try:
            p = subprocess.run([a.corun, *args], capture_output=True, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            return 'timeout', ''
        out = p.stdout + p.stderr
        try:
            return p.returncode, out.decode('utf-8')
        except UnicodeDecodeError as e:
            bad_text.append('%s: %r' % (args[0], out[max(0, e.start - 40):e.start + 4]))
            return p.returncode, out.decode('utf-8', 'replace')

    for seed in range(a.seed, a.seed + a.count):
        cfg = os.path.join(top, 'fuzz%d.cfg' % seed)
        with open(cfg, 'w') as f:
            f.write(accel_scenario(seed, gpus, apps) if a.accel else
                    scenario(seed, gpu_ranges, sc_ranges, gpus, kernels))
        base = cfg[:-4]
        found = []
        rc, out = run('check', cfg, timeout=60)
        if rc not in (0, 1, 2):
            found.append('CHECK-CRASH %d rc=%s: %s' % (seed, rc, last_lines(out)))
        elif rc == 0:
            accepted += 1
            extra = []
            if a.accel:
                # The predictors refuse a warm-up or a stagger (they model a common start).
                warm = re.search(r'(warmup|stagger)_ms = (?!0\.0;)', open(cfg).read())
                extra = ['--predictor', 'none' if warm else
                         random.Random(seed).choice(ACCEL_PREDICTORS)]
            elif a.threads and seed % 2:
                extra = ['--threads', '2'] + (['--set', 'gpu.order_free=true'] if seed % 4 == 3
                                              else [])
            mix = [] if a.accel else mix_changes(seed, open(cfg).read(), kernels)
            rc, out = run('run', cfg, *extra, *mix, '--out', base + '.h5')
            if mix and rc == 2 and re.search(r'^corun: --(add|remove) ', out, re.M):
                # A change the mix cannot take (a kernel more than the SMs): refused, rightly.
                mix = []
                rc, out = run('run', cfg, *extra, '--out', base + '.h5')
            extra += mix
            if rc != 0:
                found.append('RUN-FAIL %d %s rc=%s: %s' % (seed, ' '.join(extra), rc,
                                                             last_lines(out)))
            else:
                epochs = out.count('system:')
                rows = epoch_rows(out)
                if a.threads and not a.accel:
                    # Any thread count gives the same epochs (under either rules).
                    rules = [x for x in extra if x.startswith('gpu.')]
                    rules = ['--set', rules[0]] if rules else []
                    for t in ('1', '2', '4'):
                        if ['--threads', t] == extra[:2]:
                            continue
                        if epoch_rows(run('run', cfg, '--threads', t, *rules, *mix)[1]) != rows:
                            found.append('THREADS-DIFF %d: %s threads give other epochs than %s%s'
                                         % (seed, t, ' '.join(extra) or '1 thread',
                                            ' (order-free)' if rules else ''))
                rc, out = run('show', base + '.h5', timeout=60)
                if rc != 0:
                    found.append('SHOW-FAIL %d rc=%s: %s' % (seed, rc, last_lines(out)))
                elif not a.accel and epoch_rows(out) != rows:
                    found.append('SHOW-DIFF %d: show prints other epochs than run did' % seed)
                for what, args in [('EXPORT', ['export', base + '.h5', '--csv', base + '.csv']),
                                   ('PLOT', ['plot', base + '.h5', '--out', base + '.svg'])]:
                    rc, out = run(*args, timeout=60)
                    if rc != 0:
                        found.append('%s-FAIL %d rc=%s: %s' % (what, seed, rc, last_lines(out)))
                if not a.accel:  # an accelerator run has no epochs to branch from
                    found += branches(run, seed, base, epochs, rows)
        found += ['BAD-UTF8 %d: %s' % (seed, b) for b in sorted(set(bad_text))]
        bad_text.clear()
        for suffix in ('.h5', '.b1.h5', '.b0.h5', '.svg'):
            if os.path.exists(base + suffix):
                os.unlink(base + suffix)
        shutil.rmtree(base + '.csv', ignore_errors=True)
        if found:
            findings += 1
            print('\n'.join(found), flush=True)
        else:
            os.unlink(cfg)
    print('%d scenarios, %d accepted by check, %d with findings (kept in %s)'
          % (a.count, accepted, findings, top))
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main())

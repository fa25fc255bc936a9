#!/usr/bin/env python3
"""Mutation check of a module's tests: would they notice if the module broke?

    tools/mutate.py [-b BUILD] [-n N] [-s SEED] SOURCE TEST[,TEST...]

Makes up to N mutants of SOURCE (a C file of the tree), one at a time: one operator on one line
turned into another (< and <=, > and >=, == and !=, && and ||, + and -, * and /, 0 and 1, 1
and 2, a decimal constant times 1.5). For each it rebuilds the TEST programs in BUILD (make
-C BUILD tests/unit/test_x ...; the corun binary too when a TEST is a script such as
tests/e2e/bad_scenarios.sh, which the parsers' mistakes are tried by), runs them (120 s at
most each, with the environment `make check` gives them), and prints every mutant no test
failed on. The tests must pass on the source as it is, or every mutant would look caught.
The source file is restored after each mutant, and on Ctrl-C or SIGTERM; the test programs
are rebuilt from it at the end. After each test any process still running the build's corun
is killed (a looping mutant in a workbench pane outlives its script).

With --isolate each test runs in a PID namespace of its own (unshare(1); root, or a kernel
that lets users make namespaces): a mutant of code that signals processes (a worker pool's
kill(pid, ...) with pid turned into -1 signals every process it may) then reaches only the
test's own processes. Use it for src/util/forkpool.c and the code that drives it.

A survivor is either a case the tests miss or an equivalent mutant (a boundary no input
reaches, a message, two expressions that agree). Read each: the first kind deserves a test.
Needs a configured build directory (./setup.sh build makes build/). Changes files in the
source tree while it runs: do not build or edit SOURCE beside it.
"""
import argparse
import os
import random
import re
import signal
import subprocess
import sys

OPS = [(r'(?<![<>=!])<(?![<=])', '<='), (r'<=', '<'), (r'(?<![<>=!-])>(?![>=])', '>='),
       (r'>=', '>'), (r'==', '!='), (r'!=', '=='), (r'&&', '||'), (r'\|\|', '&&'),
       (r' \+ ', ' - '), (r' - ', ' + '), (r' \* ', ' / '), (r'\b1\b', '2'), (r'\b0\b', '1'),
       (r'\b\d+\.\d+\b', None)]


def candidates(lines):
    """(line, operator, start, end) of every place a mutation applies, outside comments,
    preprocessor lines, strings, asserts and messages."""
    out, in_comment = [], False
    for i, line in enumerate(lines):
        s = line.strip()
        if in_comment:
            in_comment = '*/' not in s
            continue
        if s.startswith('/*') and '*/' not in s:
            in_comment = True
            continue
        if not s or s.startswith(('//', '*', '/*', '#')) or re.search(r'assert|printf|_add\(', s):
            continue
        code = re.sub(r'"(\\.|[^"\\])*"', lambda m: ' ' * len(m.group(0)), line.split('/*')[0])
        for op, (pat, _) in enumerate(OPS):
            out += [(i, op, m.start(), m.end()) for m in re.finditer(pat, code)]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('source', help='a C file of the tree, e.g. src/alloc/qos.c')
    ap.add_argument('tests', help='unit test programs or test scripts, e.g. '
                    'tests/unit/test_alloc,tests/e2e/bad_scenarios.sh')
    ap.add_argument('-b', '--build', default='build', help='the build directory (build)')
    ap.add_argument('-n', type=int, default=30, help='mutants at most (30)')
    ap.add_argument('-s', '--seed', type=int, default=1, help='which mutants (1)')
    ap.add_argument('--isolate', action='store_true',
                    help='run each test in a PID namespace of its own (unshare)')
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    src = os.path.join(root, a.source)
    build = os.path.join(root, a.build)
    tests = a.tests.split(',')
    scripts = [t for t in tests if t.endswith('.sh')]
    for t in scripts:
        if not os.path.isfile(os.path.join(root, t)):
            sys.exit(f'mutate.py: {t}: no such test script in {root}')
    if not os.path.isfile(src):
        sys.exit(f'mutate.py: {a.source}: no such file in {root}')
    if not os.path.isfile(os.path.join(build, 'Makefile')):
        sys.exit(f'mutate.py: {a.build}: not a configured build directory (./setup.sh build)')
    env = dict(os.environ, CORUN_DATADIR=root, top_srcdir=root, top_builddir=build,
               CORUN=os.path.join(build, 'corun'),
               XDG_DATA_HOME=os.path.join(build, 'tests', 'xdg'))
    # The rest of what Makefile.am's AM_TESTS_ENVIRONMENT gives a script, read from the build's
    # own variables (sim_id_inputs lists the simulator's files, for the build-id checks).
    for var, name in (('sim_id_inputs', 'SIM_ID_INPUTS'), ('TMUX', 'TMUX_BIN'),
                      ('CLANG_FORMAT', 'CLANG_FORMAT'),
                      ('CORUN_CONFIGURE_ARGS', 'CORUN_CONFIGURE_ARGS')):
        got = subprocess.run(['make', '-s', '-C', build, '--eval',
                              'corun-print-%: ; @echo $($*)', 'corun-print-' + var],
                             capture_output=True, text=True)
        if got.returncode == 0:
            env[name] = got.stdout.strip()
    make = ['make', '-s', '-C', build] + [t for t in tests if t not in scripts]
    if scripts:
        make.append('corun')

    corun = os.path.realpath(os.path.join(build, 'corun'))
    isolate = []
    if a.isolate:
        isolate = ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc']
        if os.geteuid() != 0:
            isolate[1:1] = ['--user', '--map-root-user']
        try:
            ok = subprocess.run(isolate + ['true'], capture_output=True).returncode == 0
        except OSError:
            ok = False
        if not ok:
            sys.exit('mutate.py: --isolate: cannot make a PID namespace here '
                     '(`' + ' '.join(isolate) + ' true` failed; needs util-linux unshare, and '
                     'root or user namespaces)')

    def reap():
        """Kills what is left of this build's corun: a mutant that loops inside a tmux pane
        outlives the script that killed the pane's server, and would take a core from every
        test after it."""
        for pid in filter(str.isdigit, os.listdir('/proc')):
            try:
                if os.readlink(f'/proc/{pid}/exe').removesuffix(' (deleted)') == corun:
                    os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass

    def run_test(t):
        """The test's exit status; a test that runs out of time (a mutant may loop) fails."""
        cmd = ['bash', os.path.join(root, t)] if t in scripts else [os.path.join(build, t)]
        cmd = isolate + cmd
        try:
            return subprocess.run(cmd, cwd=build, env=env, capture_output=True,
                                  timeout=120).returncode
        except subprocess.TimeoutExpired:
            return -1
        finally:
            reap()

    text = open(src).read()
    lines = text.split('\n')

    def restore(*_):
        with open(src, 'w') as f:
            f.write(text)
        subprocess.run(make, capture_output=True)
        sys.exit('mutate.py: stopped; ' + a.source + ' restored')
    signal.signal(signal.SIGINT, restore)
    signal.signal(signal.SIGTERM, restore)

    if subprocess.run(make, capture_output=True).returncode != 0:
        sys.exit('mutate.py: the tests do not build as they are')
    for t in tests:
        if run_test(t) != 0:
            sys.exit(f'mutate.py: {t} fails on {a.source} as it is; '
                     'every mutant would look caught')
    cands = candidates(lines)
    random.Random(a.seed).shuffle(cands)
    killed = survived = broken = 0
    for i, op, start, end in cands[:a.n]:
        line = lines[i]
        rep = OPS[op][1] or repr(float(line[start:end]) * 1.5)
        mutated = line[:start] + rep + line[end:]
        with open(src, 'w') as f:
            f.write('\n'.join(lines[:i] + [mutated] + lines[i + 1:]))
        try:
            if subprocess.run(make, capture_output=True).returncode != 0:
                broken += 1
                continue
            caught = any(run_test(t) != 0 for t in tests)
            if caught:
                killed += 1
            else:
                survived += 1
                print(f'survived {a.source}:{i + 1}: {line.strip()}\n'
                      f'                  -> {mutated.strip()}', flush=True)
        finally:
            with open(src, 'w') as f:
                f.write(text)
    subprocess.run(make, capture_output=True)
    tried = killed + survived
    print(f'{a.source}: {killed} of {tried} mutants caught ({broken} did not compile; '
          f'{len(cands)} places to mutate)')


if __name__ == '__main__':
    main()

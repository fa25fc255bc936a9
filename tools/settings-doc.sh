#!/usr/bin/env bash
# settings-doc.sh — write docs/settings.md, the reference of every setting of every file corun
# reads, from the binary's own help topics (`corun help scenario`, ...), so that it says what
# the program checks, and the settings of its built-in kernels (`corun kernels show`).
#
#   tools/settings-doc.sh [CORUN] > docs/settings.md
#
# CORUN is the binary (default: build/corun beside this script's tree). tests/e2e/settings_doc.sh
# fails when the committed file differs from what this prints: a setting, range, default or
# unit changed without the reference following.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
corun=${1:-$here/build/corun}
[ -x "$corun" ] || { echo "$0: $corun: not an executable corun (build it first, or name it)" >&2; exit 2; }
topic() { # TITLE TOPIC: a section with the topic's help as written for an 80-column terminal
    printf '\n## %s\n\n`corun help %s`:\n\n```\n' "$1" "$2"
    "$corun" help "$2"
    printf '```\n'
}
cat <<'HEAD'
# Settings of corun's files

Every setting of every file corun reads: its type, range, unit, default and meaning, as
`corun help TOPIC` prints them. The program validates each file's settings against the same
tables these are printed from (a few checks that tie settings together, such as an SM split
summing to at most the GPU's SMs, come on top). Written by `tools/settings-doc.sh` from the
binary; a test fails when this file and the program disagree.
HEAD
topic "Scenario" scenario
topic "Accelerator scenario" accelerator
topic "GPU preset (data/gpus, a scenario's gpu_overrides, --set gpu.K=V)" gpu
topic "Kernel profile (data/kernels)" kernel
topic "Lesson file" lesson
topic "Suite file" suite
# The built-in kernels have no file to read: their settings as `corun kernels show` prints
# them (without its measurement, which is the simulator's to change).
printf '\n## Built-in kernels\n\nCompiled into corun (no file in data/kernels); `corun kernels show NAME` prints each\nwith its occupancy and a measurement alone.\n'
for k in $("$corun" kernels list | awk '$2 == "built-in" {print $1}'); do
    printf '\n```\n'
    "$corun" kernels show "$k" --cycles 1000 | sed '/^occupancy/,$d'
    printf '```\n'
done

#!/usr/bin/env bash
# One command: install what is missing, build, and run the main job, triage, on a bundled
# app-shaped dump: its leak, biggest retainers, bitmaps, duplicates, what grew and what the CI
# gates say, and an HTML report to open in a browser.  Ends with commands to try next.
set -eu
cd "$(dirname "$0")"
tools/deps.sh
B=${HPROFKIT_BUILD:-build-release} # the build tree (tests point it at theirs)
[ -d "$B" ] || meson setup "$B" --buildtype=release >/dev/null
# only what this run and the commands it suggests use: the tool, the plugins plugins.ini loads,
# the dump generator (a fifth of the tree's compiling is tests and helpers: `ninja -C $B` for all)
plugins=$(sed -n 's|^\[\([a-z0-9_]*\)\]$|plugins/\1/\1.so|p' plugins.ini)
ninja -C "$B" hprofkit fixtures/genhprof $plugins >/dev/null
hk="$B/hprofkit"
# The bundled dump: a photo-gallery app (fixtures/genhprof --scenario app), and the same app
# before its event list grew by 200, as the baseline the diff compares with.
"$B/fixtures/genhprof" --scenario app -o "$B/app-before.hprof" >/dev/null 2>&1
"$B/fixtures/genhprof" --scenario app --grow 200 -o "$B/app.hprof" >/dev/null 2>&1
rc=0
"$hk" triage "$B/app.hprof" --baseline "$B/app-before.hprof" --fail-on leaks,bitmap-waste:1 \
  --json -o "$B/app-triage.json" --report "$B/app-report.html" 2>"$B/app-triage.err" || rc=$?
# 3: a gate tripped, as it should here (the summary says which)
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { cat "$B/app-triage.err" >&2; exit "$rc"; }
echo "Triage of $B/app.hprof (bundled: fixtures/genhprof --scenario app), baseline $B/app-before.hprof"
echo
"$hk" run scripts/commands/triage_summary.lua "$B/app-triage.json"
echo
echo "Report: $(realpath "$B/app-report.html")   (open it in a browser; facts: $B/app-triage.json)"
echo
echo "Try next:"
echo "  $hk leaks $B/app.hprof      # the leak trace, step by step"
echo "  HPROFKIT_SCRIPTS=docs/examples $hk count-class $B/app.hprof --class com.example.gallery.Photo"
echo "                                            # a query written in Lua (docs/examples/count_class.lua)"
echo "  $hk serve $B/app.hprof --baseline $B/app-before.hprof"
echo "                                            # explore it in a browser (objects, leaks, diff; Ctrl-C stops)"

# -o and the files commands write, when the path is not a regular file: a pipe (as /dev/null or
# /dev/stdout are devices) is written through and stays what it was; as root, renaming a
# temporary file over /dev/null used to replace it with a regular file.
. "$SRC/tests/lib.sh"
"$GEN" --scenario demo -o demo.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
want=$("$HK" info demo.hprof --json)
mkfifo "$T/pipe"
timeout 30 cat "$T/pipe" >"$T/pipe.out" &
reader=$!
"$HK" info demo.hprof --json -o "$T/pipe"
eq pipe-exit "$?" 0
wait "$reader"
eq pipe-got-output "$(cat "$T/pipe.out")" "$want"
if [ -p "$T/pipe" ]; then pass pipe-stays-a-pipe; else fail pipe-stays-a-pipe "$(ls -l "$T/pipe")"; fi
eq pipe-no-temporary "$(ls "$T" | grep -c 'pipe.tmp')" 0
# a gate tripped with -o into a pipe: the output still written, the status 3
timeout 30 cat "$T/pipe" >"$T/pipe2.out" &
reader=$!
"$HK" triage demo.hprof --fail-on leaks --json -o "$T/pipe" 2>/dev/null
eq pipe-gate-exit "$?" 3
wait "$reader"
eq pipe-gate-output "$(jq -r .schema "$T/pipe2.out" 2>/dev/null | cut -d/ -f1)" hprofkit-triage
if [ -p "$T/pipe" ]; then pass pipe-gate-stays-a-pipe; else fail pipe-gate-stays-a-pipe "$(ls -l "$T/pipe")"; fi
# a regular file is still replaced whole
echo old >"$T/out.json"
"$HK" info demo.hprof --json -o "$T/out.json"
eq regular-replaced "$(cat "$T/out.json")" "$want"

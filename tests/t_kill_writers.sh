# Writers that survive a kill: SIGKILL, SIGINT and SIGTERM at random moments of `-o FILE`,
# `--report`, `bitmaps --export DIR` and `convert --trace` leave the old file or the whole new
# one, never a part, and no temporary file beside it.  HK_KILLS sets the kills per writer.
. "$SRC/tests/lib.sh"
"$GEN" --scenario bitmaps-pre26 --width 64 --height 64 -o bm.hprof >/dev/null 2>&1 \
  || { fail gen "genhprof failed"; exit 0; }
"$GEN" --scenario demo -o demo.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
kills=${HK_KILLS:-10}
RANDOM=36   # the same moments every run

now_ms() { date +%s%3N; }
# whole NAME OUT: the reference output of a full run (made once, into ref/)
# try NAME DIR CMD...: runs CMD with the outputs in DIR, kills it after a random part of the
#   reference run's time (SIGKILL, SIGINT and SIGTERM in turn), then checks DIR
check_dir() {   # check_dir NAME DIR: every file is "old" or equal to ref/NAME's file; no temporary
  local name=$1 dir=$2 f bad=""
  for f in "$dir"/* "$dir"/.[!.]*; do
    [ -e "$f" ] || continue
    case "$f" in *.tmp.*) bad="$bad temporary:$(basename "$f")"; continue ;; esac
    printf 'old\n' | cmp -s - "$f" && continue
    cmp -s "$f" "ref/$name/$(basename "$f")" || bad="$bad part:$(basename "$f")"
  done
  echo "$bad"
}
writer() {   # writer NAME SECONDS-OF-A-RUN CMD (with @ for the output directory)
  local name=$1 run_ms=$2; shift 2
  local i problems="" outcomes=""
  for i in $(seq 1 "$kills"); do
    rm -rf "w/$name"; mkdir -p "w/$name"
    for f in ref/$name/*; do echo old > "w/$name/$(basename "$f")"; done
    [ "$name" == export ] && rm -f w/$name/*   # an export folder starts empty or partly full
    local sig=KILL; [ $((i % 3)) -eq 1 ] && sig=INT; [ $((i % 3)) -eq 2 ] && sig=TERM
    local delay=$(( RANDOM % (run_ms + 1) ))
    "${@//@/w/$name}" > /dev/null 2>&1 &
    local pid=$!
    sleep "$(printf '0.%03d' "$delay")" 2>/dev/null || sleep 0
    kill -s $sig $pid 2>/dev/null
    { wait $pid; } 2>/dev/null; local rc=$?
    outcomes="$outcomes $sig@${delay}ms:$rc"
    local bad; bad=$(check_dir "$name" "w/$name")
    [ -n "$bad" ] && problems="$problems [$sig@${delay}ms$bad]"
  done
  # the kills must land while it runs, not all after it ended
  local hit; hit=$(grep -oE ':(137|130|143)' <<< "$outcomes" | wc -l)
  if [ -z "$problems" ] && [ "$hit" -gt 0 ]; then pass "killed-$name-x$kills ($hit while running)"
  elif [ -z "$problems" ]; then fail "killed-$name" "no kill landed while it ran:$outcomes"
  else fail "killed-$name" "$problems"; fi
  echo "$name:$outcomes" >> outcomes.txt
}
reference() {   # reference NAME CMD...: a full run into ref/NAME; prints its milliseconds (< 1 s)
  local name=$1; shift
  mkdir -p "ref/$name"
  local t0; t0=$(now_ms)
  "${@//@/ref/$name}" > /dev/null 2>"ref/$name.err" || { echo 0; return; }
  local ms=$(( $(now_ms) - t0 ))
  [ $ms -gt 999 ] && ms=999
  echo $ms
}

for spec in "o|histogram demo.hprof -o @/hist.txt" \
            "report|triage demo.hprof --report @/report.html" \
            "export|bitmaps bm.hprof --export @" \
            "convert|convert demo.hprof --to perfetto-embedded --trace @/t.pftrace"; do
  name=${spec%%|*}; read -r -a cmd <<< "${spec#*|}"
  ms=$(reference "$name" "$HK" "${cmd[@]}")
  if [ "$ms" -eq 0 ] || [ -z "$(ls -A "ref/$name")" ]; then fail "reference-$name" "$(head -c 300 "ref/$name.err")"; continue; fi
  # a report names the time it was made: two full runs must agree for "whole" to mean equal
  mkdir -p again; "$HK" "${cmd[@]//@/again}" > /dev/null 2>&1
  for f in ref/$name/*; do
    cmp -s "$f" "again/$(basename "$f")" || { skip "killed-$name" "two full runs differ: $(basename "$f")"; continue 2; }
  done
  rm -rf again
  writer "$name" "$ms" "$HK" "${cmd[@]}"
done

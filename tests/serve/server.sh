# start_server NAME ARGS... and stop_server NAME, for the serve tests (sourced after tests/lib.sh).
# start_server NAME ARGS...: runs hprofkit serve in the background; sets PID and URL
start_server() {
  local n=$1; shift
  "$HK" serve "$@" > "$n.out" 2> "$n.err" &
  PID=$!
  URL=""
  for _ in $(seq 1 300); do
    URL=$(grep -o 'http://[^ ]*' "$n.out" 2>/dev/null)
    [ -n "$URL" ] && return 0
    kill -0 $PID 2>/dev/null || break
    sleep 0.1
  done
  fail "$n-start" "no address printed: $(head -c 300 "$n.err")"
  return 1
}
stop_server() {  # NAME: Ctrl-C, then the exit status must be 0
  kill -INT $PID
  local rc=0
  wait $PID || rc=$?
  eq "$1-ctrl-c-exit-0" "$rc" 0
}

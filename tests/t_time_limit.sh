# A time limit for scripts that never end: --lua-time-limit SECONDS (or HPROFKIT_LUA_TIME_LIMIT)
# stops a busy loop, one that swallows the error with pcall, one in a coroutine, a long hk.sleep
# and an inspector looping inside the leaks query's C, each with one line and exit 1, near the
# limit; a script or query that ends in time is not touched; a bad value is exit 2.
. "$SRC/tests/lib.sh"
"$GEN" --scenario leaks -o leaks.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
now_ms() { date +%s%3N; }
msg="hprofkit run: the script ran past its time limit of 1 s (--lua-time-limit or HPROFKIT_LUA_TIME_LIMIT)"

printf 'local n = 0\nwhile true do n = n + 1 end\n' > busy.lua
printf 'while true do pcall(function() while true do end end) end\n' > swallow.lua
printf 'coroutine.wrap(function() while true do end end)()\n' > coroutine.lua
printf 'hk.sleep(100)\n' > sleep.lua
cat > inspector.lua <<'LUA'
hk.inspector{ class = "*", inspect = function() while true do end end }
hk.run("leaks", hk.open(arg.dump))
LUA
# stopped NAME SCRIPT ARGS...: exit 1, the one line, between 1 and 5 s
stopped() {
  local name=$1; shift
  local t0; t0=$(now_ms)
  "$HK" --lua-time-limit 1 run "$@" > "$name.out" 2> "$name.err"
  local rc=$? ms=$(( $(now_ms) - t0 ))
  if [ $rc = 1 ] && [ "$(cat "$name.err")" = "$msg" ] && [ $ms -ge 1000 ] && [ $ms -lt 5000 ]; then pass "limit-$name (${ms} ms)"
  else fail "limit-$name" "exit $rc after $ms ms: $(head -c 300 "$name.err")"; fi
}
stopped busy busy.lua
stopped swallow swallow.lua
stopped coroutine coroutine.lua
stopped sleep sleep.lua
stopped inspector inspector.lua leaks.hprof

# the variable, and the option over it (0: none)
HPROFKIT_LUA_TIME_LIMIT=0.5 "$HK" run busy.lua > /dev/null 2> env.err
eq limit-env "$? $(cat env.err)" "1 ${msg/of 1 s/of 0.5 s}"
printf 'local t = hk.clock()\nwhile hk.clock() - t < 1.5 do end\nprint("done")\n' > short.lua
eq limit-option-over-env "$(HPROFKIT_LUA_TIME_LIMIT=0.5 "$HK" --lua-time-limit 0 run short.lua 2>&1; echo "rc=$?")" "done
rc=0"
# in time: the output is the same as without a limit, exit 0
"$HK" leaks leaks.hprof --json > free.json 2>/dev/null
"$HK" leaks leaks.hprof --json --lua-time-limit 60 > limited.json 2> limited.err
eq limit-in-time "$? $(cmp -s free.json limited.json && echo same) $(wc -c < limited.err)" "0 same 0"
"$HK" run busy.lua --lua-time-limit abc > /dev/null 2> bad.err
eq limit-bad-value "$? $(cat bad.err)" "2 hprofkit: --lua-time-limit needs seconds (0: none), got 'abc'"

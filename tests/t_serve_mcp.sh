# hprofkit mcp: a scripted MCP client (initialize, tools/list, tools/call) against the CLI's --json.
. "$SRC/tests/lib.sh"
D="$REALDATA/hprof/leakcanary-leak_service_binder.hprof"
if [ ! -f "$D" ]; then
  "$GEN" --scenario demo -o demo.hprof >/dev/null 2>&1 || { fail gen "genhprof demo failed"; exit 0; }
  D=$PWD/demo.hprof
fi
python3 "$SRC/tests/serve/mcp_check.py" "$HK" "$D"
# a user's query in the user's scripts folder is a tool with no extra work
mkdir -p scripts/commands
cat > scripts/commands/mine.lua <<'LUA'
hk.query{ name = "mine", help = "count objects", args = { times = 1 },
  run = function(dump, args) return { count = dump:info().objects * args.times } end }
LUA
out=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mine","arguments":{"times":2}}}' |
  HPROFKIT_SCRIPTS=$PWD/scripts "$HK" mcp "$D" 2>/dev/null)
want=$(( $("$HK" info "$D" --json | jq .objects) * 2 ))
eq user-query-listed "$(echo "$out" | head -1 | jq '[.result.tools[].name] | index("mine") != null')" true
eq user-query-called "$(echo "$out" | sed -n 2p | jq -r '.result.content[0].text | fromjson | .count')" "$want"
"$HK" mcp >/dev/null 2>&1; eq usage-exit-2 $? 2

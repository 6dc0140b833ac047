# `QUERY --help` lists each option once, with its default: for every query,
# every declared argument is on exactly one option line (--name, --no-name for a flag on by
# default, or its one-letter alias), and a number or non-empty text default is printed on that line.
. "$SRC/tests/lib.sh"
"$HK" run - > args.tsv <<'LUA'
for name, q in pairs(hk.queries()) do
  local alias = {}
  for a, k in pairs(q.aliases or {}) do alias[k] = a end
  for k, v in pairs(q.args or {}) do
    local shown = (type(v) == "number" or (type(v) == "string" and v ~= "")) and tostring(v) or ""
    print(table.concat({ name, (k:gsub("_", "-")), alias[k] or "", shown, v == true and "no" or "" }, "|"))
  end
end
LUA
[ -s args.tsv ] || { fail help-args "no query declares arguments"; exit 0; }
bad=0 checked=0
while IFS='|' read -r q opt alias def neg; do
  [ -f "help-$q.txt" ] || "$HK" "$q" --help > "help-$q.txt" 2>&1 || { fail "help-$q" "--help failed: $(head -c 200 "help-$q.txt")"; bad=1; continue; }
  cp "help-$q.txt" help.txt
  lines=$(sed -n '/^options:/,/^defined in/p' help.txt |
    grep -cE "^ +(--${neg:+no-}$opt${alias:+|-$alias})( |$)")
  checked=$((checked + 1))
  if [ "$lines" != 1 ]; then fail "help-$q-$opt" "on $lines option lines of $q --help"; bad=1; continue; fi
  if [ -n "$def" ] && ! sed -n '/^options:/,/^defined in/p' help.txt |
       grep -E "^ +(--${neg:+no-}$opt${alias:+|-$alias})( |$)" | grep -qE -- "default|$def"; then
    fail "help-$q-$opt-default" "its default $def is not on its line"; bad=1
  fi
done < args.tsv
[ "$bad" = 0 ] && pass "help-options-once ($checked options of $(cut -d'|' -f1 args.tsv | sort -u | wc -l) queries)"

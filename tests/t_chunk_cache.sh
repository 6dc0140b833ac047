# The compiled chunks of the built-in scripts kept between runs (core/lua/lua_chunk_cache.c):
# made on the first run, used after it, and never a reason for a different answer: outputs with
# and without the cache are the same, an entry cut short or left from an older file is compiled
# again and rewritten, a cache that cannot be made costs nothing but the compile, users' own
# script folders are not kept, require's messages are Lua's, and a folder others may write to is
# not used.
. "$SRC/tests/lib.sh"
"$GEN" --scenario leaks -o leaks.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
C="$T/cache"
kept() { XDG_CACHE_HOME="$C" "$HK" "$@"; }
uncached() { XDG_CACHE_HOME=/proc/no-cache-here "$HK" "$@"; }

kept queries > q1.txt 2>q1.err
n=$(ls "$C/hprofkit/lua" 2>/dev/null | grep -c '\.luac$')
eq entries-made "$([ "$n" -gt 30 ] && echo yes)" yes
entry=$(ls "$C/hprofkit/lua" | grep '%commands%leaks\.lua\.luac$')
eq entry-named-by-path "$([ -n "$entry" ] && echo yes)" yes
lib=$(ls "$C/hprofkit/lua" | grep '%lib%leaks%analysis\.lua\.luac$')
eq required-module-kept "$([ -n "$lib" ] && echo yes)" yes
uncached queries > q0.txt 2>q0.err
eq queries-same-without-cache "$(cmp -s q0.txt q1.txt && cmp -s q0.err q1.err && echo same)" same
kept queries > q2.txt 2>&1
eq queries-same-from-cache "$(cmp -s q0.txt q2.txt && echo same)" same

uncached leaks leaks.hprof --json > l0.json 2>/dev/null
kept leaks leaks.hprof --json > l1.json 2>/dev/null
eq leaks-same-from-cache "$(cmp -s l0.json l1.json && [ -s l0.json ] && echo same)" same

# an entry cut short: compiled again, the answer unchanged, the entry whole again
cp "$C/hprofkit/lua/$lib" whole.luac
head -c $(($(stat -c %s whole.luac) / 2)) whole.luac > "$C/hprofkit/lua/$lib"
kept leaks leaks.hprof --json > l2.json 2>l2.err
eq cut-entry-same-answer "$(cmp -s l0.json l2.json && echo same)" same
eq cut-entry-rewritten "$(cmp -s whole.luac "$C/hprofkit/lua/$lib" && echo same)" same
# an entry of another version of the file (its recorded modification time changed): the same
python3 - "$C/hprofkit/lua/$lib" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[64] ^= 1  # magic[8], build[40], size, mtime_s: then mtime_ns
open(p, "wb").write(b)
PY
eq stale-entry-differs "$(cmp -s whole.luac "$C/hprofkit/lua/$lib" || echo differs)" differs
kept leaks leaks.hprof --json > l3.json 2>/dev/null
eq stale-entry-same-answer "$(cmp -s l0.json l3.json && echo same)" same
eq stale-entry-rewritten "$(cmp -s whole.luac "$C/hprofkit/lua/$lib" && echo same)" same
# garbage in place of the bytecode, the header intact: Lua refuses it and the file is compiled
python3 - "$C/hprofkit/lua/$lib" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
for i in range(len(b) - 200, len(b)): b[i] = 0xff
open(p, "wb").write(b)
PY
kept leaks leaks.hprof --json > l4.json 2>l4.err; rc=$?
eq garbage-entry-exit "$rc" 0
eq garbage-entry-same-answer "$(cmp -s l0.json l4.json && echo same)" same

# users' folders are compiled each run, never kept
mkdir -p mine/commands
cat > mine/commands/hello.lua <<'LUA'
hk.query{ name = "hello", help = "says hello", run = function() return { { greeting = "hello" } } end }
LUA
before=$(ls "$C/hprofkit/lua" | wc -l)
HPROFKIT_SCRIPTS="$T/mine" kept hello leaks.hprof --json > h.json 2>h.err
eq user-script-runs "$(jq -r '.[0].greeting' h.json)" hello
eq user-script-not-kept "$(ls "$C/hprofkit/lua" | wc -l)" "$before"

# require of a module that is nowhere: Lua's own message, every place it looked
echo 'require "no.such.module"' > req.lua
kept run req.lua > req.out 2> req.err
eq require-missing-fails "$(grep -c "module 'no.such.module' not found" req.err)" 1
eq require-missing-lists-files "$(grep -c "no file '.*no/such/module.lua'" req.err | awk '{print ($1 >= 2) ? "yes" : "no"}')" yes

# a cache folder others may write to is not used: bytecode is run as it is
mkdir -p "$T/open/hprofkit/lua" && chmod 777 "$T/open/hprofkit/lua"
XDG_CACHE_HOME="$T/open" "$HK" queries > q3.txt 2>/dev/null
eq open-folder-not-used "$(ls "$T/open/hprofkit/lua" | wc -l)" 0
eq open-folder-same-answer "$(cmp -s q0.txt q3.txt && echo same)" same

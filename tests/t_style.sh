# The house rules a reader relies on, checked on the tree so they stay true: one C style
# (.clang-format), short functions, library layers that never print or allocate without the
# out-of-memory policy, comments that explain instead of pointing at a tracker, and a README
# layout table that names the folders that exist, and includes that run down the floors.
. "$SRC/tests/lib.sh"
cd "$SRC" || exit 0
c_files() { git ls-files "$@" | grep -E '\.[ch]$'; }

# ---- one style: clang-format over core/ plugins/ sdk/ (and the C tests and fixtures) ----
if command -v clang-format >/dev/null; then
  out=$(c_files core plugins sdk tests fixtures bench | xargs clang-format --dry-run 2>&1 | grep -c 'warning:')
  eq clang-format-clean "$out" 0
else
  fail clang-format-clean "clang-format is not installed (tools/deps.sh --test installs it)"
fi

# ---- no function over 80 lines in core/ and plugins/ (ctags gives each function's first and last line) ----
if command -v ctags >/dev/null; then
  long=$(c_files core plugins | grep -v '^tests/' |
    xargs ctags --fields=+ne --c-kinds=f -o - 2>/dev/null |
    awk -F'\t' '{l=""; e=""; for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) l = substr($i, 6); if ($i ~ /^end:/) e = substr($i, 5) }
                 if (e != "" && e - l + 1 > 80) printf "%s:%s %s (%d lines); ", $2, l, $1, e - l + 1 }')
  eq functions-at-most-80-lines "$long" ""
  # the counter itself must see functions, or the check above could never fail
  n=$(ctags --fields=+ne --c-kinds=f -o - core/graph/graph_reach.c 2>/dev/null | grep -c 'end:')
  if [ "$n" -gt 0 ]; then pass function-counter-works; else fail function-counter-works "ctags found no function ends"; fi
else
  fail functions-at-most-80-lines "ctags is not installed (tools/deps.sh --test installs universal-ctags)"
fi

# ---- library layers never print: progress and warnings go through core/util/hk_report ----
lib_dirs="core/hprof core/graph core/bitmap core/device core/util core/trace core/map core/analysis core/diff core/convert"
prints=$(c_files $lib_dirs | grep -v 'hk_report.c$' | grep -v '_lua.c$' | grep -v 'hk_mem.c$' |
  xargs grep -nE 'fprintf\(std(err|out)|(^|[^_a-z])printf\(|fputs\([^,]*, *std(err|out)|isatty\(' 2>/dev/null | tr '\n' ';')
eq library-layers-do-not-print "$prints" ""

# ---- one out-of-memory policy: hk_x* (abort with a message), no raw allocation in core/ ----
raw=$(c_files core | grep -v 'hk_mem.c$' |
  xargs grep -nE '(^|[^_a-z])(malloc|calloc|realloc|strdup)\(' 2>/dev/null | grep -v '^\S*:[0-9]*: *\*\|/\*' | tr '\n' ';')
eq core-allocates-through-hk_x "$raw" ""

# ---- ... and plugins allocate through the host (hk_alloc & co., sdk/hprofkit.h), never raw ----
praw=$(git ls-files plugins | grep -E '\.[ch]$' | grep -v 'jdwp_plugin_check.c$' |
  xargs grep -nE '(^|[^_a-z])(malloc|calloc|realloc|strdup)\(' 2>/dev/null | grep -v '^\S*:[0-9]*: *\*\|/\*' | tr '\n' ';')
eq plugins-allocate-through-the-host "$praw" ""

# ---- comments say why; they never point at an issue number a reader does not have ----
refs=$(git ls-files core plugins sdk scripts tests fixtures tools bench meson.build | grep -vE '\.md$|RESULTS' |
  xargs grep -nE '\b[Ii]ssues? [0-9]+\b' 2>/dev/null | tr '\n' ';')
eq no-issue-number-comments "$refs" ""

# ---- README's layout table names the folders that exist, and every folder is in it ----
table=$(awk '/^## Layout/ {on = 1; next} on && /^## / {on = 0} on && /^\| `/' README.md |
  cut -d'|' -f2 | grep -oE '`[^`]+`' | tr -d '`' | sed 's:/$::')
missing_dirs=""
for p in $table; do [ -e "$p" ] || missing_dirs="$missing_dirs $p"; done
eq layout-table-paths-exist "$missing_dirs" ""
unlisted=""
for d in $(git ls-files | grep / | cut -d/ -f1 | sort -u) $(git ls-files core | cut -d/ -f1-2 | grep / | sort -u); do
  [ -d "$d" ] || continue
  echo "$table" | grep -qxE "$d|$d/.*" || unlisted="$unlisted $d"
done
eq layout-table-lists-every-folder "$unlisted" ""

# ---- the floors: a folder of core/ includes only folders on floors below its own ----
# (docs/architecture.md says what each floor is for; a floor's folders never include each other)
floors="util | map device | hprof | trace analysis graph | native open convert diff bitmap | host | lua | cli | serve"
# the one include that runs up: the program's entry point (main) dispatches to every interface,
# serve and mcp too, which run the CLI's query runner
entry_up="core/cli/main.c->serve"
floor_of() { echo "$floors" | tr '|' '\n' | grep -nw -- "$1" | cut -d: -f1; }
upward_in() { # FILE FOLDER: the includes of FILE that do not run down from FOLDER's floor
  local fl to tl
  fl=$(floor_of "$2")
  # "folder/x.h", "../folder/x.h" and "# include" alike
  for to in $(grep -oE '^#[[:space:]]*include[[:space:]]*"(\.\./)*[a-z_]+/' "$1" | sed -E 's/.*"(\.\.\/)*//; s:/$::' | sort -u); do
    [ "$to" = "$2" ] && continue
    tl=$(floor_of "$to")
    [ -n "$tl" ] || continue # not a folder of core/ (a generated header)
    [ "$tl" -lt "$fl" ] || [ "$1->$to" = "$entry_up" ] || printf ' %s->%s;' "$1" "$to"
  done
}
upward="" unknown=""
for f in $(c_files core); do
  from=$(echo "$f" | cut -d/ -f2)
  if [ -z "$(floor_of "$from")" ]; then unknown="$unknown $from"; continue; fi
  upward="$upward$(upward_in "$f" "$from")"
done
eq includes-run-down-the-floors "$upward" ""
eq every-core-folder-has-a-floor "$(echo "$unknown" | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/^ *//; s/ *$//')" ""
# A folder's representation is its own: a core/F/*_internal.h is included only in core/F (the
# floors above read hprof.h and hprof_view.h, graph.h and graph_view.h, ...); the C test
# programs in tests/ may include them.
private_users() {  # HEADER FOLDER FILE...: the files outside FOLDER that include HEADER
  local h=$1 dir=$2 f
  shift 2
  for f in "$@"; do
    case $f in "$dir"/*) ;; *) grep -lE "^#[[:space:]]*include[[:space:]]*\"(\.\./)*(${h%%/*}/)?${h#*/}\"" "$f" 2>/dev/null ;; esac
  done | tr '\n' ' '
}
outside=$(c_files core plugins sdk fixtures bench)
private=""
for h in $(git ls-files 'core/*_internal.h'); do
  # shellcheck disable=SC2086
  private="$private$(private_users "${h#core/}" "$(dirname "$h")" $outside)"
done
eq internal-headers-stay-private "$private" ""
printf '#include "hprof/hprof_view.h"\n#include "hprof/hprof_internal.h"\n' >"$T/core_up.c"
printf '#include "hprof_internal.h"\n' >"$T/plugin_up.c"
eq internal-rule-sees-an-include "$(private_users hprof/hprof_internal.h core/hprof "$T/core_up.c" "$T/plugin_up.c")" \
  "$T/core_up.c $T/plugin_up.c "
# the rule itself must see an upward include and a sideways one, or it could never fail
printf '#include "util/hk_mem.h"\n#include "lua/lua_host.h"\n#include "graph/graph.h"\n' >"$T/up.c"
eq floor-rule-sees-upward "$(upward_in "$T/up.c" analysis)" " $T/up.c->graph; $T/up.c->lua;"
printf '#include "../host/host.h"\n# include "lua/lua_host.h"\n' >"$T/up2.c"
eq floor-rule-sees-relative "$(upward_in "$T/up2.c" graph)" " $T/up2.c->host; $T/up2.c->lua;"
# Lua's headers stay in the wing (core/lua) and the command that hosts it (core/cli): a feature's
# C knows no Lua
lua_headers() { grep -lE '^#[[:space:]]*include[[:space:]]*[<"](lua|lauxlib|lualib|luaconf)\.h[>"]' "$@" 2>/dev/null | tr '\n' ' '; }
# shellcheck disable=SC2046
eq lua-headers-stay-in-the-wing "$(lua_headers $(c_files core sdk | grep -vE '^core/(lua|cli)/'))" ""
printf '#include <lauxlib.h>\n' >"$T/core_lua.c"
eq lua-rule-sees-an-include "$(lua_headers "$T/core_lua.c")" "$T/core_lua.c "

# ---- ... and the calls: a floor's library (build/core/libhk_FLOOR.a) uses no symbol that only
# a library of its own floor's neighbours or of a floor above defines ----
if ls "$BUILD"/core/libhk_*.a >/dev/null 2>&1 && command -v nm >/dev/null; then
  defs="$T/floor_defs.txt"
  : >"$defs"
  for a in "$BUILD"/core/libhk_*.a; do
    l=$(basename "$a" .a | sed 's/^libhk_//')
    nm --defined-only -g "$a" 2>/dev/null | awk -v l="$l" 'NF >= 3 && $2 ~ /[TDBRC]/ {print $3, l}' >>"$defs"
  done
  calls_up=""
  for a in "$BUILD"/core/libhk_*.a; do
    l=$(basename "$a" .a | sed 's/^libhk_//')
    [ "$l" = proto ] && continue
    fl=$(floor_of "$l")
    for x in $(nm -u "$a" 2>/dev/null | awk '{print $2}' | sort -u | join - <(sort -u "$defs") | awk '{print $2 ":" $1}' | sort -u); do
      m=${x%%:*}
      [ "$m" = "$l" ] || [ "$m" = proto ] && continue
      [ "$(floor_of "$m")" -lt "$fl" ] || calls_up="$calls_up $l->$x;"
    done
  done
  eq calls-run-down-the-floors "$calls_up" ""
else
  fail calls-run-down-the-floors "no floor libraries in $BUILD/core (core/meson.build makes one per floor)"
fi

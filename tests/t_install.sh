# The binary finds its scripts, plugins.ini and plugins from the build tree (any working
# directory) and after `meson install` (here into a DESTDIR, which also proves it relocatable).
. "$SRC/tests/lib.sh"
"$GEN" --scenario demo -o demo.hprof >/dev/null 2>&1
mkdir -p elsewhere && cd elsewhere
"$HK" plugins --json > plugins.json 2>p.err || fail build-tree-plugins "$(cat p.err)"
eq build-tree-meminfo-loaded "$(jq -r '.[] | select(.name == "meminfo") | .status' plugins.json)" ok
eq build-tree-info "$("$HK" info ../demo.hprof --json | jq .id_size)" 4
cd "$T"
if meson install -C "$BUILD" --destdir "$T/inst" --no-rebuild >install.log 2>&1; then
  pass meson-install
else
  fail meson-install "$(tail -5 install.log)"; exit 0
fi
bin=$(find "$T/inst" -path '*/bin/hprofkit' | head -1)
[ -x "$bin" ] && pass installed-binary || { fail installed-binary "no bin/hprofkit under $T/inst"; exit 0; }
"$bin" plugins --json > iplugins.json 2>ip.err || fail installed-plugins "$(cat ip.err)"
eq installed-meminfo-loaded "$(jq -r '.[] | select(.name == "meminfo") | .status' iplugins.json)" ok
"$bin" queries > iq.txt 2>iq.err
grep -q "^  histogram " iq.txt && pass installed-scripts || fail installed-scripts "$(cat iq.err iq.txt | head -5)"
eq installed-info "$("$bin" info demo.hprof --json | jq .id_size)" 4
# an out-of-tree plugin built with pkg-config against the installed header, loaded by the
# installed binary (PKG_CONFIG_SYSROOT_DIR: the DESTDIR stands for /)
pc=$(find "$T/inst" -name hprofkit.pc | head -1)
[ -n "$pc" ] && pass installed-pkg-config || { fail installed-pkg-config "no hprofkit.pc under $T/inst"; exit 0; }
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR="$T/inst"
cflags=$(pkg-config --cflags hprofkit)
[ -f "$(sed 's/^-I//; s/ *$//' <<<"$cflags")/hprofkit.h" ] && pass installed-header \
  || fail installed-header "pkg-config --cflags gives '$cflags'"
mkdir -p oot && cd oot
awk '/^`wordcount.c`/{f=1;next} f&&/^```c/{g=1;next} g&&/^```/{exit} g' "$SRC/docs/plugins.md" > wordcount.c
if cc -Wall -Wextra -Werror -Wno-unused-parameter -shared -fPIC -fvisibility=hidden $cflags wordcount.c \
     -o wordcount.so 2> cc.err; then
  printf '[wordcount]\npath = %s/wordcount.so\nlabel = words\n' "$PWD" > my-plugins.ini
  echo 'print(hk.wordcount.count("a heap dump of words").words)' > wc.lua
  eq out-of-tree-plugin-loads "$("$bin" --plugins my-plugins.ini run wc.lua 2>wc.err)" 5
else
  fail out-of-tree-plugin-builds "$(head -c 300 cc.err)"
fi

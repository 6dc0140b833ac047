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

# Bitmaps, last check: a real HotSpot dump of a test app whose android.graphics.Bitmap
# has Android's pre-API-26 field names (pixels in mBuffer) decodes the same way as an ART dump.
# The app (tests/java/pre26/) writes the straight RGBA it expects per bitmap, keyed by the
# distinct mNativePtr it gave each one, since it cannot know the dump's object ids.
. "$SRC/tests/lib.sh"
CMP="$BUILD/tests/bitmap/bm_pngcmp"

if ! command -v javac >/dev/null || ! command -v java >/dev/null || ! command -v jcmd >/dev/null; then
  skip hotspot_bitmaps "no JDK (javac, java, jcmd) installed"; exit 0
fi
CLS="$T/pre26cls"; OUT="$T/pre26out"
mkdir -p "$CLS"
if ! javac -nowarn -d "$CLS" "$SRC/tests/java/pre26/Pre26App.java" \
       "$SRC/tests/java/pre26/android/graphics/Bitmap.java" 2>"$T/pre26javac.err"; then
  fail hotspot_bitmaps_javac "$(head -c 300 "$T/pre26javac.err")"; exit 0
fi

APP=
stop_app() { [ -n "$APP" ] && kill "$APP" 2>/dev/null; wait "$APP" 2>/dev/null; APP=; }
trap stop_app EXIT
java -Xmx64m -cp "$CLS" Pre26App "$OUT" >"$T/pre26app.out" 2>&1 &
APP=$!
for _ in $(seq 300); do [ -s "$OUT/pid" ] && break; kill -0 "$APP" 2>/dev/null || break; sleep 0.1; done
if [ ! -s "$OUT/pid" ]; then
  fail hotspot_bitmaps_app "the app did not start: $(head -c 300 "$T/pre26app.out")"; exit 0
fi
timeout 60 jcmd "$(cat "$OUT/pid")" GC.heap_dump "$T/x.hprof" >"$T/jcmd.out" 2>&1
stop_app
if [ ! -s "$T/x.hprof" ]; then
  fail hotspot_bitmaps_dump "jcmd GC.heap_dump wrote nothing: $(head -c 300 "$T/jcmd.out")"; exit 0
fi
pass hotspot_bitmaps_dump

if "$HK" bitmaps "$T/x.hprof" --json --export "$T/hsex" >"$T/hs.json" 2>"$T/hs.err"; then
  pass hotspot_bitmaps_runs
else
  fail hotspot_bitmaps_runs "$(head -c 300 "$T/hs.err")"
fi
# byptr PTR FIELD: one field of the row whose native_ptr is PTR
byptr() { jq -r --arg p "$1" ".bitmaps[] | select(.native_ptr == \$p) | .$2" "$T/hs.json" 2>/dev/null; }

made=$(wc -l <"$OUT/manifest.txt")
drawable=$(grep -c ' true$' "$OUT/manifest.txt")
eq hotspot_bitmaps_summary "$(jq -r '.summary | "\(.count) \(.drawable) \(.with_image) \(.mismatched)"' "$T/hs.json" 2>/dev/null)" \
   "$made $drawable $drawable 0"
eq hotspot_bitmaps_native_ptrs "$(jq -r '[.bitmaps[].native_ptr] | sort | join(" ")' "$T/hs.json" 2>/dev/null)" \
   "$(cut -d' ' -f1 "$OUT/manifest.txt" | sort | tr '\n' ' ' | sed 's/ $//')"

while read -r ptr label w h blen draw; do
  id=$(byptr "$ptr" id)
  eq "hotspot_${label}_size" "$(byptr "$ptr" width)x$(byptr "$ptr" height)" "${w}x$h"
  # before 26 a bitmap costs its mBuffer's length, whatever the VM's array layout
  eq "hotspot_${label}_bytes" "$(byptr "$ptr" bytes)" "$blen"
  if [ "$draw" == true ]; then
    eq "hotspot_${label}_source" "$(byptr "$ptr" source)" mbuffer
    eq "hotspot_${label}_sha256" "$(byptr "$ptr" pixels_sha256)" "$(sha256sum "$OUT/$ptr.rgba" | cut -c1-64)"
    # the exported PNG holds the app's pixels: exact where alpha is 0 or 255, +-1 elsewhere
    if [ -n "$id" ] && "$CMP" "$T/hsex/$id.png" "$OUT/$ptr.rgba" >"$T/cmp.out" 2>&1; then
      pass "hotspot_${label}_export_pixels"
    else
      fail "hotspot_${label}_export_pixels" "id '$id': $(head -c 300 "$T/cmp.out" | tr '\n' ' ')"
    fi
  else
    got="$(byptr "$ptr" source)/$(byptr "$ptr" pixels_sha256)"
    [ -n "$id" ] && [ -e "$T/hsex/$id.png" ] && got="$got/exported"
    eq "hotspot_${label}_no_image" "$got" "null/null"
  fi
done <"$OUT/manifest.txt"
eq hotspot_recycled_reason "$(byptr 0x1004 reason)" recycled

# Checks genhprof's dumps with an independent record walker (fixtures/hprof_walk): every record
# length lands exactly, counts/roots/heaps/histogram equal the --expect JSON, no reference dangles,
# strong reachability matches the facts, and the scenario details (origin, strings, bitmap field
# lists, pixels, PNGs, Cleaners, graph edges) are really in the file.
source "$SRC/tests/lib.sh"
WALK="$BUILD/fixtures/hprof_walk"
needs fixtures "$GEN" "$WALK" jq || exit 0
PY=$(command -v python3 || true)

# walk-value KEY FILE.walk
wv() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# pixel and PNG decoders, written independently of the generator (python3 ships with meson)
cat >"$T/px.py" <<'EOF'
import sys, zlib, struct
def png_rgba(data):
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, w, h = 8, b'', 0, 0
    while pos < len(data):
        n, typ = struct.unpack('>I4s', data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]; pos += 12 + n
        if typ == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10]); assert depth == 8 and ctype == 6, 'want RGBA8'
        elif typ == b'IDAT': idat += body
    raw, out, prev, st = zlib.decompress(idat), bytearray(), bytearray(w * 4), w * 4
    for y in range(h):
        f, line = raw[y * (st + 1)], bytearray(raw[y * (st + 1) + 1:(y + 1) * (st + 1)])
        for i in range(st):
            a = line[i - 4] if i >= 4 else 0; b = prev[i]; c = prev[i - 4] if i >= 4 else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line; prev = line
    return w, h, bytes(out)
def mbuffer(buf, w, h, premul):
    n = len(buf) // (w * h); out = bytearray()
    for k in range(w * h):
        if n == 1: out += bytes((0, 0, 0, buf[k]))
        elif n == 2:
            v = buf[2 * k] | buf[2 * k + 1] << 8; r, g, b = v >> 11, (v >> 5) & 63, v & 31
            out += bytes((r << 3 | r >> 2, g << 2 | g >> 4, b << 3 | b >> 2, 255))
        elif n == 4:
            r, g, b, a = buf[4 * k:4 * k + 4]
            if premul and a not in (0, 255): r, g, b = [min(255, (x * 255 + a // 2) // a) for x in (r, g, b)]
            out += bytes((r, g, b, a) if a else (0, 0, 0, 0))
        else: raise SystemExit('undecodable')
    return bytes(out)
cmd = sys.argv[1]
if cmd == 'png':
    w, h, px = png_rgba(open(sys.argv[2], 'rb').read())
    if len(sys.argv) > 3: open(sys.argv[3], 'wb').write(px)
    print(w, h)
elif cmd == 'mbuffer':
    sys.stdout.buffer.write(mbuffer(open(sys.argv[2], 'rb').read(), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == 'true'))
EOF

check() { # SCENARIO IDSIZE [ARGS...]
  local s=$1 is=$2; shift 2
  local n="${s}_id$is" b="$T/$s-$is"
  if ! "$GEN" --scenario "$s" -o "$b.hprof" --id-size "$is" --expect "$b.json" --pixels-dir "$b.px" "$@" 2>"$b.err"; then
    fail "gen_$n" "$(head -c 300 "$b.err")"; return 1
  fi
  pass "gen_$n"
  if jq -e '.counts and .histogram and .origin and .labels and .facts and .roots and .heap_objects' "$b.json" >/dev/null 2>&1 \
     && [ "$(jq .id_size "$b.json")" = "$is" ]; then pass "json_$n"; else fail "json_$n" "expect JSON does not parse or lacks keys"; fi
  if ! "$WALK" "$b.hprof" >"$b.walk" 2>"$b.werr"; then fail "walk_$n" "$(head -c 300 "$b.werr")"; return 1; fi
  if [ "$(wv id_size "$b.walk")" = "$is" ] && [ "$(stat -c %s "$b.hprof")" = "$(jq .file_bytes "$b.json")" ] \
     && [ "$(wv heap_dump_ends "$b.walk")" = 1 ] && [ "$(wv unknown_records "$b.walk")" = 1 ]; then pass "walk_$n"
  else fail "walk_$n" "id size, file size, HEAP_DUMP_END or unknown record wrong"; fi
  # counts, roots by kind, objects per heap
  { for k in classes instances object_arrays primitive_arrays primitive_arrays_nodata gc_roots strings load_classes \
       stack_frames stack_traces heap_dump_segments heap_dump_infos; do echo "$k $(jq ".counts.$k" "$b.json")"; done
    jq -r '.roots | to_entries[] | "root.\(.key) \(.value)"' "$b.json"
    jq -r '.heap_objects | to_entries[] | .key as $h | .value | to_entries[] | "heap.\($h).\(.key) \(.value)"' "$b.json"
  } | sort >"$b.want"
  { grep -E '^(classes|instances|object_arrays|primitive_arrays|primitive_arrays_nodata|gc_roots|strings|load_classes|stack_frames|stack_traces|heap_dump_segments|heap_dump_infos|root\.|heap\.)' "$b.walk"; } | sort >"$b.got"
  if cmp -s "$b.want" "$b.got"; then pass "counts_$n"; else fail "counts_$n" "$(diff "$b.want" "$b.got" | head -5 | tr '\n' ' ')"; fi
  jq -r '.histogram[] | "hist \(.count) \(.shallow_bytes) \(.class)"' "$b.json" | sort >"$b.hwant"
  grep '^hist ' "$b.walk" | sort >"$b.hgot"
  if cmp -s "$b.hwant" "$b.hgot"; then pass "histogram_$n"; else fail "histogram_$n" "$(diff "$b.hwant" "$b.hgot" | head -5 | tr '\n' ' ')"; fi
  if [ "$(wv dangling_refs "$b.walk")" = 0 ] && [ "$(wv bad_instance_lengths "$b.walk")" = 0 ]; then pass "refs_$n"
  else fail "refs_$n" "dangling $(wv dangling_refs "$b.walk"), bad instance lengths $(wv bad_instance_lengths "$b.walk")"; fi
  eq "reachability_$n" "$(wv unreachable_objects "$b.walk")" "$(jq .facts.strongly_unreachable_objects "$b.json")"
  # every label names an object in the file (big's labels are demo's)
  local bad=""
  [ "$s" = big ] && return 0
  for id in $(jq -r '.labels[]' "$b.json"); do
    "$WALK" --object "$id" "$b.hprof" >/dev/null 2>&1 || "$WALK" --array "$id" "$b.hprof" >/dev/null 2>&1 || bad="$bad $id"
  done
  if [ -z "$bad" ]; then pass "labels_$n"; else fail "labels_$n" "no object for$bad"; fi
}

# field F of object ID in FILE (hex value)
field() { "$WALK" --object "$2" "$3" | awk -v f="$1" '($1 == "field" || $1 == "static") && $2 == f { print $4; exit }'; }
# bytes of the String object ID, as hex
strhex() { local v; v=$(field value "$1" "$2"); "$WALK" --array "$v" "$2" | od -An -tx1 -v | tr -d ' \n'; }

for is in 4 8; do
  check demo $is
  check app $is --grow 3
  check noorigin $is
  check graph $is
  check chain $is --objects 5000
  check bitmaps-pre26 $is
  check bitmaps-api29 $is
  check bitmaps-api35 $is
  check bitmaps-many $is --objects 3 --width 64 --height 32
  check leaks $is --objects 20
  check big $is --size-mb 8
done

# ---- demo: origin really readable the way a reader finds it ----
b="$T/demo-8"
bid=$(jq -r '.classes["android.os.Build"].id' "$b.json")
fp=$(field FINGERPRINT "$bid" "$b.hprof")
eq demo_origin_fingerprint "$(strhex "$fp" "$b.hprof")" "$(printf '%s' "$(jq -r .origin.fingerprint "$b.json")" | od -An -tx1 -v | tr -d ' \n')"
sdk=$(field SDK_INT "$(jq -r '.classes["android.os.Build$VERSION"].id' "$b.json")" "$b.hprof")
eq demo_origin_sdk "$((sdk))" "$(jq .origin.sdk "$b.json")"
at=$(field sCurrentActivityThread "$(jq -r '.classes["android.app.ActivityThread"].id' "$b.json")" "$b.hprof")
bind=$(field mBoundApplication "$at" "$b.hprof")
proc=$(field processName "$bind" "$b.hprof")
eq demo_origin_process "$(strhex "$proc" "$b.hprof")" "$(printf 'com.example.demo' | od -An -tx1 -v | tr -d ' \n')"
eq noorigin_origin "$(jq -c '[.origin.sdk,.origin.fingerprint,.origin.manufacturer,.origin.model,.origin.process]' "$T/noorigin-4.json")" "[null,null,null,null,null]"
err noorigin_no_build "no class" "$WALK" --class android.os.Build "$T/noorigin-4.hprof"
eq demo_root_kinds "$(grep -c '^root\.' "$T/demo-4.walk")" 16
eq demo_heaps "$(jq -c .counts.heaps "$T/demo-4.json")" '["zygote","image","app"]'
ok demo_nodata test "$(wv primitive_arrays_nodata "$T/demo-4.walk")" -ge 1

# ---- strings in ART layout ----
for is in 4 8; do
  b="$T/demo-$is"
  u=$(jq -r .labels.str_utf16 "$b.json"); c=$(jq -r .labels.str_compressed "$b.json")
  eq "string_utf16_count_id$is" "$(($(field count "$u" "$b.hprof")))" "$(( (13 << 1) | 1 ))"
  eq "string_utf16_chars_id$is" "$(strhex "$u" "$b.hprof")" "$(printf 'h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93' | iconv -f UTF-8 -t UTF-16BE | od -An -tx1 -v | tr -d ' \n')"
  eq "string_compressed_count_id$is" "$(($(field count "$c" "$b.hprof")))" "$(( 12 << 1 ))"
  eq "string_compressed_bytes_id$is" "$(strhex "$c" "$b.hprof")" "$(printf 'Hello, heap!' | od -An -tx1 -v | tr -d ' \n')"
done

# ---- Bitmap field lists per era ----
fields_of() { "$WALK" --class "$1" "$2" | awk '$1 == "ifield" { print $2 }' | sort | tr '\n' ' '; }
common="mDensity mHeight mNativePtr mNinePatchChunk mNinePatchInsets mRecycled mRequestPremultiplied mWidth"
want() { echo "$common $*" | tr ' ' '\n' | grep . | sort | tr '\n' ' '; }
eq bitmap_fields_api23 "$(fields_of android.graphics.Bitmap "$T/bitmaps-pre26-4.hprof")" "$(want mBuffer mIsMutable)"
eq bitmap_fields_api29 "$(fields_of android.graphics.Bitmap "$T/bitmaps-api29-4.hprof")" "$(want mColorSpace)"
eq bitmap_fields_api35 "$(fields_of android.graphics.Bitmap "$T/bitmaps-api35-4.hprof")" "$(want mColorSpace)"
eq dumpdata_fields "$(fields_of 'android.graphics.Bitmap$DumpData' "$T/bitmaps-api35-4.hprof")" "buffers count format natives "
ok bitmap_dumpdata_static grep -q '^static dumpData 2 ' <("$WALK" --class android.graphics.Bitmap "$T/bitmaps-api35-4.hprof")

# ---- pre-26 pixels: decoding mBuffer by bytes-per-pixel gives the generator's expected pixels ----
if [ -z "$PY" ]; then skip pre26_pixels "python3 not found"; else
  for is in 4 8; do
    b="$T/bitmaps-pre26-$is"; bad=""; n=0
    while read -r id w h buf premul; do
      "$WALK" --array "$buf" "$b.hprof" >"$T/buf.bin"
      "$PY" "$T/px.py" mbuffer "$T/buf.bin" "$w" "$h" "$premul" >"$T/dec.rgba" && cmp -s "$T/dec.rgba" "$b.px/$id.rgba" || bad="$bad $id"
      n=$((n + 1))
    done < <(jq -r '.facts.bitmaps[] | select(.expect_image) | "\(.id) \(.width) \(.height) \(.buffer_id) \(.premultiplied)"' "$b.json")
    if [ -z "$bad" ] && [ "$n" = 5 ]; then pass "pre26_pixels_id$is"; else fail "pre26_pixels_id$is" "decoded $n, differing:$bad"; fi
  done
  eq pre26_undecodable "$(jq -c '[.facts.bitmaps[] | select(.expect_image | not) | .bytes_per_pixel]' "$T/bitmaps-pre26-4.json")" "[9,32,4,0]"
fi

# ---- API 35: dumpData PNGs match the bitmaps by pointer, except the reused pointer ----
if [ -z "$PY" ]; then skip api35_pngs "python3 not found"; else
  for is in 4 8; do
    b="$T/bitmaps-api35-$is"
    dd=$(jq -r .labels.dump_data "$b.json")
    count=$(($(field count "$dd" "$b.hprof")))
    "$WALK" --array "$(field natives "$dd" "$b.hprof")" "$b.hprof" | od -An -tx1 -v | tr -d ' \n' | fold -w16 >"$T/natives"
    "$WALK" --array "$(field buffers "$dd" "$b.hprof")" "$b.hprof" >"$T/buffers"
    good=0; mism=0; bad=""
    while read -r id w h ptr exp; do
      want=$(printf '%016x' "$ptr")
      slot=$(grep -n "^$want\$" "$T/natives" | head -1 | cut -d: -f1)
      [ -z "$slot" ] && continue
      [ "$slot" -gt "$count" ] && bad="$bad slot-past-count"
      "$WALK" --array "$(sed -n "${slot}p" "$T/buffers")" "$b.hprof" >"$T/img.png"
      dims=$("$PY" "$T/px.py" png "$T/img.png" "$T/img.rgba")
      if [ "$dims" = "$w $h" ]; then
        if [ "$exp" = true ] && cmp -s "$T/img.rgba" "$b.px/$id.rgba"; then good=$((good + 1)); else bad="$bad $id"; fi
      else mism=$((mism + 1)); [ "$exp" = true ] && bad="$bad $id"; fi
    done < <(jq -r '.facts.bitmaps[] | "\(.id) \(.width) \(.height) \(.native_ptr) \(.expect_image)"' "$b.json")
    tail=$(sed -n "$((count + 1)),\$p" "$T/natives" | sort -u | tr '\n' ' ')
    if [ "$good" = 4 ] && [ "$mism" = 1 ] && [ -z "$bad" ] && [ "$tail" = "0000000000000000 " ] \
       && [ "$(sed -n "$((count + 1)),\$p" "$T/buffers" | sort -u)" = 0x0 ]; then pass "api35_pngs_id$is"
    else fail "api35_pngs_id$is" "good $good mismatched $mism bad:$bad tail:$tail"; fi
  done
fi

# ---- API 29: Cleaner -> thunk -> NativeAllocationRegistry.size is the native size ----
for is in 4 8; do
  b="$T/bitmaps-api29-$is"; bad=""; n=0
  while read -r id cl size; do
    th=$(field thunk "$cl" "$b.hprof"); nar=$(field 'this$0' "$th" "$b.hprof")
    [ "$(field referent "$cl" "$b.hprof")" = "$id" ] && [ "$(($(field size "$nar" "$b.hprof")))" = "$size" ] || bad="$bad $id"
    n=$((n + 1))
  done < <(jq -r '.facts.bitmaps[] | select(.cleaner_id) | "\(.id) \(.cleaner_id) \(.native_size)"' "$b.json")
  if [ -z "$bad" ] && [ "$n" = 4 ]; then pass "api29_cleaners_id$is"; else fail "api29_cleaners_id$is" "checked $n, wrong:$bad"; fi
done

# ---- graph: every edge in the facts is a real field value ----
for is in 4 8; do
  b="$T/graph-$is"; bad=""
  while read -r from f to; do
    [ "$(field "$f" "$(jq -r ".labels[\"$from\"]" "$b.json")" "$b.hprof")" = "$(jq -r ".labels[\"$to\"]" "$b.json")" ] || bad="$bad $from.$f"
  done < <(jq -r '.facts.edges[] | "\(.[0]) \(.[1]) \(.[2])"' "$b.json")
  if [ -z "$bad" ]; then pass "graph_edges_id$is"; else fail "graph_edges_id$is" "wrong:$bad"; fi
done

# ---- big: size, object sizes, garbage share, determinism ----
b="$T/big-4"
sz=$(stat -c %s "$b.hprof"); objs=$(jq .counts.objects "$b.json")
ok big_size test "$sz" -gt $((7 << 20)) -a "$sz" -le $((9 << 20))
ok big_bytes_per_object test $((sz / objs)) -ge 30 -a $((sz / objs)) -le 90
g=$(jq '.facts.filler.garbage_objects * 1000 / .facts.filler.objects | floor' "$b.json")
ok big_garbage_share test "$g" -ge 20 -a "$g" -le 100
"$GEN" --scenario big --size-mb 8 -o "$T/big-again.hprof" 2>/dev/null
ok big_deterministic cmp -s "$b.hprof" "$T/big-again.hprof"

# ---- chain of a million links, 8-byte ids ----
start=$(date +%s)
if "$GEN" --scenario chain --objects 1000000 --id-size 8 -o "$T/chain1m.hprof" --expect "$T/chain1m.json" 2>/dev/null \
   && "$WALK" "$T/chain1m.hprof" >"$T/chain1m.walk"; then
  eq chain_1m "$(wv instances "$T/chain1m.walk") $(wv unreachable_objects "$T/chain1m.walk") $(jq .facts.length "$T/chain1m.json")" "1000000 0 1000000"
else fail chain_1m "generating or walking failed"; fi
ok chain_1m_fast test $(( $(date +%s) - start )) -lt 60

# ---- errors ----
err gen_unknown_scenario "unknown scenario" "$GEN" --scenario nosuch -o "$T/x.hprof"
err gen_bad_id_size "id-size" "$GEN" --scenario demo --id-size 5 -o "$T/x.hprof"
err gen_missing_output "required" "$GEN" --scenario demo
err gen_bad_dir "cannot create" "$GEN" --scenario demo -o "$T/no/such/dir/x.hprof"
ok gen_no_partial_files test -z "$(ls "$T" | grep -E '\.tmp')"

# ---- the walker rejects a truncated dump ----
head -c 5000 "$T/demo-4.hprof" >"$T/trunc.hprof"
err walk_truncated "past the end|truncated|overrun" "$WALK" "$T/trunc.hprof"

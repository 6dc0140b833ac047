# Bitmaps: enumeration, mbuffer decoding, dumpData, the sidecar and Lua sources,
# the pointer join with its size check, export, hashes, duplicates, the real 2015 dump.
. "$SRC/tests/lib.sh"
CMP="$BUILD/tests/bitmap/bm_pngcmp"
WALK="$BUILD/fixtures/hprof_walk"
REAL="$REALDATA/hprof/leakcanary-leak_service_binder.hprof"

# the decoder's own unit checks (PASS/FAIL lines); a crash or a missing program is a failure too
"$BUILD/tests/bitmap/bm_decode_check" || fail bm-decode-check-exit "bm_decode_check exited $? (see the lines above)"

# jqf FILE FILTER
jqf() { jq -r "$2" "$1" 2>/dev/null; }
# row FILE ID FIELD: one field of one bitmap row
row() { jq -r --arg id "$2" ".bitmaps[] | select(.id == \$id) | .$3" "$1" 2>/dev/null; }

for ids in 4 8; do
  s="_ids$ids"
  # ---------------- pre-26: mBuffer ----------------
  "$GEN" --scenario bitmaps-pre26 --id-size $ids -o pre26$s.hprof --expect pre26$s.exp --pixels-dir px26$s >/dev/null 2>&1
  if "$HK" bitmaps pre26$s.hprof --json --export ex26$s >pre26$s.json 2>pre26$s.err; then
    pass "pre26_runs$s"
  else
    fail "pre26_runs$s" "$(head -c 300 pre26$s.err)"
  fi
  eq "pre26_summary$s" "$(jqf pre26$s.json '.summary | "\(.count) \(.drawable) \(.with_image) \(.mismatched)"')" \
     "$(jqf pre26$s.exp '.facts | "\(.count) 7 \(.with_image) 0"')"
  # every expected image: source mbuffer, hash = SHA-256 of the generator's straight RGBA,
  # and the exported PNG decodes to those pixels (exact at alpha 0/255, +-1 elsewhere)
  for label in alpha8 rgb565 argb_premul argb_straight oversized4; do
    id=$(jqf pre26$s.exp ".facts.bitmaps[] | select(.label == \"$label\") | .id")
    want=$(sha256sum "px26$s/$id.rgba" 2>/dev/null | cut -c1-64)
    eq "pre26_${label}_source$s" "$(row pre26$s.json "$id" source)" mbuffer
    eq "pre26_${label}_sha256$s" "$(row pre26$s.json "$id" pixels_sha256)" "$want"
    if "$CMP" "ex26$s/$id.png" "px26$s/$id.rgba" >cmp.out 2>&1; then pass "pre26_${label}_export_pixels$s"
    else fail "pre26_${label}_export_pixels$s" "$(head -c 300 cmp.out | tr "\n" " ")"; fi
  done
  for label in ratio9 reconfigured32 recycled zero; do
    id=$(jqf pre26$s.exp ".facts.bitmaps[] | select(.label == \"$label\") | .id")
    got="$(row pre26$s.json "$id" source)/$(row pre26$s.json "$id" pixels_sha256)"
    [ -e "ex26$s/$id.png" ] && got="$got/exported"
    eq "pre26_${label}_no_image$s" "$got" "null/null"
  done
  id=$(jqf pre26$s.exp '.facts.bitmaps[] | select(.label == "recycled") | .id')
  eq "pre26_recycled_reason$s" "$(row pre26$s.json "$id" reason)" recycled
  id=$(jqf pre26$s.exp '.facts.bitmaps[] | select(.label == "ratio9") | .id')
  case "$(row pre26$s.json "$id" reason)" in *"9 bytes per pixel, not 1, 2 or 4"*) pass "pre26_ratio9_reason$s";;
    *) fail "pre26_ratio9_reason$s" "$(row pre26$s.json "$id" reason)";; esac
  id=$(jqf pre26$s.exp '.facts.bitmaps[] | select(.label == "reconfigured32") | .id')
  case "$(row pre26$s.json "$id" reason)" in *"reconfigured smaller"*) pass "pre26_reconfigured_guess_named$s";;
    *) fail "pre26_reconfigured_guess_named$s" "$(row pre26$s.json "$id" reason)";; esac
  # bytes before 26 are mBuffer's length; the rows come biggest first
  eq "pre26_bytes_are_buffer_len$s" "$(jq -c '[.bitmaps[] | .bytes] | sort' pre26$s.json)" \
     "$(jq -c '[.facts.bitmaps[] | .buffer_len] | sort' pre26$s.exp)"
  eq "pre26_biggest_first$s" "$(jq -c '[.bitmaps[].bytes]' pre26$s.json)" "$(jq -c '[.bitmaps[].bytes] | sort | reverse' pre26$s.json)"
  eq "pre26_native_ptr$s" "$(jq -c '[.bitmaps[] | .native_ptr] | sort' pre26$s.json)" \
     "$(jq -c '[.facts.bitmaps[] | .native_ptr] | sort' pre26$s.exp)"

  # ---------------- API 29: no pixels, native bytes ----------------
  "$GEN" --scenario bitmaps-api29 --id-size $ids -o api29$s.hprof --expect api29$s.exp >/dev/null 2>&1
  "$HK" bitmaps api29$s.hprof --json >api29$s.json 2>api29$s.err
  eq "api29_summary$s" "$(jqf api29$s.json '.summary | "\(.count) \(.drawable) \(.with_image) \(.mismatched)"')" "5 4 0 0"
  eq "api29_native_bytes$s" \
     "$(jq -c '[.bitmaps[] | {id, bytes, estimated}] | sort_by(.id)' api29$s.json)" \
     "$(jq -c '[.facts.bitmaps[] | {id, bytes: (.native_size // .estimated_native_size), estimated: (.native_size == null)}] | sort_by(.id)' api29$s.exp)"
  id=$(jqf api29$s.exp '.facts.bitmaps[] | select(.label == "avatar") | .id')
  case "$(row api29$s.json "$id" reason)" in *"native memory"*) pass "api29_reason$s";;
    *) fail "api29_reason$s" "$(row api29$s.json "$id" reason)";; esac

  # sidecar: DUMP.bitmaps/0x<ptr>.png -- the right size is accepted, the wrong size is a mismatch
  mkdir -p api29$s.hprof.bitmaps
  avatar_ptr=$(jqf api29$s.exp '.facts.bitmaps[] | select(.label == "avatar") | .native_ptr')
  banner_ptr=$(jqf api29$s.exp '.facts.bitmaps[] | select(.label == "banner") | .native_ptr')
  cp ex26$s/$(jqf pre26$s.exp '.facts.bitmaps[] | select(.label == "argb_premul") | .id').png side32x16.png
  python3 - "$T/avatar.png" <<'EOF'
import struct, sys, zlib
w = h = 96
rows = b''.join(b'\x00' + b''.join(bytes((x * 2 % 256, y * 2 % 256, 77, 255)) for x in range(w)) for y in range(h))
def ch(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
open(sys.argv[1], 'wb').write(b'\x89PNG\r\n\x1a\n' + ch(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0)) +
                              ch(b'IDAT', zlib.compress(rows)) + ch(b'IEND', b''))
EOF
  cp avatar.png api29$s.hprof.bitmaps/$avatar_ptr.png
  cp side32x16.png api29$s.hprof.bitmaps/$banner_ptr.png
  "$HK" bitmaps api29$s.hprof --json --export ex29$s >side$s.json 2>side$s.err
  id=$(jqf api29$s.exp '.facts.bitmaps[] | select(.label == "avatar") | .id')
  eq "sidecar_accepted$s" "$(row side$s.json "$id" source)" sidecar
  eq "sidecar_mismatch_counted$s" "$(jqf side$s.json '.summary | "\(.with_image) \(.mismatched)"')" "1 1"
  bid=$(jqf api29$s.exp '.facts.bitmaps[] | select(.label == "banner") | .id')
  case "$(row side$s.json "$bid" reason)" in *"is 32x16, the bitmap is 720x240"*) pass "sidecar_mismatch_reason$s";;
    *) fail "sidecar_mismatch_reason$s" "$(row side$s.json "$bid" reason)";; esac
  eq "sidecar_export_copied$s" "$(cmp -s avatar.png ex29$s/$id.png && echo same)" same
  eq "sidecar_sha256$s" "$(row side$s.json "$id" pixels_sha256)" "$("$CMP" --info avatar.png | cut -d' ' -f2)"

  # ---------------- API 35: dumpData ----------------
  "$GEN" --scenario bitmaps-api35 --id-size $ids -o api35$s.hprof --expect api35$s.exp --pixels-dir px35$s >/dev/null 2>&1
  "$HK" bitmaps api35$s.hprof --json --export ex35$s >api35$s.json 2>api35$s.err
  eq "api35_summary$s" "$(jqf api35$s.json '.summary | "\(.count) \(.with_image) \(.mismatched) \(.carries_native_pixels) \(.dump_data)"')" \
     "$(jqf api35$s.exp '.facts | "\(.count) \(.with_image) \(.mismatched) true \(.dump_data.count)"')"
  for label in hero icon wide tall; do
    id=$(jqf api35$s.exp ".facts.bitmaps[] | select(.label == \"$label\") | .id")
    pid=$(jqf api35$s.exp ".labels[\"$label.png\"]")
    eq "api35_${label}_source$s" "$(row api35$s.json "$id" source)" dumpdata
    eq "api35_${label}_sha256$s" "$(row api35$s.json "$id" pixels_sha256)" "$(sha256sum px35$s/$id.rgba | cut -c1-64)"
    "$WALK" --array "$pid" api35$s.hprof >dd.png 2>/dev/null
    eq "api35_${label}_export_copied_as_is$s" "$(cmp -s dd.png ex35$s/$id.png && echo same)" same
  done
  id=$(jqf api35$s.exp '.facts.bitmaps[] | select(.label == "mismatch") | .id')
  eq "api35_mismatch_no_image$s" "$(row api35$s.json "$id" source)/$(row api35$s.json "$id" mismatches)" "null/1"
  id=$(jqf api35$s.exp '.facts.bitmaps[] | select(.label == "nopng") | .id')
  case "$(row api35$s.json "$id" reason)" in *"no entry in Bitmap.dumpData"*) pass "api35_missing_entry$s";;
    *) fail "api35_missing_entry$s" "$(row api35$s.json "$id" reason)";; esac
done

# ---------------- Lua ----------------
# a copy of the API 29 dump without the sidecar directory made above
cp api29_ids4.hprof lua29.hprof
mkdir -p luasrc/commands
hero_ptr=$(jqf api35_ids4.exp '.facts.bitmaps[] | select(.label == "hero") | .native_ptr')
cat >luasrc/commands/src.lua <<EOF
local f = io.open("$T/avatar.png", "rb"); local avatar = f:read("a"); f:close()
hk.bitmap_source{ name = "testsrc", image = function(dump, bm)
  if bm.width == 96 and bm.height == 96 then return avatar end
  return nil, "testsrc has nothing for " .. bm.id
end }
EOF
HPROFKIT_SCRIPTS="$T/luasrc" "$HK" bitmaps lua29.hprof --json >lua.json 2>lua.err
id=$(jqf api29_ids4.exp '.facts.bitmaps[] | select(.label == "avatar") | .id')
eq "lua_source_image" "$(row lua.json "$id" source)" testsrc
eq "lua_source_counts" "$(jqf lua.json '.summary.by_source.testsrc')" 1
# the example recipe: PNGs from a directory given as an argument
mkdir -p pngs; cp avatar.png pngs/$(jqf api29_ids4.exp '.facts.bitmaps[] | select(.label == "avatar") | .native_ptr').png
cp side32x16.png pngs/$(jqf api29_ids4.exp '.facts.bitmaps[] | select(.label == "banner") | .native_ptr').png
"$HK" bitmaps-from-dir lua29.hprof --dir "$T/pngs" --json >dir.json 2>dir.err
eq "lua_recipe_dir_source" "$(jqf dir.json '.summary | "\(.with_image) \(.mismatched)"')/$(row dir.json "$id" source)" "1 1/dir:$T/pngs"
# dump:bitmap_image and dump:bitmaps from a script
cat >img.lua <<'EOF'
local dump = hk.open(arg.dump)
local n = 0
for _, b in ipairs(dump:bitmaps()) do n = n + 1 end
local hero, src
for _, b in ipairs(dump:bitmaps()) do
  if b.width == 96 and b.height == 64 then hero = b end
end
local png, source = dump:bitmap_image(hero.id)
local w = string.unpack(">I4", png, 17)
local nopng, why = dump:bitmap_image("0x1")
print(n, source, w, #png > 0, nopng == nil, why ~= nil)
EOF
eq "lua_bitmaps_and_image" "$("$HK" run img.lua api35_ids4.hprof 2>&1)" "$(printf '6\tdumpdata\t96\ttrue\ttrue\ttrue')"

# ---------------- options and errors ----------------
eq "min_pixels" "$("$HK" bitmaps pre26_ids4.hprof --min-pixels 500 --json | jq -c '[.bitmaps[] | .width * .height] | sort')" "[512,512]"
touch notadir
err "export_target_not_dir" "not a directory" "$HK" bitmaps pre26_ids4.hprof --export notadir
"$HK" bitmaps pre26_ids4.hprof >table.txt 2>&1
if grep -q "with_image: *5" table.txt && grep -q "mbuffer" table.txt; then pass "table_output"; else fail "table_output" "$(head -c 300 table.txt)"; fi
eq "no_duplicates_in_fixture" "$("$HK" duplicate-bitmaps pre26_ids4.hprof --json)" "[]"

# ---------------- the real 2015 dump (API 19) ----------------
if [ ! -f "$REAL" ]; then
  skip "real_dump" "$REAL is absent"
else
  "$HK" bitmaps "$REAL" --json --export exr >real.json 2>real.err
  eq "real_summary" "$(jqf real.json '.summary | "\(.count) \(.drawable) \(.with_image) \(.mismatched)"')" "26 26 26 0"
  # decoded sizes and layouts, stable: recorded when the decoder was written (all ARGB_8888)
  eq "real_sizes_layouts" "$(jq -r '[.bitmaps[] | "\(.width)x\(.height):\(.note)"] | group_by(.) | map("\(.[0])*\(length)") | join(" ")' real.json)" \
     "44x64:ARGB_8888*16 48x48:ARGB_8888*6 5x5:ARGB_8888*2 96x96:ARGB_8888*2"
  good=0; bad=""
  for f in exr/*.png; do
    id=$(basename "$f" .png)
    got=$("$CMP" --info "$f" 2>&1)
    want="$(row real.json "$id" width)x$(row real.json "$id" height) $(row real.json "$id" pixels_sha256)"
    if [ "$got" == "$want" ]; then good=$((good + 1)); else bad="$id: $got vs $want"; fi
  done
  eq "real_export_roundtrip" "$good${bad:+ ($bad)}" 26
  eq "real_icon_sha256" "$(row real.json 0xb0f93f80 pixels_sha256)" ae7b5a718b4a4ca54b4c403e5c749285ca250ee0f11631e37101a1b0b785b56f
  eq "real_duplicates" "$("$HK" duplicate-bitmaps "$REAL" --json | jq -c '[.[] | {count, wasted_bytes, ids}]')" \
     '[{"count":2,"wasted_bytes":36864,"ids":["0xb0f93f80","0xb0f9e288"]}]'
fi

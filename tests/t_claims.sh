# Claims bigger than the file: an array of 4 G elements, a record or string longer
# than the file, a segment past its end, a trace declaring more than it holds are refused at
# once with one line, never by allocating the claimed size (ASan is told to fail any allocation
# over 256 MiB, which would surface as "out of memory"); HEAP SUMMARY stays advisory.
# Compressed inputs: a .gz or a trace's zlib block expanding over 100 times (past 64 MiB) is
# refused, HPROFKIT_GZIP_RATIO=0 lifts it.  In the release build under `ulimit -v` 1 GiB the
# real dumps still work and a bigger input ends in "out of memory", one line, exit 1.
. "$SRC/tests/lib.sh"
python3 "$SRC/tests/hprof/claims.py" . || { fail claims-gen "claims.py failed"; exit 0; }
export ASAN_OPTIONS="$ASAN_OPTIONS:max_allocation_size_mb=256:allocator_may_return_null=1"
# refused NAME PATTERN FILE: exit 1, one line on stderr matching PATTERN, quickly
refused() {
  timeout 60 "$HK" histogram "$3" > /dev/null 2> "$1.err"; local rc=$?
  if [ $rc -eq 1 ] && [ "$(wc -l < "$1.err")" -eq 1 ] && grep -qE -- "$2" "$1.err"; then pass "claim-$1"
  else fail "claim-$1" "status $rc: $(head -c 300 "$1.err")"; fi
}
refused prim-4g "sub-record 0x23 runs past the end of its heap dump record" prim-4g.hprof
refused objarr-1g "sub-record 0x22 runs past the end of its heap dump record" objarr-1g.hprof
refused instance-4g "sub-record 0x21 runs past the end of its heap dump record" instance-4g.hprof
refused string-past-eof "record 0x01 claims 4294967280 bytes but only 7 remain: the dump is truncated" string-past-eof.hprof
refused segment-past-eof "record 0x1c claims 2147483647 bytes but only 43 remain" segment-past-eof.hprof
refused class-65535-fields "CLASS_DUMP runs past the end of its heap dump record" class-65535-fields.hprof
refused trace-packet-1g "a Perfetto trace cut short: its first packet declares 1073741824 bytes, only 16 follow" trace-packet-1g.pftrace
ok heap-summary-advisory "$HK" info heap-summary-2g.hprof
refused gzip-bomb "bomb.hprof.gz: the gzip stream expands past 7[0-9] MiB, over 100 times its [0-9]+ KiB: refused as a decompression bomb" bomb.hprof.gz
# the override reads it all (zeros: then not a dump), and a real dump gzip'd opens as ever
HPROFKIT_GZIP_RATIO=0 timeout 120 "$HK" info bomb.hprof.gz > /dev/null 2> over.err
grep -q "decompression bomb" over.err && fail gzip-ratio-override "$(cat over.err)" || pass gzip-ratio-override
"$HK" info trace-zlib-bomb.pftrace > /dev/null 2> zb.err
grep -qE "a compressed block of [0-9]+ bytes expands past [0-9]+ MiB: refused as a decompression bomb" zb.err \
  && pass trace-zlib-bomb || fail trace-zlib-bomb "$(head -c 300 zb.err)"

# the release build under ulimit -v 1 GiB (ASan reserves more address space than that)
release_tree || { fail release-build "$(tail -3 "$T/release.log")"; exit 0; }
limited() { (ulimit -v 1048576; "$@"); }
if [ -d "$REALDATA/hprof" ]; then
  bad=""
  for d in "$REALDATA"/hprof/*.hprof; do
    for q in info histogram top leaks reachability; do
      limited "$REL/hprofkit" $q "$d" > /dev/null 2> q.err || bad="$bad $q:$(basename "$d"):$(head -c 100 q.err)"
    done
  done
  eq real-dumps-in-1gib "${bad:-none}" none
else skip real-dumps-in-1gib "needs $REALDATA/hprof"; fi
HPROFKIT_GZIP_RATIO=0 limited "$REL/hprofkit" info bomb.hprof.gz > /dev/null 2> oom.err; rc=$?
eq oom-status "$rc" 1
eq oom-one-line "$(cat oom.err)" "hprofkit: out of memory (the input needs more memory than the system or ulimit -v allows)"
echo 'local t = {} for i = 1, 1e9 do t[i] = i end' > eat.lua
limited "$REL/hprofkit" run eat.lua > /dev/null 2> lua-oom.err; rc=$?
eq lua-oom "$rc:$(cat lua-oom.err)" "1:hprofkit run: not enough memory"

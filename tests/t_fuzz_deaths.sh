# A libFuzzer run of the death parsers (plugins/deaths: logcat lines of every layout, the
# event-log payloads, exit-info), seeded with the real device text in
# ../shared/reference/logcat/ and the formats FORMATS.md describes, cut and joined.
. "$SRC/tests/lib.sh"
needs fuzz-deaths clang || exit 0
. "$SRC/tests/fuzz/targets.sh"
fuzz_test_build fuzz-deaths deaths ./fuzz_deaths || exit 0
mkdir -p corpus
cp "$SRC"/tests/fuzz/corpus-deaths/* corpus/ 2>/dev/null   # inputs that once crashed it
REF="$SRC/../shared/reference/logcat"
[ -d "$REF" ] && cp "$REF"/*.log "$REF"/*.txt corpus/
cat >corpus/formats.log <<'EOS'
        1700000000.500  1000  1234 I lowmemorykiller: Kill 'com.example.app' (4242), uid 10190, oom_score_adj 905 to free 51234kB rss, 1234kB swap; reason: device is low on swap (0kB < 314572kB) and thrashing (27%)
        1700000000.501  1000  1234 I killinfo: [4242,10190,905,200,51234,2,12000,40000,100,2000,300,400,1048576,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24]
11-14 22:13:20.500  1000  1020 I am_kill : [0,4242,com.example.app,905,empty #17,51234]
11-14 22:13:20.500  1000  1020 I am_proc_died: [0,4242,com.example.app,905,19]
11-14 22:13:20.500  1000  1020 I am_mem_factor: [3,2]
11-14 22:13:20.500  1000  1020 I am_low_memory: 18
<6>[ 1234.567890] lowmemorykiller: Killing 'RenderThread' (4242), adj 1000,
<6>[ 1234.567891]    to free 51234kB on behalf of 'kswapd0' (87) because
<6>[ 1234.567892]    cache 12345kB is below limit 20000kB for oom_score_adj 900
<6>[ 1234.567893]    Free memory is 1234kB above reserved
I/lowmemorykiller(  240): Killing 'com.example.app' (4242), uid 10190, adj 15
I/lowmemorykiller(  240):    to free 51234kB because cache 12345kB is below limit 20000kB for oom_adj 9
E/AndroidRuntime( 4242): FATAL EXCEPTION: main
E/AndroidRuntime( 4242): Process: com.example.app, PID: 4242
F/libc    ( 4242): Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 4242 (main), pid 4242 (com.example.app)
EOS
cat >corpus/exitinfo.txt <<'EOS'
ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)
  package: com.example.app
    Historical Process Exit for uid=10190
        ApplicationExitInfo #0:
          timestamp=2023-11-14 22:13:20.500
          pid=4242
          reason=3 (LOW_MEMORY)
          subreason=0 (UNKNOWN)
          status=0
          importance=400
          pss=49MB
          rss=1.9GB
          description=lmk
        ApplicationExitInfo #1: timestamp=2023-11-14 22:13:20.500 pid=4242 realUid=10190 user=0
          process=com.example.app reason=13 (OTHER KILLS BY SYSTEM) subreason=3 (TOO MANY EMPTY PROCS) status=0
          importance=400 pss=0.00 rss=512KB description=empty #17 state=empty trace=null
EOS
head -c 700 corpus/formats.log > corpus/cut.log
printf 'I killinfo: [4242,10190,9\n\x00\xff am_kill : [,,,\n' > corpus/junk.log
secs=${HK_FUZZ_DEATHS_SECONDS:-15}
./fuzz_deaths -max_total_time=$secs -max_len=8192 -rss_limit_mb=1024 -print_final_stats=1 corpus >fuzz.log 2>&1
if [ $? -eq 0 ]; then
  pass "fuzz-deaths-${secs}s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' fuzz.log | grep -o '[0-9]*$') runs)"
else
  fail fuzz-deaths "libFuzzer found a crash: $(grep -m3 -E 'ERROR|SUMMARY|runtime error' fuzz.log | tr '\n' ' ')"
  mkdir -p "$SRC/tests/fuzz/corpus-deaths"
  cp crash-* "$SRC/tests/fuzz/corpus-deaths/" 2>/dev/null   # kept as seeds: commit them with the fix
fi

/* libFuzzer target: the Perfetto trace reader alone, without the HPROF index behind it (the
 * HPROF target reaches it only for inputs that then index): walking packets (plain, zlib and
 * zstd blocks), and turning a trace into HPROF bytes, for the first process and for a picked
 * pid, process name and dump in time.  Traps on answers no correct reader gives. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace/trace.h"

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) __builtin_trap();                                                                                 \
    } while (0)

static int count_packet(void *ctx, const uint8_t *p, size_t n, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    CHECK(p != NULL || n == 0);
    ++*(uint64_t *)ctx;
    return 0;
}

static void no_warn(void *ctx, const char *msg)
{
    (void)ctx;
    CHECK(msg && *msg);
}

static void convert(const uint8_t *data, size_t size)
{
    hk_trace_result res = {.hprof_fd = -1};
    char err[512];
    err[0] = 0;
    if (hk_trace_to_hprof(data, size, "fuzz.pftrace", &res, err, sizeof err) == 0) {
        if (res.hprof_fd < 0) CHECK(res.hprof.len >= 19);
        for (size_t i = 0; i < res.nimages; i++) CHECK(res.images[i].png.len == 0 || res.images[i].png.data);
    } else {
        CHECK(err[0]);
    }
    hk_trace_result_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t seen = 0;
    hk_trace_walk w = {.packet = count_packet, .warn = no_warn, .ctx = &seen};
    char err[512];
    /* a packet that holds compressed blocks is counted but handed over as the packets inside */
    if (hk_trace_walk_packets(&w, data, size, err, sizeof err) == 0) CHECK(seen <= w.packets);
    (void)hk_trace_probe(data, size);
    /* the first byte picks which process and dump in time, as --trace-pid/-process/-dump do */
    unsigned pick = size ? data[0] % 4 : 0;
    hk_trace_select(pick == 1 ? 2 : 0, pick == 2 ? "com.example" : NULL);
    hk_trace_select_dump(pick == 3 ? "1" : NULL);
    convert(data, size);
    hk_trace_select(0, NULL);
    hk_trace_select_dump(NULL);
    return 0;
}

/* Writes small malformed HPROF files, one per defect, for the reader's error tests. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static FILE *f;
static void u1(unsigned v)
{
    fputc((int)v, f);
}
static void u2(unsigned v)
{
    u1(v >> 8);
    u1(v & 0xff);
}
static void u4(uint32_t v)
{
    u2(v >> 16);
    u2(v & 0xffff);
}

static void header(void)
{
    fwrite("JAVA PROFILE 1.0.3", 1, 19, f);
    u4(4);
    u4(0);
    u4(0);
}
static void rec(int tag, uint32_t len)
{
    u1((unsigned)tag);
    u4(0);
    u4(len);
}
static void string_rec(uint32_t id, const char *s)
{
    rec(0x01, 4 + (uint32_t)strlen(s));
    u4(id);
    fwrite(s, 1, strlen(s), f);
}
/* a class with no fields: 1+4+4+6*4+4+2+2+2 = 43 bytes */
static void class_dump(uint32_t id, uint32_t super)
{
    u1(0x20);
    u4(id);
    u4(0);
    u4(super);
    for (int i = 0; i < 5; i++) u4(0);
    u4(8);
    u2(0);
    u2(0);
    u2(0);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mkbad KIND FILE\n");
        return 2;
    }
    const char *k = argv[1];
    f = fopen(argv[2], "wb");
    if (!f) return 1;
    header();
    string_rec(1, "java.lang.Object");
    rec(0x02, 16);
    u4(1);
    u4(0x100);
    u4(0);
    u4(1);
    if (!strcmp(k, "unknown-subtag")) {
        rec(0x1c, 43 + 5);
        class_dump(0x100, 0);
        u1(0x77);
        u4(0x200);
        rec(0x2c, 0);
    } else if (!strcmp(k, "dangling-class")) {
        /* an instance whose class id is nowhere */
        rec(0x1c, 43 + 17);
        class_dump(0x100, 0);
        u1(0x21);
        u4(0x300);
        u4(0);
        u4(0x999);
        u4(0);
        rec(0x2c, 0);
    } else if (!strcmp(k, "dangling-super")) {
        rec(0x1c, 43);
        class_dump(0x100, 0x555);
        rec(0x2c, 0);
    } else if (!strcmp(k, "long-record")) {
        rec(0x1c, 1000);
        class_dump(0x100, 0);
    } else if (!strcmp(k, "sub-overrun")) {
        /* an instance claiming 100 bytes of fields inside a 60-byte segment */
        rec(0x1c, 43 + 17);
        class_dump(0x100, 0);
        u1(0x21);
        u4(0x300);
        u4(0);
        u4(0x100);
        u4(100);
        rec(0x2c, 0);
    } else if (!strcmp(k, "duplicate-id")) {
        rec(0x1c, 43 + 17 + 17);
        class_dump(0x100, 0);
        u1(0x21);
        u4(0x300);
        u4(0);
        u4(0x100);
        u4(0);
        u1(0x21);
        u4(0x300);
        u4(0);
        u4(0x100);
        u4(0);
        rec(0x2c, 0);
    } else if (!strcmp(k, "null-id")) {
        rec(0x1c, 43 + 17);
        class_dump(0x100, 0);
        u1(0x21);
        u4(0);
        u4(0);
        u4(0x100);
        u4(0);
        rec(0x2c, 0);
    } else if (!strcmp(k, "bad-idsize")) {
        fseek(f, 19, SEEK_SET);
        u4(5);
    } else if (!strcmp(k, "no-end")) {
        rec(0x1c, 43);
        class_dump(0x100, 0);
    } else if (!strcmp(k, "unknown-record")) {
        /* an unknown top-level record is skipped by its length: this one is valid */
        rec(0x42, 3);
        u1(1);
        u1(2);
        u1(3);
        rec(0x1c, 43);
        class_dump(0x100, 0);
        rec(0x2c, 0);
    } else {
        fprintf(stderr, "mkbad: unknown kind %s\n", k);
        return 2;
    }
    return fclose(f) == 0 ? 0 : 1;
}

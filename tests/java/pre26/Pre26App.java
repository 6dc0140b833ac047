import android.graphics.Bitmap;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Pre26App OUTDIR: makes pre-API-26 style bitmaps (pixels in Bitmap.mBuffer) in every layout
 * hprofkit's mbuffer plugin decodes, writes what it expects back for each one, keeps them all
 * reachable and sleeps until killed, so a test can take a HotSpot heap dump of it.
 *
 * The dump's object ids are not known here, so every bitmap gets a distinct mNativePtr
 * (0x1000 + i) and the expected files are keyed by it:
 *   OUTDIR/0x<ptr>.rgba   straight RGBA8888, row after row (drawable bitmaps only)
 *   OUTDIR/manifest.txt   one line per bitmap: 0x<ptr> label width height buffer_len drawable
 *   OUTDIR/pid            this JVM's pid, written last (the test waits for it)
 */
public final class Pre26App {
    /** Reachable from a static: the heap dump must hold every bitmap. */
    static final List<Bitmap> BITMAPS = new ArrayList<>();

    private static Path out;
    private static PrintWriter manifest;

    private static void add(String label, Bitmap bm, byte[] bufferForLen, byte[] expectedRgba) throws IOException {
        BITMAPS.add(bm);
        String ptr = "0x" + Long.toHexString(bm.getNativePtr());
        boolean drawable = expectedRgba != null;
        manifest.printf("%s %s %d %d %d %b%n", ptr, label, bm.getWidth(), bm.getHeight(),
                bufferForLen == null ? 0 : bufferForLen.length, drawable);
        if (drawable) Files.write(out.resolve(ptr + ".rgba"), expectedRgba);
    }

    private static void put(byte[] rgba, int i, int r, int g, int b, int a) {
        rgba[4 * i] = (byte) r;
        rgba[4 * i + 1] = (byte) g;
        rgba[4 * i + 2] = (byte) b;
        rgba[4 * i + 3] = (byte) a;
    }

    /** ALPHA_8: one byte per pixel, a mask drawn black. */
    static void alpha8(long ptr) throws IOException {
        int w = 7, h = 5;
        byte[] buf = new byte[w * h];
        byte[] want = new byte[w * h * 4];
        for (int i = 0; i < w * h; i++) {
            int a = i == 0 ? 0 : i == 1 ? 255 : (i * 37 + 11) & 0xff;
            buf[i] = (byte) a;
            put(want, i, 0, 0, 0, a);
        }
        add("alpha8", new Bitmap(ptr, w, h, buf, true), buf, want);
    }

    /** RGB_565: two bytes per pixel, little-endian, widened by bit replication. */
    static void rgb565(long ptr) throws IOException {
        int w = 9, h = 4;
        byte[] buf = new byte[w * h * 2];
        byte[] want = new byte[w * h * 4];
        int[] fixed = {0xF800, 0x07E0, 0x001F, 0xFFFF, 0x0000};
        for (int i = 0; i < w * h; i++) {
            int v = i < fixed.length ? fixed[i] : (i * 0x1357 + 0x2468) & 0xffff;
            buf[2 * i] = (byte) v;
            buf[2 * i + 1] = (byte) (v >>> 8);
            int r = v >>> 11, g = (v >>> 5) & 63, b = v & 31;
            put(want, i, r << 3 | r >>> 2, g << 2 | g >>> 4, b << 3 | b >>> 2, 255);
        }
        add("rgb565", new Bitmap(ptr, w, h, buf, true), buf, want);
    }

    /**
     * ARGB_8888, premultiplied, stored R,G,B,A: two opaque rows, two half-transparent rows
     * (alpha 128 with channels 0 or 255, so the premultiplied value 0 or 128 is exact), two
     * fully transparent rows.
     */
    static void argbPremul(long ptr) throws IOException {
        int w = 8, h = 6;
        byte[] buf = new byte[w * h * 4];
        byte[] want = new byte[w * h * 4];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int i = y * w + x;
                if (y < 2) {
                    int r = x * 30, g = 40 + y * 100, b = 250 - x * 20;
                    put(buf, i, r, g, b, 255);
                    put(want, i, r, g, b, 255);
                } else if (y < 4) {
                    int r = (x & 1) != 0 ? 255 : 0, g = (x & 2) != 0 ? 255 : 0, b = (x & 4) != 0 ? 255 : 0;
                    put(buf, i, r == 255 ? 128 : 0, g == 255 ? 128 : 0, b == 255 ? 128 : 0, 128);
                    put(want, i, r, g, b, 128);
                } else {
                    put(buf, i, 0, 0, 0, 0);
                    put(want, i, 0, 0, 0, 0);
                }
            }
        }
        add("argb_premul", new Bitmap(ptr, w, h, buf, true), buf, want);
    }

    /** ARGB_8888 with mRequestPremultiplied = false: the stored bytes are the straight pixels. */
    static void argbStraight(long ptr) throws IOException {
        int w = 5, h = 3;
        byte[] buf = new byte[w * h * 4];
        int[] alphas = {255, 128, 64, 200, 1};
        for (int i = 0; i < w * h; i++)
            put(buf, i, (i * 17 + 3) & 0xff, (i * 91 + 50) & 0xff, 255 - i * 9, alphas[i % alphas.length]);
        add("argb_straight", new Bitmap(ptr, w, h, buf, false), buf, buf.clone());
    }

    /** Recycled: its old buffer is still in the dump, it must get no image. */
    static void recycled(long ptr) throws IOException {
        int w = 4, h = 4;
        byte[] buf = new byte[w * h * 4];
        for (int i = 0; i < buf.length; i++) buf[i] = (byte) (i * 7);
        Bitmap bm = new Bitmap(ptr, w, h, buf, true);
        bm.recycle();
        add("recycled", bm, buf, null);
    }

    /** 0x0: nothing to draw. */
    static void zero(long ptr) throws IOException {
        byte[] buf = new byte[0];
        add("zero", new Bitmap(ptr, 0, 0, buf, true), buf, null);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: Pre26App OUTDIR");
            System.exit(2);
        }
        out = Paths.get(args[0]);
        Files.createDirectories(out);
        try (PrintWriter m = new PrintWriter(Files.newBufferedWriter(out.resolve("manifest.txt")))) {
            manifest = m;
            long ptr = 0x1000;
            alpha8(ptr++);
            rgb565(ptr++);
            argbPremul(ptr++);
            argbStraight(ptr++);
            recycled(ptr++);
            zero(ptr++);
        }
        /* the pid last, through a rename: once it exists everything else is on disk */
        Path tmp = out.resolve("pid.tmp");
        Files.write(tmp, (ProcessHandle.current().pid() + "\n").getBytes());
        Files.move(tmp, out.resolve("pid"), StandardCopyOption.ATOMIC_MOVE);
        System.out.println("ready " + BITMAPS.size());
        System.out.flush();
        Thread.sleep(10 * 60 * 1000L);  /* the test kills us long before; never linger */
        System.exit(BITMAPS.size() > 0 ? 0 : 1);
    }
}

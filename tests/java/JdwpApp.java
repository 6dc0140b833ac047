import android.graphics.Bitmap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Test app for the JDWP client (tests/t_jdwp.sh). Usage:
 *   java JdwpApp basic DIR           several bitmaps: drawable, recycled, zero-size, null pointer
 *   java JdwpApp many N W H DIR      N drawable bitmaps of W x H (benchmarks)
 *   java JdwpApp garbage DIR         200000 unreachable JdwpGarbage objects, then the loop
 *   java JdwpApp idle DIR            the basic bitmaps, then a main thread that only sleeps
 *                                    (an app that runs no code: no heartbeat)
 * It writes DIR/ref/0x<ptr>.ref ("W H\n" + RGBA bytes) for each drawable bitmap, DIR/pid,
 * then DIR/ready, and keeps DIR/heartbeat advancing from a looper-like loop (a tick every
 * 50 ms) so a debugger's MethodEntry request is hit. Touching DIR/reuse-now replaces bitmap
 * 0x7a002000 with one of another size at the same pointer (a pointer reused after recycle).
 * Touching DIR/worker-now starts, -Djdwpapp.workerDelayMs (default 0) later, a second thread
 * "worker" that runs code every 50 ms too (as an app's background or binder threads do).
 */
public final class JdwpApp {
    static final List<Bitmap> live = new ArrayList<>();
    static Object keep;
    static long ticks;
    static Path dir;
    static boolean reused;
    static long workerAt;
    static Thread worker;

    static int pixel(int x, int y, int seed) {
        int a = (x + y + seed) % 5 == 0 ? 0x80 : 0xff;
        int r = (x * 7 + seed * 31) & 0xff;
        int g = (y * 13 + seed * 17) & 0xff;
        int b = ((x ^ y) + seed) & 0xff;
        return a << 24 | r << 16 | g << 8 | b;
    }

    static Bitmap make(long ptr, int w, int h, int seed) {
        int[] px = new int[Math.max(0, w * h)];
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) px[y * w + x] = pixel(x, y, seed);
        Bitmap b = new Bitmap(ptr, w, h, px);
        live.add(b);
        return b;
    }

    static void writeRef(Bitmap b) throws IOException {
        int w = b.getWidth(), h = b.getHeight();
        byte[] head = (w + " " + h + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[head.length + w * h * 4];
        System.arraycopy(head, 0, out, 0, head.length);
        int[] px = b.pixels();
        for (int i = 0, o = head.length; i < w * h; i++, o += 4) {
            out[o] = (byte) (px[i] >> 16);
            out[o + 1] = (byte) (px[i] >> 8);
            out[o + 2] = (byte) px[i];
            out[o + 3] = (byte) (px[i] >>> 24);
        }
        Path ref = dir.resolve("ref");
        Files.createDirectories(ref);
        writeAtomic(ref.resolve("0x" + Long.toHexString(b.getNativePtr()) + ".ref"), out);
    }

    static void writeAtomic(Path p, byte[] data) throws IOException {
        Path tmp = p.resolveSibling(p.getFileName() + ".tmp");
        Files.write(tmp, data);
        Files.move(tmp, p, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The looper's work: called every 50 ms, like a message handler. */
    static void tick() throws IOException {
        ticks++;
        if (ticks % 4 == 0)
            writeAtomic(dir.resolve("heartbeat"), Long.toString(ticks).getBytes(StandardCharsets.US_ASCII));
        if (!reused && Files.exists(dir.resolve("reuse-now"))) {
            reused = true;
            for (Bitmap b : live)
                if (b.getNativePtr() == 0x7a002000L) b.recycle();
            live.removeIf(b -> b.getNativePtr() == 0x7a002000L);
            writeRef(make(0x7a002000L, 33, 44, 9));
            writeAtomic(dir.resolve("reused"), new byte[0]);
        }
        if (workerAt == 0 && Files.exists(dir.resolve("worker-now")))
            workerAt = System.currentTimeMillis() + Long.getLong("jdwpapp.workerDelayMs", 0);
        if (workerAt > 0 && worker == null && System.currentTimeMillis() >= workerAt) {
            worker = new Thread(JdwpApp::work, "worker");
            worker.setDaemon(true);
            worker.start();
        }
    }

    /** The second thread's loop. */
    static void work() {
        for (;;) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        dir = Paths.get(args[args.length - 1]);
        Files.createDirectories(dir);
        if (mode.equals("basic") || mode.equals("idle")) {
            make(0x7a001000L, 64, 48, 1);
            make(0x7a002000L, 200, 100, 2);
            make(0x7a003000L, 17, 300, 3);
            make(0x7a004000L, 32, 32, 4).recycle();
            make(0x7a005000L, 0, 10, 5);
            make(0L, 10, 10, 6);
            make(0x7a007000L, 1, 1, 7);
            for (Bitmap b : live)
                if (!b.isRecycled() && b.getWidth() > 0 && b.getHeight() > 0 && b.getNativePtr() != 0) writeRef(b);
        } else if (mode.equals("many")) {
            int n = Integer.parseInt(args[1]), w = Integer.parseInt(args[2]), h = Integer.parseInt(args[3]);
            for (int i = 0; i < n; i++) make(0x70000000L + (long) i * 0x100000L, w, h, i);
            if ((long) n * w * h <= 4_000_000L)
                for (Bitmap b : live) writeRef(b);
        } else if (mode.equals("garbage")) {
            List<JdwpGarbage> g = new ArrayList<>();
            for (int i = 0; i < 200000; i++) g.add(new JdwpGarbage(i));
            keep = g.get(0);  /* one survivor, so the class stays in the histogram */
            g = null;
        } else {
            throw new IllegalArgumentException("mode: basic | many N W H | garbage");
        }
        writeAtomic(dir.resolve("pid"), Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.US_ASCII));
        writeAtomic(dir.resolve("ready"), new byte[0]);
        if (mode.equals("idle")) Thread.sleep(Long.MAX_VALUE);
        for (;;) {
            tick();
            Thread.sleep(50);
        }
    }
}

final class JdwpGarbage {
    final int id;
    final byte[] pad = new byte[48];

    JdwpGarbage(int id) {
        this.id = id;
    }
}

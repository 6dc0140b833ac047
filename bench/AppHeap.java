import android.graphics.Bitmap;
import java.util.HashMap;

/* A HotSpot heap shaped like an app's, for the benchmarks: a HashMap of N entries of a
 * String key and a small byte[] value (4 objects each: the node, the String, its byte[], the
 * value: N HashMap entries and 2 N small byte[]), an N-node linked list (a chain N deep for the
 * dominators) and B Bitmaps holding their pixels in mBuffer as before API 26 (the stand-in class
 * of tests/java/pre26, ARGB_8888, 16 to 79 pixels a side).  args: PIDFILE N [B]; N = 3,000,000
 * and B = 3,000 give 15.0 M objects and a dump of about 660 MB.  Once built it writes its pid to
 * PIDFILE and sleeps until killed, for `jcmd PID GC.heap_dump`. */
public class AppHeap {
    static final class Link {
        Link next;
        int n;

        Link(Link next, int n) {
            this.next = next;
            this.n = n;
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        int nb = args.length > 2 ? Integer.parseInt(args[2]) : 3000;
        HashMap<String, byte[]> map = new HashMap<>();
        for (int i = 0; i < n; i++) map.put("key-" + i, new byte[8 + i % 32]);
        Link head = null;
        for (int i = 0; i < n; i++) head = new Link(head, i);
        Bitmap[] bitmaps = new Bitmap[nb];
        for (int i = 0; i < nb; i++) {
            int w = 16 + i * 37 % 64, h = 16 + i * 53 % 64;
            byte[] px = new byte[w * h * 4];
            for (int p = 0; p < px.length; p += 4) {
                px[p] = (byte) (i + p);
                px[p + 3] = (byte) 0xff;
            }
            bitmaps[i] = new Bitmap(0x70000000L + 0x1000L * i, w, h, px, false);
        }
        Object[] keep = {map, head, bitmaps};
        java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), Long.toString(ProcessHandle.current().pid()));
        while (keep.length > 0) Thread.sleep(500);
    }
}

import java.util.ArrayList;
import java.util.List;

/* Allocates a known set of objects, keeps them reachable, writes its pid and waits, so a
 * test can take `jcmd PID GC.heap_dump` and `jcmd PID GC.class_histogram` of it. */
public class HkAlloc {
    static class Inner { int n; Inner(int n) { this.n = n; } }
    static class Alpha { long a; Object ref; String s; Alpha(long a) { this.a = a; } }
    static class Beta extends Alpha { int b; Beta(long a) { super(a); b = (int) a; } }

    static final List<Object> keep = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int alphas = Integer.parseInt(args[1]), betas = Integer.parseInt(args[2]), inners = Integer.parseInt(args[3]);
        Alpha[] arr = new Alpha[alphas];
        for (int i = 0; i < alphas; i++) { arr[i] = new Alpha(i); arr[i].s = "alpha-" + i; }
        for (int i = 0; i < betas; i++) { Beta b = new Beta(i); b.ref = arr[i % alphas]; keep.add(b); }
        for (int i = 0; i < inners; i++) keep.add(new Inner(i));
        keep.add(arr);
        keep.add(new int[1000]);
        keep.add("héllo wörld ✓");
        // garbage the dump must not show (GC.heap_dump dumps live objects only)
        for (int i = 0; i < 5000; i++) new Inner(-i);
        java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), Long.toString(ProcessHandle.current().pid()));
        while (true) Thread.sleep(200);
    }
}

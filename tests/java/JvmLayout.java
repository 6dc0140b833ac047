import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/* Objects whose JVM sizes exercise the layout model: fields of every size in every order,
 * superclasses leaving holes for subclasses, arrays of every type and of many lengths (every
 * alignment remainder), class objects with statics, a Thread subclass (@Contended fields in
 * Thread).  Writes its pid and waits, for `jcmd PID GC.class_histogram` and `GC.heap_dump`. */
public class JvmLayout {
    static class Empty {}
    static class OneByte { byte b; }
    static class OneLong { long l; }
    static class Mixed { byte b; long l; short s; Object r; int i; char c; boolean z; double d; float f; }
    static class LongThenInt extends OneLong { int i; }
    static class ByteHoles extends OneByte { long l; byte b2; short s2; }
    static class Refs { Object a, b, c; }
    static class RefsAndInt extends Refs { int x; }
    static class Deep extends RefsAndInt { byte y; Object z; }
    static class Statics { static long sl = 1; static Object so = "s"; static int si; static byte sb; static Object so2; int own; }
    static class Worker extends Thread { long mine; Worker(String n) { super(n); } public void run() { try { Thread.sleep(1000000); } catch (InterruptedException e) { } } }

    static final List<Object> keep = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        for (int i = 0; i < n; i++) {
            keep.add(new Empty()); keep.add(new OneByte()); keep.add(new OneLong()); keep.add(new Mixed());
            keep.add(new LongThenInt()); keep.add(new ByteHoles()); keep.add(new Refs()); keep.add(new RefsAndInt());
            keep.add(new Deep()); keep.add(new Statics());
        }
        for (int len = 0; len < 40; len++) {
            keep.add(new byte[len]); keep.add(new boolean[len]); keep.add(new char[len]); keep.add(new short[len]);
            keep.add(new int[len]); keep.add(new float[len]); keep.add(new long[len]); keep.add(new double[len]);
            keep.add(new Object[len]); keep.add(new Refs[len]); keep.add(new int[len][]);
        }
        HashMap<String, Integer> map = new HashMap<>();
        ConcurrentHashMap<Integer, String> chm = new ConcurrentHashMap<>();
        for (int i = 0; i < n; i++) { map.put("k" + i, i); chm.put(i, "v" + i); }
        keep.add(map); keep.add(chm); keep.add(Statics.so);
        for (int i = 0; i < 3; i++) { Worker w = new Worker("worker-" + i); w.setDaemon(true); w.start(); keep.add(w); }
        java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), Long.toString(ProcessHandle.current().pid()));
        while (true) Thread.sleep(200);
    }
}

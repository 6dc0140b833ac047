import java.util.HashMap;
import java.util.LinkedList;

/* A HotSpot heap of over ten million objects for the benchmarks, shaped like a big app's: a
 * HashMap of N entries (entry, Integer key, Long value: 3 objects each), a LinkedList of N
 * nodes each holding a small array (2 objects each, and a chain N deep for the dominators),
 * and a few thousand strings.  N = args[1]; 3,000,000 gives about 15 million objects. */
public class IndexBig {
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        HashMap<Integer, Long> map = new HashMap<>();
        for (int i = 0; i < n; i++) map.put(i + 1000, (long) i * 7);
        LinkedList<int[]> list = new LinkedList<>();
        for (int i = 0; i < n; i++) list.add(new int[] {i, i + 1});
        String[] names = new String[4096];
        for (int i = 0; i < names.length; i++) names[i] = "name-" + i;
        Object[] keep = {map, list, names};
        java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), Long.toString(ProcessHandle.current().pid()));
        while (keep.length > 0) Thread.sleep(500);
    }
}

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/* A HotSpot heap of a few million objects for the index benchmark: maps, lists, strings,
 * arrays and small objects, like an app's. */
public class IndexBig {
    static class Node { Node left, right; int value; String name; Node(int v) { value = v; } }
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        List<Object> keep = new ArrayList<>();
        HashMap<String, Node> map = new HashMap<>();
        Node prev = null;
        for (int i = 0; i < n; i++) {
            Node x = new Node(i);
            x.left = prev;
            if ((i & 7) == 0) x.name = "node-" + i;
            if ((i & 15) == 0) map.put("k" + i, x);
            if ((i & 63) == 0) keep.add(new int[16]);
            prev = x;
            if ((i & 1023) == 0) { keep.add(prev); prev = null; }
        }
        keep.add(map);
        java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), Long.toString(ProcessHandle.current().pid()));
        while (true) Thread.sleep(500);
    }
}

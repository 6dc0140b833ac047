import java.util.HashMap;

/* The heap hprof-slurp is compared on (../shared/peer/slurp/README.md, "p-big"): N/2 HashMap
 * entries of a String key and a byte[] value (4 objects each: the node, the String, its byte[],
 * the value) and an N/2-node linked list (a chain N/2 deep for the dominators).  N = args[1];
 * 6,000,000 gives about 15 million objects and a 660 MB dump. */
public class SlurpHeap {
    static final class Link { Link next; int n; Link(Link next, int n) { this.next = next; this.n = n; } }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]) / 2;
        HashMap<String, byte[]> map = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) map.put("key-" + i, new byte[16 + i % 32]);
        Link head = null;
        for (int i = 0; i < n; i++) head = new Link(head, i);
        Object[] keep = {map, head};
        java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), Long.toString(ProcessHandle.current().pid()));
        while (keep.length > 0) Thread.sleep(500);
    }
}

/* A chain tens of thousands deep whose links hold wide arrays, for the per-class retained
 * walk that cuts the dominator tree into tasks below big nodes: halfway down, the chain runs
 * through an Item, so the Items in the arrays below it are not the topmost of their class
 * while those above are. Args: chain length, array width. */
public class ChainWide {
    static class Item { Object next; int v; }
    static class Link { Link next; Object[] wide; int i; }
    static Link head;

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]), width = Integer.parseInt(args[1]);
        head = new Link();
        Link cur = head;
        for (int i = 1; i < n; i++) {
            Link l = new Link();
            l.i = i;
            if (i % (n / 8) == 0) {
                l.wide = new Object[width];
                for (int k = 0; k < width; k++) { Item it = new Item(); it.v = k; l.wide[k] = it; }
            }
            if (i == n / 2) { /* the chain goes on through an Item */
                Item via = new Item();
                cur.wide = new Object[] {via};
                via.next = l;
            } else cur.next = l;
            cur = l;
        }
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(120000);
    }
}

import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;

/* A heap with known dominators and reachability for tests/t_graph.sh: dumped by
 * `jcmd PID GC.heap_dump -all FILE` while main sleeps.  Prints "ready" when it is. */
public class GraphApp {
    static class Node { Object x, y; byte[] pay; Node(int n) { pay = new byte[n]; } }
    static class GA extends Node { GA() { super(10); } }
    static class GB extends Node { GB() { super(20); } }
    static class GC extends Node { GC() { super(30); } }
    static class GD extends Node { GD() { super(40); } }
    static class GE extends Node { GE() { super(50); } }
    static class Link { Link next; int i; }
    static class LinkTail extends Link { }
    static class WeakOnly { byte[] p = new byte[64]; }
    static class SoftOnly { byte[] p = new byte[64]; }
    static class PhantomOnly { byte[] p = new byte[64]; }
    static class Finalizable {
        byte[] p = new byte[64];
        static int finalized;
        /* not empty: HotSpot registers no Finalizer for a finalize() that only returns */
        @Override protected void finalize() { finalized++; }
    }
    static class Cyc { Cyc next; byte[] p = new byte[16]; }
    /* held strongly and by 100 WeakReferences: obj:referrers() lists them all */
    static class ManyWeak { }
    static ManyWeak manyWeak = new ManyWeak();
    static Object[] manyWeakRefs = new Object[100];

    static GA a;
    static Link head;
    static WeakReference<WeakOnly> weak;
    static SoftReference<SoftOnly> soft;
    static PhantomReference<PhantomOnly> phantom;
    static final ReferenceQueue<Object> queue = new ReferenceQueue<>();

    public static void main(String[] args) throws Exception {
        int chain = args.length > 0 ? Integer.parseInt(args[0]) : 200000;
        /* root->a (static), root->d (this frame), a->b, a->c, d->e, e->b, b->c: dom(c) is the root */
        a = new GA();
        GD d = new GD();
        GB b = new GB();
        GC c = new GC();
        GE e = new GE();
        a.x = b; a.y = c; d.x = e; e.x = b; b.x = c;
        b = null; c = null; e = null;
        /* a long chain held by a static */
        head = new Link();
        Link cur = head;
        for (int i = 1; i < chain - 1; i++) { cur.next = new Link(); cur = cur.next; cur.i = i; }
        cur.next = new LinkTail();
        cur = null;
        weak = new WeakReference<>(new WeakOnly());
        for (int i = 0; i < manyWeakRefs.length; i++) manyWeakRefs[i] = new WeakReference<>(manyWeak);
        soft = new SoftReference<>(new SoftOnly());
        phantom = new PhantomReference<>(new PhantomOnly(), queue);
        new Finalizable();
        /* an unreachable cycle (still in the heap: -all dumps skip the GC) */
        Cyc c1 = new Cyc(), c2 = new Cyc();
        c1.next = c2; c2.next = c1;
        c1 = null; c2 = null;
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(120000);
        System.out.println(d.hashCode());   /* keeps d a live local of this frame */
    }
}

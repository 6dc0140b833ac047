import java.io.File;
import java.io.PrintWriter;
import java.util.List;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;

/* VisualVM's heap library (Debian's visualvm) doing what `hprofkit histogram` does without
 * retained sizes: open the dump, then count instances per class.  Prints the wall seconds of
 * each step and the total instance count, for bench/visualvm_bench.sh; with a second argument,
 * also writes "class<TAB>count" for every class with instances to that file. */
public class VisualVMHistogram {
    public static void main(String[] args) throws Exception {
        long t0 = System.nanoTime();
        Heap heap = HeapFactory.createHeap(new File(args[0]));
        long t1 = System.nanoTime();
        long instances = 0, bytes = 0;
        List<JavaClass> classes = heap.getAllClasses();
        for (JavaClass c : classes) {
            instances += c.getInstancesCount();
            bytes += c.getAllInstancesSize();
        }
        long t2 = System.nanoTime();
        System.out.printf("visualvm open %.2f s, histogram %.2f s, total %.2f s; %d classes, %d instances%n",
            (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t2 - t0) / 1e9, classes.size(), instances);
        if (args.length > 1) {
            try (PrintWriter w = new PrintWriter(args[1])) {
                for (JavaClass c : classes)
                    if (c.getInstancesCount() > 0) w.printf("%s\t%d%n", c.getName(), c.getInstancesCount());
            }
        }
    }
}

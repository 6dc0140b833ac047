// The test JVM behind the test device daemon: `am dumpheap` on the daemon runs
// `jcmd PID GC.heap_dump`, so the dump hprofkit pulls is this program's heap.  It keeps a known
// number of DevThing instances alive (argument 1, default 1234) and prints "ready" once they exist.
import java.util.ArrayList;
import java.util.List;

public class DevHeapApp {
    static final List<DevThing> KEEP = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1234;
        for (int i = 0; i < n; i++) KEEP.add(new DevThing(i));
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}

class DevThing {
    final int id;
    final byte[] payload;

    DevThing(int id) {
        this.id = id;
        this.payload = new byte[64];
    }
}

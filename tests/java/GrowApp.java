import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/* A heap to dump twice (tests/t_diff.sh): `grow N` adds N pages to Carousel.pages between the
 * dumps; `churn` only allocates and frees (and replaces pages one for one).  Protocol: writes
 * DIR/pid, waits for DIR/go, does its step, writes DIR/done, then waits. */
public class GrowApp {
    static class Page {
        final int index;
        final byte[] thumb;
        Page(int index) { this.index = index; this.thumb = new byte[512]; }
    }

    static class Carousel {
        static final List<Page> pages = new ArrayList<>();
        static final Map<String, Integer> titles = new HashMap<>();
    }

    static Object sink;

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String mode = args[1];
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        for (int i = 0; i < 5; i++) { Carousel.pages.add(new Page(i)); Carousel.titles.put("page-" + i, i); }
        Files.writeString(dir.resolve("pid"), Long.toString(ProcessHandle.current().pid()));
        while (!Files.exists(dir.resolve("go"))) Thread.sleep(20);
        if (mode.equals("grow")) {
            for (int i = 0; i < n; i++) Carousel.pages.add(new Page(5 + i));
        } else {
            for (int round = 0; round < 50; round++) {
                List<Object> tmp = new ArrayList<>();
                for (int i = 0; i < 2000; i++) tmp.add(new Page(i));
                sink = tmp;
            }
            sink = null;
            for (int i = 0; i < Carousel.pages.size(); i++) Carousel.pages.set(i, new Page(100 + i));
        }
        Files.writeString(dir.resolve("done"), "1");
        while (true) Thread.sleep(200);
    }
}

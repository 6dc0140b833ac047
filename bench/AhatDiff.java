package com.android.ahat.heapdump;

import com.android.ahat.proguard.ProguardMap;
import java.io.File;

/** ahat's baseline mode (`ahat --baseline BASE DUMP`) without its web server: parses both dumps
 *  as ahat's Main does (soft reachability, ahat's default), runs Diff.snapshots, and prints the
 *  wall seconds of that work on stderr, then one line per class of the root site on stdout:
 *  `heap class instances baseline_instances` (what ahat's "Objects" diff view shows).
 *  usage: AhatDiff BASE DUMP [DUMP_MAP [BASE_MAP]] (R8/ProGuard maps, as ahat's --map and
 *  --baseline-map) */
public class AhatDiff {
  public static void main(String[] args) throws Exception {
    long t0 = System.nanoTime();
    AhatSnapshot base = new Parser(new File(args[0])).map(map(args, 3)).parse();
    AhatSnapshot dump = new Parser(new File(args[1])).map(map(args, 2)).parse();
    Diff.snapshots(dump, base);
    long t1 = System.nanoTime();
    System.err.printf("ahat parse+analyse both and diff: %.3f s%n", (t1 - t0) / 1e9);
    for (Site.ObjectsInfo info : dump.getRootSite().getObjectsInfos()) {
      Site.ObjectsInfo b = info.getBaseline();
      System.out.printf("%s\t%s\t%d\t%d%n", info.heap.getName(), info.getClassName(), info.numInstances,
          b == null || b.isPlaceHolder() ? 0 : b.numInstances);
    }
    for (Site.ObjectsInfo info : base.getRootSite().getObjectsInfos()) {  // classes gone in DUMP
      Site.ObjectsInfo d = info.getBaseline();
      if (d == null || d.isPlaceHolder()) {
        System.out.printf("%s\t%s\t0\t%d%n", info.heap.getName(), info.getClassName(), info.numInstances);
      }
    }
  }

  private static ProguardMap map(String[] args, int i) throws Exception {
    ProguardMap map = new ProguardMap();
    if (args.length > i && !args[i].isEmpty()) map.readFromFile(new File(args[i]));
    return map;
  }
}

package com.android.ahat.heapdump;

import com.android.ahat.proguard.ProguardMap;
import java.io.File;

/** For tests/t_map.sh: prints each object's allocation site chain as ahat reads it with a map:
 *  id, then method(file:line) per frame, innermost first.  usage: AhatSites DUMP MAP
 *  (in ahat's package, as AhatExport is, to reach the snapshot's instances) */
public class AhatSites {
  public static void main(String[] args) throws Exception {
    ProguardMap map = new ProguardMap();
    map.readFromFile(new File(args[1]));
    AhatSnapshot snap = new Parser(new File(args[0])).map(map).parse();
    java.lang.reflect.Field f = AhatSnapshot.class.getDeclaredField("mInstances");
    f.setAccessible(true);
    @SuppressWarnings("unchecked")
    Instances<AhatInstance> insts = (Instances<AhatInstance>) f.get(snap);
    StringBuilder b = new StringBuilder();
    for (AhatInstance inst : insts) {
      Site s = inst.getSite();
      if (s == null || s.getParent() == null) continue;
      b.setLength(0);
      b.append(String.format("0x%x", inst.getId()));
      for (; s != null && s.getParent() != null; s = s.getParent())
        b.append('\t').append(s.getMethodName()).append('(').append(s.getFilename()).append(':').append(s.getLineNumber()).append(')');
      System.out.println(b);
    }
  }
}

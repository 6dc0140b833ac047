package com.android.ahat.heapdump;

import com.android.ahat.proguard.ProguardMap;
import java.io.File;
import java.util.*;

/** For tests/t_oracle_heap.sh: ahat's view of a dump, computed by ahat's own parser and dominators
 *  (one JVM start per dump), as tab-separated rows tagged by what they hold:
 *  <p>heap HEAP CLASS COUNT SHALLOW RETAINED WEAK: per heap and class, the instances and arrays,
 *  their shallow bytes, and the sum of getRetainedSize(heap) over the class's strongly reachable
 *  instances in the heap that no other instance of the class dominates (ahat's dominator tree
 *  over strong references); WEAK counts the instances not strongly reachable (ahat gives them
 *  retained 0).  Class objects are left out, and their weight in a retained set is hprofkit's
 *  (ahat adds java.lang.Class's instance size to each: README, "Why a number differs").
 *  <p>class CLASS RETAINED: the same over every heap, with each instance's whole retained size.
 *  <p>obj ID LABEL SHALLOW RETAINED IDOM: each strongly reachable object (a class object labelled
 *  `class NAME`) with its retained size, class objects weighed as hprofkit weighs them, and its
 *  immediate dominator ("-": the root).
 *  <p>duparray CLASS LENGTH COUNT BYTES: groups of 2 or more primitive arrays with equal type,
 *  length and contents, leaving out the arrays that are a String's value, a Bitmap's mBuffer or
 *  a class's $staticOverhead (each counts in another report, README).
 *  <p>dupstring COUNT BYTES LENGTH: groups of 2 or more Strings with the same text.
 *  <p>With --baseline BASE, ahat's baseline mode instead: status dump|base ID LABEL COUNTERPART
 *  SHALLOW REACH KEY, the counterpart "-" for an object ahat calls added (in DUMP) or removed
 *  (in BASE), "?" for one its Diff leaves alone (it walks the dominator tree of what is strongly
 *  reachable; an object's baseline is itself until then), SHALLOW its bytes (a class object's statics only, as hprofkit weighs it), REACH
 *  ahat's strength, KEY what ahat's Diff matches it by besides its class (diffKey), IDOM its
 *  immediate dominator ("-": the root, "?": none, not strongly reachable).
 *  <p>With --graph, also every object and reference (for tests/t_oracle_pairs.sh):
 *  <br>any ID LABEL HEAP SHALLOW REACH: every object, reachable or not (a class object's
 *  SHALLOW its statics, as hprofkit weighs it), REACH ahat's strength;
 *  <br>root ID: an object a GC root holds;
 *  <br>ref SRC DST FIELD STRENGTH: each reference ahat follows (FIELD as ahat names it:
 *  a field's or static's name, [i] for an array element);
 *  <br>bitmap ID WIDTH HEIGHT NATIVE_PTR BUFFER PIXELS_SHA256: each Bitmap (bitmap() says how).
 *  <p>usage: AhatOracle DUMP [MAP|- [--baseline BASE | --graph]]  (in ahat's package, as AhatExport
 *  is, to reach the snapshot's instances) */
public class AhatOracle {
  static final class Row { long count, shallow, retained, weak; }

  public static void main(String[] args) throws Exception {
    ProguardMap map = new ProguardMap();
    if (args.length > 1 && !args[1].equals("-")) map.readFromFile(new File(args[1]));
    if (args.length > 3 && args[2].equals("--baseline")) {
      diff(new Parser(new File(args[0])).map(map).retained(Reachability.STRONG).parse(),
           new Parser(new File(args[3])).map(map).retained(Reachability.STRONG).parse());
      return;
    }
    AhatSnapshot snap = new Parser(new File(args[0])).map(map).retained(Reachability.STRONG).parse();
    StringBuilder b = new StringBuilder();
    heapRows(snap, b);
    dupArrays(snap, b);
    dupStrings(snap, b);
    if (args.length > 2 && args[2].equals("--graph")) graph(snap, b);
    System.out.print(b);
  }

  /** Every object with its heap, shallow bytes and strength; the roots; every reference; the
   *  bitmaps with their pixels' digest. */
  static void graph(AhatSnapshot snap, StringBuilder b) throws Exception {
    for (AhatInstance inst : instances(snap)) {
      String id = "0x" + Long.toHexString(inst.getId());
      b.append("any\t").append(id).append('\t')
          .append(inst.isClassObj() ? "class " + inst.asClassObj().getName() : className(inst)).append('\t')
          .append(inst.getHeap().getName()).append('\t')
          .append(inst.isClassObj() ? inst.getExtraJavaSize() : inst.getSize().getJavaSize()).append('\t')
          .append(inst.getReachability()).append('\n');
      if (inst.isRoot()) b.append("root\t").append(id).append('\n');
      for (Reference r : inst.getReferences()) {
        b.append("ref\t").append(id).append("\t0x").append(Long.toHexString(r.ref.getId())).append('\t')
            .append(r.field).append('\t').append(r.reachability).append('\n');
      }
      if (inst.isBitmapInstance()) bitmap(inst.asBitmapInstance(), id, b);
    }
  }

  /** A Bitmap's size, pointer, the length of its mBuffer (-1: none) and the SHA-256 of its pixels
   *  as straight RGBA8888: ahat's image when it decodes one, else an ARGB_8888 mBuffer (RGBA bytes
   *  in memory, premultiplied unless mIsPremultiplied says not) divided by alpha, rounded. */
  static void bitmap(AhatBitmapInstance bm, String id, StringBuilder b) throws Exception {
    int w = bm.getField("mWidth").asInteger(), h = bm.getField("mHeight").asInteger();
    AhatInstance buf = bm.getRefField("mBuffer");
    byte[] px = buf == null ? null : buf.asByteArray();
    java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
    AhatBitmapInstance.Bitmap img = bm.getBitmap();
    boolean have = true;
    if (img != null && img.image != null) {
      for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
          int p = img.image.getRGB(x, y);
          md.update(new byte[] {(byte) (p >> 16), (byte) (p >> 8), (byte) p, (byte) (p >>> 24)});
        }
      }
    } else if (px != null && px.length == 4L * w * h) {
      Value pm = bm.getField("mIsPremultiplied");
      boolean premul = pm == null || !"false".equals(pm.toString());
      byte[] out = px.clone();
      for (int i = 0; premul && i < out.length; i += 4) {
        int a = out[i + 3] & 0xff;
        if (a == 0 || a == 255) continue;
        for (int c = 0; c < 3; c++) out[i + c] = (byte) Math.min(255, Math.round((out[i + c] & 0xff) * 255.0 / a));
      }
      md.update(out);
    } else {
      have = false;
    }
    StringBuilder hex = new StringBuilder();
    for (byte x : md.digest()) hex.append(String.format("%02x", x));
    Value ptr = bm.getField("mNativePtr");
    if (ptr == null) ptr = bm.getField("mNativeBitmap"); // before Android 7
    b.append("bitmap\t").append(id).append('\t').append(w).append('\t').append(h).append('\t')
        .append(ptr == null ? "-" : "0x" + Long.toHexString(ptr.isLong() ? ptr.asLong() : ptr.asInteger() & 0xffffffffL))
        .append('\t').append(px == null ? -1 : px.length).append('\t').append(have ? hex : "-").append('\n');
  }

  static void heapRows(AhatSnapshot snap, StringBuilder b) throws Exception {
    Map<String, Row> rows = new TreeMap<>();
    for (AhatInstance inst : instances(snap)) {
      if (inst.isClassObj()) continue;
      Row r = row(rows, inst.getHeap().getName(), className(inst));
      r.count++;
      r.shallow += inst.getSize().getJavaSize();
      if (!inst.isStronglyReachable()) r.weak++;
    }
    StringBuilder objs = new StringBuilder();
    walk(snap, rows, objs);
    b.append(objs);
    for (Map.Entry<String, Row> e : rows.entrySet()) {
      Row r = e.getValue();
      if (e.getKey().startsWith("*\t")) {
        b.append("class\t").append(e.getKey().substring(2)).append('\t').append(r.retained).append('\n');
        continue;
      }
      b.append("heap\t").append(e.getKey()).append('\t').append(r.count).append('\t').append(r.shallow)
          .append('\t').append(r.retained).append('\t').append(r.weak).append('\n');
    }
  }

  /** The arrays another report counts: String values, Bitmap pixel buffers, $staticOverhead. */
  static Set<AhatInstance> ownedElsewhere(AhatSnapshot snap) throws Exception {
    Set<AhatInstance> skip = new HashSet<>();
    for (AhatInstance inst : instances(snap)) {
      if (inst.isClassObj()) {
        Value v = inst.asClassObj().getStaticField("$staticOverhead");
        if (v != null && v.isAhatInstance()) skip.add(v.asAhatInstance());
      } else if (inst.isInstanceOfClass("java.lang.String")) {
        AhatInstance v = inst.getRefField("value");
        if (v != null) skip.add(v);
      } else if (inst.isInstanceOfClass("android.graphics.Bitmap")) {
        AhatInstance v = inst.getRefField("mBuffer");
        if (v != null) skip.add(v);
      }
    }
    return skip;
  }

  static void dupArrays(AhatSnapshot snap, StringBuilder b) throws Exception {
    Set<AhatInstance> skip = ownedElsewhere(snap);
    Map<String, long[]> groups = new HashMap<>();
    for (AhatInstance inst : instances(snap)) {
      if (!inst.isArrayInstance() || skip.contains(inst)) continue;
      String cls = className(inst);
      if (!AhatExport.isPrim(cls)) continue;
      String key = cls + "\t" + inst.asArrayInstance().getLength() + "\t" + inst.asArrayInstance().getValues();
      long[] g = groups.computeIfAbsent(key, k -> new long[2]);
      g[0]++;
      g[1] = inst.getSize().getJavaSize();
    }
    for (Map.Entry<String, long[]> e : groups.entrySet()) {
      if (e.getValue()[0] < 2) continue;
      String[] k = e.getKey().split("\t", 3);
      b.append("duparray\t").append(k[0]).append('\t').append(k[1]).append('\t').append(e.getValue()[0])
          .append('\t').append(e.getValue()[1]).append('\n');
    }
  }

  /** ahat's baseline mode (its Diff of instances): each object of either dump with its
   *  counterpart, or "-" when ahat calls it added (DUMP) or removed (BASE). */
  static void diff(AhatSnapshot dump, AhatSnapshot base) throws Exception {
    Diff.snapshots(dump, base);
    StringBuilder b = new StringBuilder();
    for (AhatSnapshot s : new AhatSnapshot[] {dump, base}) {
      for (AhatInstance inst : instances(s)) {
        AhatInstance other = inst.getBaseline(), idom = inst.getImmediateDominator();
        b.append("status\t").append(s == dump ? "dump" : "base").append("\t0x").append(Long.toHexString(inst.getId()))
            .append('\t').append(inst.isClassObj() ? "class " + inst.asClassObj().getName() : className(inst))
            .append('\t').append(other == inst ? "?" : other == null || other.isPlaceHolder() ? "-" : "0x" + Long.toHexString(other.getId()))
            .append('\t').append(inst.isClassObj() ? inst.getExtraJavaSize() : inst.getSize().getJavaSize())
            .append('\t').append(inst.getReachability()).append('\t').append(diffKey(inst))
            .append('\t').append(idom == null ? "?" : idom.getImmediateDominator() == null ? "-" : "0x" + Long.toHexString(idom.getId()))
            .append('\n');
      }
    }
    System.out.print(b);
  }

  /** What ahat's Diff keys an object by besides its class (its Diff.Key): its heap, an array's
   *  length and the text ahat reads from a String or a byte[] / char[] (hashed, to keep the row
   *  one line). */
  static String diffKey(AhatInstance inst) {
    String v = inst.isClassObj() ? null : inst.asString();
    return inst.getHeap().getName() + "/" + (inst.isArrayInstance() ? inst.asArrayInstance().getLength() : "-") + "/"
        + (v == null ? "-" : Integer.toHexString(v.hashCode()));
  }

  /** Groups of 2 or more Strings with the same text: the count, one member's bytes (the String's
   *  own and its value array's when no other String shares that array; the member with the
   *  lowest id) and the text's length in characters (code points). */
  static void dupStrings(AhatSnapshot snap, StringBuilder b) throws Exception {
    Map<AhatInstance, Integer> shares = new HashMap<>();
    List<AhatInstance> strings = new ArrayList<>();
    for (AhatInstance inst : instances(snap)) {
      if (inst.isClassObj() || !"java.lang.String".equals(inst.getClassName())) continue;
      strings.add(inst);
      AhatInstance v = inst.getRefField("value");
      if (v != null) shares.merge(v, 1, Integer::sum);
    }
    Map<String, List<AhatInstance>> groups = new HashMap<>();
    for (AhatInstance s : strings) {
      String text = s.asString();
      groups.computeIfAbsent(text == null ? "" : text, k -> new ArrayList<>()).add(s);
    }
    for (Map.Entry<String, List<AhatInstance>> e : groups.entrySet()) {
      List<AhatInstance> g = e.getValue();
      if (g.size() < 2) continue;
      AhatInstance first = Collections.min(g, Comparator.comparingLong(AhatInstance::getId));
      AhatInstance v = first.getRefField("value");
      long bytes = first.getSize().getJavaSize() + (v != null && shares.get(v) == 1 ? v.getSize().getJavaSize() : 0);
      b.append("dupstring\t").append(g.size()).append('\t').append(bytes).append('\t')
          .append(e.getKey().codePointCount(0, e.getKey().length())).append('\n');
    }
  }

  static String className(AhatInstance inst) {
    AhatClassObj c = inst.getClassObj();
    return inst.isArrayInstance() ? (c == null ? "?" : c.getName()) : inst.getClassName();
  }

  static Row row(Map<String, Row> rows, String heap, String cls) {
    return rows.computeIfAbsent(heap + "\t" + cls, k -> new Row());
  }

  @SuppressWarnings("unchecked")
  static Instances<AhatInstance> instances(AhatSnapshot snap) throws Exception {
    java.lang.reflect.Field f = AhatSnapshot.class.getDeclaredField("mInstances");
    f.setAccessible(true);
    return (Instances<AhatInstance>) f.get(snap);
  }

  /** A node on the walk: its dominated instances left, whether it counts for its class, and the
   *  bytes per heap that ahat adds to the class objects below it (java.lang.Class's instance
   *  size, which hprofkit leaves out: README, "Why a number differs"). */
  static final class Frame {
    final AhatInstance v;
    final Iterator<AhatInstance> kids;
    final boolean counts;
    final long[] classExtra;
    Frame(AhatInstance v, boolean counts, int heaps) {
      this.v = v;
      this.kids = v.getDominated().iterator();
      this.counts = counts;
      this.classExtra = new long[heaps];
      if (v.isClassObj()) classExtra[v.getHeap().getIndex()] = v.getSize().getJavaSize() - v.getExtraJavaSize();
    }
  }

  /** Depth first down ahat's dominator tree from its super root, counting the instances of
   *  each class open on the path: an instance counts when none is open above it. */
  static void walk(AhatSnapshot snap, Map<String, Row> rows, StringBuilder objs) throws Exception {
    java.lang.reflect.Field f = AhatSnapshot.class.getDeclaredField("mSuperRoot");
    f.setAccessible(true);
    AhatInstance root = (AhatInstance) f.get(snap);
    int heaps = 0;
    for (AhatHeap h : snap.getHeaps()) heaps = Math.max(heaps, h.getIndex() + 1);
    Map<AhatClassObj, Integer> open = new HashMap<>();
    Deque<Frame> stack = new ArrayDeque<>();
    Iterator<AhatInstance> top = root.getDominated().iterator();
    while (top.hasNext() || !stack.isEmpty()) {
      Frame t = stack.peek();
      if (t != null && !t.kids.hasNext()) {
        stack.pop();
        AhatInstance v = t.v;
        long extra = 0;
        for (long e : t.classExtra) extra += e;
        AhatInstance idom = v.getImmediateDominator();
        long total = v.getTotalRetainedSize().getJavaSize() - extra;
        if (t.counts) {
          long r = v.getRetainedSize(v.getHeap()).getJavaSize() - t.classExtra[v.getHeap().getIndex()];
          row(rows, v.getHeap().getName(), className(v)).retained += r;
          row(rows, "*", className(v)).retained += total;
        }
        objs.append("obj\t0x").append(Long.toHexString(v.getId())).append('\t')
            .append(v.isClassObj() ? "class " + v.asClassObj().getName() : className(v)).append('\t')
            .append(v.getSize().getJavaSize()).append('\t').append(total).append('\t')
            .append(idom == null || idom == root ? "-" : "0x" + Long.toHexString(idom.getId())).append('\n');
        if (!v.isClassObj()) open.merge(v.getClassObj(), -1, Integer::sum);
        if (stack.peek() != null)
          for (int h = 0; h < heaps; h++) stack.peek().classExtra[h] += t.classExtra[h];
        continue;
      }
      AhatInstance v = t != null ? t.kids.next() : top.next();
      boolean counts = false;
      if (!v.isClassObj()) {
        counts = open.getOrDefault(v.getClassObj(), 0) == 0;
        open.merge(v.getClassObj(), 1, Integer::sum);
      }
      stack.push(new Frame(v, counts, heaps));
    }
  }
}

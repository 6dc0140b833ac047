package android.os;

/** Stand-in for android.os.Build: the dump's SDK level (Build.VERSION.SDK_INT). */
public final class Build {
    public static final class VERSION {
        public static int SDK_INT;
    }
}

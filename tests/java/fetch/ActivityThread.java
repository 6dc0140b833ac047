package android.app;

/**
 * Stand-in for Android's ActivityThread (tests/t_fetch.sh): the fields a heap dump's origin is
 * read from (sCurrentActivityThread.mBoundApplication.processName), so a HotSpot dump of the
 * test JVM says which process it came from, as an app's dump does.
 */
public final class ActivityThread {
    static ActivityThread sCurrentActivityThread;
    AppBindData mBoundApplication;

    static final class AppBindData {
        String processName;
    }

    public static void attach(String processName) {
        ActivityThread t = new ActivityThread();
        t.mBoundApplication = new AppBindData();
        t.mBoundApplication.processName = processName;
        sCurrentActivityThread = t;
    }
}

import android.app.ActivityThread;
import android.os.Build;

/**
 * JdwpApp dressed as an Android app for tests/t_fetch.sh: before JdwpApp runs, it records a
 * process name (-Dhk.process, default com.example.jdwpapp) and an SDK level (-Dhk.sdk, default
 * 29) where an Android heap dump keeps them, so `hprofkit fetch-bitmaps DUMP` finds the process
 * on the device by the dump's own origin. Arguments are JdwpApp's.
 */
public final class FetchApp {
    public static void main(String[] args) throws Exception {
        ActivityThread.attach(System.getProperty("hk.process", "com.example.jdwpapp"));
        Build.VERSION.SDK_INT = Integer.getInteger("hk.sdk", 29);
        JdwpApp.main(args);
    }
}

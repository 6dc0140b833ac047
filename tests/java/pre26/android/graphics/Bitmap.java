package android.graphics;

/**
 * A stand-in for Android's Bitmap before API 26, for tests on a desktop JVM: the instance
 * fields carry the names and types of the pre-O framework class, and the pixels live on the
 * Java heap in mBuffer exactly as a device keeps them (the layout is whatever the caller
 * wrote; no Config is stored, as on a device). A heap dump of this class therefore has the
 * shape hprofkit's mbuffer plugin reads, but from HotSpot instead of ART.
 */
public final class Bitmap {
    private int mWidth;
    private int mHeight;
    private boolean mRecycled;
    int mDensity = 320;
    private final long mNativePtr;
    private boolean mRequestPremultiplied;
    private byte[] mNinePatchChunk;
    private Object mNinePatchInsets;
    private byte[] mBuffer;
    private final boolean mIsMutable;

    public Bitmap(long nativePtr, int width, int height, byte[] buffer, boolean premultiplied) {
        mNativePtr = nativePtr;
        mWidth = width;
        mHeight = height;
        mBuffer = buffer;
        mRequestPremultiplied = premultiplied;
        mIsMutable = true;
    }

    public long getNativePtr() { return mNativePtr; }
    public int getWidth() { return mWidth; }
    public int getHeight() { return mHeight; }
    public boolean isRecycled() { return mRecycled; }

    /** Like a device before API 26: marks it recycled, but the buffer stays reachable here so the
     *  dump still holds its old bytes (a recycled bitmap must get no image regardless). */
    public void recycle() { mRecycled = true; }
}

package android.graphics;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import javax.imageio.ImageIO;

/**
 * A stand-in for Android's Bitmap, for tests on a desktop JVM: the instance fields carry Android's
 * names (API 26-34 layout, no mBuffer) so heap dumps and the JDWP client see the same shape as on a
 * device, and compress() writes a real PNG. The pixels live in a Java int[] (straight ARGB) that
 * stands for the native pixel memory mNativePtr points to. For tests of a fetch that fails:
 * -Djdwpapp.compressDelayMs=MS makes compress slow, -Djdwpapp.compressMarker=FILE creates FILE
 * when a compress starts, -Djdwpapp.compressFails=true makes every compress return false.
 */
public final class Bitmap {
    public enum CompressFormat {
        JPEG(0), PNG(1), WEBP(2), WEBP_LOSSY(3), WEBP_LOSSLESS(4);

        final int nativeInt;

        CompressFormat(int nativeInt) {
            this.nativeInt = nativeInt;
        }
    }

    private long mNativePtr;
    private int mWidth;
    private int mHeight;
    private boolean mRecycled;
    int mDensity = 420;
    private boolean mRequestPremultiplied = true;
    private byte[] mNinePatchChunk;
    private Object mNinePatchInsets;
    private Object mColorSpace;
    /** The stand-in's "native" pixels: straight (not premultiplied) ARGB, row by row. */
    private int[] standInPixels;

    public Bitmap(long nativePtr, int width, int height, int[] pixels) {
        mNativePtr = nativePtr;
        mWidth = width;
        mHeight = height;
        standInPixels = pixels;
    }

    public int getWidth() { return mWidth; }
    public int getHeight() { return mHeight; }
    public long getNativePtr() { return mNativePtr; }
    public boolean isRecycled() { return mRecycled; }
    public int[] pixels() { return standInPixels; }

    public void recycle() {
        mRecycled = true;
        standInPixels = null;
    }

    public boolean compress(CompressFormat format, int quality, OutputStream stream) {
        if (mRecycled) throw new IllegalStateException("Can't compress a recycled bitmap");
        if (stream == null) throw new NullPointerException();
        if (quality < 0 || quality > 100) throw new IllegalArgumentException("quality must be 0..100");
        if (format != CompressFormat.PNG) return false;
        if (Boolean.getBoolean("jdwpapp.compressFails")) return false;
        String marker = System.getProperty("jdwpapp.compressMarker");
        if (marker != null) {
            try {
                new java.io.File(marker).createNewFile();
            } catch (IOException e) {
                return false;
            }
        }
        int delay = Integer.getInteger("jdwpapp.compressDelayMs", 0);
        if (delay > 0) {
            try { Thread.sleep(delay); } catch (InterruptedException e) { return false; }
        }
        BufferedImage img = new BufferedImage(mWidth, mHeight, BufferedImage.TYPE_INT_ARGB);
        img.setRGB(0, 0, mWidth, mHeight, standInPixels, 0, mWidth);
        try {
            return ImageIO.write(img, "png", stream);
        } catch (IOException e) {
            return false;
        }
    }
}

package org.depengine.profiler;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/** Decodes 8-bit, non-interlaced PNGs (what Chromium's screenshots are) far enough to count colours. */
final class Png {
    final int width;
    final int height;
    final int channels;
    final byte[] pixels;

    private Png(int width, int height, int channels, byte[] pixels) {
        this.width = width;
        this.height = height;
        this.channels = channels;
        this.pixels = pixels;
    }

    static Png decode(byte[] file) throws DataFormatException {
        ByteBuffer b = ByteBuffer.wrap(file);
        if (b.getLong() != 0x89504E470D0A1A0AL) {
            throw new IllegalArgumentException("not a PNG");
        }
        int width = 0;
        int height = 0;
        int channels = 0;
        ByteArrayOutputStream idat = new ByteArrayOutputStream();
        while (b.remaining() >= 12) {
            int len = b.getInt();
            byte[] type = new byte[4];
            b.get(type);
            byte[] data = new byte[len];
            b.get(data);
            b.getInt(); // crc
            String t = new String(type, java.nio.charset.StandardCharsets.US_ASCII);
            if (t.equals("IHDR")) {
                ByteBuffer h = ByteBuffer.wrap(data);
                width = h.getInt();
                height = h.getInt();
                int depth = h.get();
                int colour = h.get();
                h.get();
                h.get();
                int interlace = h.get();
                if (depth != 8 || interlace != 0) {
                    throw new IllegalArgumentException("unsupported PNG: depth " + depth + " interlace " + interlace);
                }
                channels = switch (colour) {
                    case 0 -> 1;
                    case 2 -> 3;
                    case 4 -> 2;
                    case 6 -> 4;
                    default -> throw new IllegalArgumentException("unsupported colour type " + colour);
                };
            } else if (t.equals("IDAT")) {
                idat.writeBytes(data);
            } else if (t.equals("IEND")) {
                break;
            }
        }
        int stride = width * channels;
        byte[] raw = new byte[(stride + 1) * height];
        Inflater inf = new Inflater();
        inf.setInput(idat.toByteArray());
        int n = 0;
        while (n < raw.length && !inf.finished()) {
            int k = inf.inflate(raw, n, raw.length - n);
            if (k == 0 && (inf.needsInput() || inf.needsDictionary())) {
                break;
            }
            n += k;
        }
        inf.end();
        byte[] px = new byte[stride * height];
        for (int y = 0; y < height; y++) {
            int f = raw[y * (stride + 1)];
            for (int x = 0; x < stride; x++) {
                int cur = raw[y * (stride + 1) + 1 + x] & 0xFF;
                int a = x >= channels ? px[y * stride + x - channels] & 0xFF : 0;
                int up = y > 0 ? px[(y - 1) * stride + x] & 0xFF : 0;
                int c = x >= channels && y > 0 ? px[(y - 1) * stride + x - channels] & 0xFF : 0;
                int v = switch (f) {
                    case 0 -> cur;
                    case 1 -> cur + a;
                    case 2 -> cur + up;
                    case 3 -> cur + ((a + up) >>> 1);
                    case 4 -> cur + paeth(a, up, c);
                    default -> throw new IllegalArgumentException("bad filter " + f);
                };
                px[y * stride + x] = (byte) v;
            }
        }
        return new Png(width, height, channels, px);
    }

    private static int paeth(int a, int b, int c) {
        int p = a + b - c;
        int pa = Math.abs(p - a);
        int pb = Math.abs(p - b);
        int pc = Math.abs(p - c);
        return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c);
    }

    /** Distinct colours (all channels), capped at {@code cap}. */
    int distinctColours(int cap) {
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i + channels <= pixels.length && seen.size() < cap; i += channels) {
            int v = 0;
            for (int k = 0; k < Math.min(channels, 4); k++) {
                v = (v << 8) | (pixels[i + k] & 0xFF);
            }
            seen.add(v);
        }
        return seen.size();
    }
}

package com.example.crawl.egress.provider.kvm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An independent reader of the ISO 9660 structures the tests check: volume descriptors, the root
 * directory of the primary tree (with Rock Ridge entries) and of the Joliet tree. Written from
 * ECMA-119, SUSP/RRIP and the Joliet specification, not from {@link IsoImage}.
 */
record IsoReader(byte[] image) {

    static final int SECTOR = 2048;

    /** One directory record: its raw id, flags, extent, data length and system-use bytes. */
    record Entry(byte[] id, int flags, int extent, int length, byte[] systemUse) {
        boolean self() {
            return id.length == 1 && (id[0] == 0 || id[0] == 1);
        }
    }

    /** The descriptor sector of {@code type} (1 primary, 2 supplementary), or -1. */
    int descriptor(int type) {
        for (int s = 16; (s + 1) * SECTOR <= image.length; s++) {
            int at = s * SECTOR;
            if (!new String(image, at + 1, 5, StandardCharsets.US_ASCII).equals("CD001")) {
                return -1;
            }
            int t = image[at] & 0xff;
            if (t == type) {
                return s;
            }
            if (t == 255) {
                return -1;
            }
        }
        return -1;
    }

    String volumeId(int sector) {
        int at = sector * SECTOR + 40;
        return (isJoliet(sector) ? new String(image, at, 32, StandardCharsets.UTF_16BE)
                : new String(image, at, 32, StandardCharsets.US_ASCII)).strip();
    }

    boolean isJoliet(int sector) {
        int at = sector * SECTOR + 88;
        return image[at] == '%' && image[at + 1] == '/' && (image[at + 2] == '@' || image[at + 2] == 'C'
                || image[at + 2] == 'E');
    }

    int volumeSectors(int sector) {
        return both32(sector * SECTOR + 80);
    }

    /** The root directory's records of the tree a descriptor points at. */
    List<Entry> root(int sector) {
        int record = sector * SECTOR + 156;
        return directory(both32(record + 2), both32(record + 10));
    }

    List<Entry> directory(int extent, int length) {
        List<Entry> entries = new ArrayList<>();
        int at = extent * SECTOR;
        int end = at + length;
        while (at < end) {
            int size = image[at] & 0xff;
            if (size == 0) {
                at = (at / SECTOR + 1) * SECTOR;
                continue;
            }
            int idLength = image[at + 32] & 0xff;
            byte[] id = Arrays.copyOfRange(image, at + 33, at + 33 + idLength);
            int su = at + 33 + idLength + (idLength % 2 == 0 ? 1 : 0);
            entries.add(new Entry(id, image[at + 25] & 0xff, both32(at + 2), both32(at + 10),
                    Arrays.copyOfRange(image, su, at + size)));
            at += size;
        }
        return entries;
    }

    /** File name → content, names from Rock Ridge {@code NM} in the primary tree. */
    Map<String, String> rockRidgeFiles() {
        Map<String, String> files = new LinkedHashMap<>();
        for (Entry e : root(descriptor(1))) {
            if (!e.self()) {
                files.put(nm(e.systemUse()), content(e));
            }
        }
        return files;
    }

    /** File name → content, names from the Joliet tree (any {@code ;1} version dropped). */
    Map<String, String> jolietFiles() {
        Map<String, String> files = new LinkedHashMap<>();
        for (Entry e : root(descriptor(2))) {
            if (!e.self()) {
                files.put(new String(e.id(), StandardCharsets.UTF_16BE).replaceFirst(";1$", ""), content(e));
            }
        }
        return files;
    }

    String content(Entry e) {
        return new String(image, e.extent() * SECTOR, e.length(), StandardCharsets.UTF_8);
    }

    /** System-use entries as signature → body (after the 4-byte header), in order; stops at a bad length. */
    static List<Map.Entry<String, byte[]>> susp(byte[] su) {
        List<Map.Entry<String, byte[]>> out = new ArrayList<>();
        int at = 0;
        while (at + 4 <= su.length) {
            int len = su[at + 2] & 0xff;
            if (len < 4 || at + len > su.length) {
                break;
            }
            out.add(Map.entry(new String(su, at, 2, StandardCharsets.US_ASCII),
                    Arrays.copyOfRange(su, at + 4, at + len)));
            at += len;
        }
        return out;
    }

    private static String nm(byte[] su) {
        for (Map.Entry<String, byte[]> e : susp(su)) {
            if (e.getKey().equals("NM")) {
                return new String(e.getValue(), 1, e.getValue().length - 1, StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    /** A both-endian 32-bit field, checked to agree with itself. */
    int both32(int at) {
        int le = ByteBuffer.wrap(image, at, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int be = ByteBuffer.wrap(image, at + 4, 4).order(ByteOrder.BIG_ENDIAN).getInt();
        if (le != be) {
            throw new IllegalStateException("both-endian field at " + at + " disagrees: " + le + " vs " + be);
        }
        return le;
    }
}

package com.example.crawl.egress.provider.kvm;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A small ISO 9660 image writer: one volume, files in the root directory only, written the way
 * {@code genisoimage -J -r} lays them out, so that the names survive exactly (lowercase, with
 * dashes) whichever reader mounts it.
 *
 * <ul>
 *   <li>the primary volume descriptor's tree holds ISO 9660 names ({@code USER_DATA.;1}), each
 *       record carrying Rock Ridge entries: {@code PX} (mode 0444 files, 0555 directory) and
 *       {@code NM} (the real name); the root's {@code .} record carries {@code SP} and a
 *       {@code CE} pointing at the {@code ER} entry that announces Rock Ridge. Linux's iso9660
 *       driver prefers Rock Ridge when it finds that {@code ER};</li>
 *   <li>a Joliet supplementary volume descriptor (UCS-2 level 3) with a second tree of the same
 *       files under their real names, for readers without Rock Ridge;</li>
 *   <li>both trees share the file extents; every timestamp is one fixed instant, so the same
 *       files always give the same bytes.</li>
 * </ul>
 *
 * <p>Layout, in 2048-byte sectors: 0–15 system area (zeros), 16 primary descriptor, 17 Joliet
 * descriptor, 18 terminator, 19–22 the four path tables, 23 primary root, 24 Joliet root, 25 the
 * Rock Ridge continuation area, then the files in name order.
 */
final class IsoImage {

    static final int SECTOR = 2048;
    private static final int PVD = 16;
    private static final int SVD = 17;
    private static final int TERMINATOR = 18;
    private static final int PATH_L = 19;
    private static final int PATH_M = 20;
    private static final int JOLIET_PATH_L = 21;
    private static final int JOLIET_PATH_M = 22;
    private static final int ROOT = 23;
    private static final int JOLIET_ROOT = 24;
    private static final int CONTINUATION = 25;
    private static final int FIRST_FILE = 26;
    private static final int PATH_TABLE_SIZE = 10;
    /** 2020-01-01T00:00:00Z, the one timestamp of every image. */
    private static final byte[] RECORD_TIME = {120, 1, 1, 0, 0, 0, 0};
    private static final String DESCRIPTOR_TIME = "2020010100000000";
    private static final String RR_ID = "RRIP_1991A";
    private static final String RR_DESCRIPTOR =
            "THE ROCK RIDGE INTERCHANGE PROTOCOL PROVIDES SUPPORT FOR POSIX FILE SYSTEM SEMANTICS";
    private static final String RR_SOURCE = "PLEASE CONTACT DISC PUBLISHER FOR SPECIFICATION SOURCE.  SEE PUBLISHER "
            + "IDENTIFIER IN PRIMARY VOLUME DESCRIPTOR FOR CONTACT INFORMATION.";
    private static final int DIRECTORY_MODE = 040555;
    private static final int FILE_MODE = 0100444;

    private IsoImage() {
    }

    /**
     * The image of {@code files} (name → content) in the root directory of a volume named
     * {@code volumeId}.
     *
     * @throws IllegalArgumentException when a name is empty, longer than 64 characters, has a
     *         {@code /}, or maps to the same ISO 9660 name as another, or when the names do not fit
     *         in one directory sector
     */
    static byte[] write(String volumeId, Map<String, byte[]> files) {
        List<File> laidOut = layOut(files);
        int total = laidOut.isEmpty() ? FIRST_FILE : laidOut.getLast().end();
        byte[] image = new byte[total * SECTOR];
        descriptor(image, PVD, 1, volumeId, ROOT, PATH_L, PATH_M, total, false);
        descriptor(image, SVD, 2, volumeId, JOLIET_ROOT, JOLIET_PATH_L, JOLIET_PATH_M, total, true);
        image[TERMINATOR * SECTOR] = (byte) 255;
        System.arraycopy("CD001".getBytes(StandardCharsets.US_ASCII), 0, image, TERMINATOR * SECTOR + 1, 5);
        image[TERMINATOR * SECTOR + 6] = 1;
        pathTables(image, PATH_L, PATH_M, ROOT);
        pathTables(image, JOLIET_PATH_L, JOLIET_PATH_M, JOLIET_ROOT);
        byte[] er = extensionReference();
        System.arraycopy(er, 0, image, CONTINUATION * SECTOR, er.length);
        directory(image, ROOT, primaryRecords(laidOut, er.length));
        directory(image, JOLIET_ROOT, jolietRecords(laidOut));
        for (File f : laidOut) {
            System.arraycopy(f.content(), 0, image, f.extent() * SECTOR, f.content().length);
        }
        return image;
    }

    /** One file's place: its names in both trees, first sector, and content. */
    private record File(String name, String isoName, int extent, byte[] content) {
        int end() {
            return extent + (content.length + SECTOR - 1) / SECTOR;
        }
    }

    private static List<File> layOut(Map<String, byte[]> files) {
        List<String> names = new ArrayList<>(files.keySet());
        names.sort(Comparator.naturalOrder());
        Set<String> isoNames = new HashSet<>();
        List<File> out = new ArrayList<>();
        int next = FIRST_FILE;
        for (String name : names) {
            if (name.isEmpty() || name.length() > 64 || name.contains("/")) {
                throw new IllegalArgumentException("file name \"" + name + "\" does not fit an ISO 9660 root");
            }
            String isoName = isoName(name);
            if (!isoNames.add(isoName)) {
                throw new IllegalArgumentException("two file names map to ISO 9660 name " + isoName);
            }
            File f = new File(name, isoName, next, files.get(name));
            out.add(f);
            next = Math.max(f.end(), next);
        }
        return out;
    }

    /** {@code user-data} → {@code USER_DATA.;1}: d-characters, an extension dot, version 1. */
    static String isoName(String name) {
        int dot = name.lastIndexOf('.');
        String base = dot < 0 ? name : name.substring(0, dot);
        String ext = dot < 0 ? "" : name.substring(dot + 1);
        return dChars(base, 30 - Math.min(ext.length(), 3)) + "." + dChars(ext, 3) + ";1";
    }

    private static String dChars(String s, int max) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toUpperCase(java.util.Locale.ROOT).toCharArray()) {
            if (out.length() == max) {
                break;
            }
            out.append(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ? c : '_');
        }
        return out.toString();
    }

    private static List<byte[]> primaryRecords(List<File> files, int erLength) {
        List<byte[]> records = new ArrayList<>();
        byte[] dot = concat(new byte[] {'S', 'P', 7, 1, (byte) 0xbe, (byte) 0xef, 0}, px(DIRECTORY_MODE, 2),
                ce(CONTINUATION, 0, erLength));
        records.add(record(ROOT, SECTOR, 2, new byte[] {0}, dot));
        records.add(record(ROOT, SECTOR, 2, new byte[] {1}, px(DIRECTORY_MODE, 2)));
        List<File> sorted = new ArrayList<>(files);
        sorted.sort(Comparator.comparing(File::isoName));
        for (File f : sorted) {
            byte[] name = f.name().getBytes(StandardCharsets.UTF_8);
            byte[] nm = concat(new byte[] {'N', 'M', (byte) (5 + name.length), 1, 0}, name);
            records.add(record(f.extent(), f.content().length, 0, f.isoName().getBytes(StandardCharsets.US_ASCII),
                    concat(px(FILE_MODE, 1), nm)));
        }
        return records;
    }

    private static List<byte[]> jolietRecords(List<File> files) {
        List<byte[]> records = new ArrayList<>();
        records.add(record(JOLIET_ROOT, SECTOR, 2, new byte[] {0}, new byte[0]));
        records.add(record(JOLIET_ROOT, SECTOR, 2, new byte[] {1}, new byte[0]));
        for (File f : files) { // already in name order, which is UCS-2 order for these names
            records.add(record(f.extent(), f.content().length, 0, f.name().getBytes(StandardCharsets.UTF_16BE),
                    new byte[0]));
        }
        return records;
    }

    /** An ISO 9660 directory record (ECMA-119 9.1), padded to an even length. */
    private static byte[] record(int extent, int length, int flags, byte[] id, byte[] systemUse) {
        int head = 33 + id.length + (id.length % 2 == 0 ? 1 : 0);
        int size = head + systemUse.length + ((head + systemUse.length) % 2);
        if (size > 255) {
            throw new IllegalArgumentException("directory record of " + size + " bytes");
        }
        byte[] r = new byte[size];
        r[0] = (byte) size;
        both32(r, 2, extent);
        both32(r, 10, length);
        System.arraycopy(RECORD_TIME, 0, r, 18, RECORD_TIME.length);
        r[25] = (byte) flags;
        both16(r, 28, 1);
        r[32] = (byte) id.length;
        System.arraycopy(id, 0, r, 33, id.length);
        System.arraycopy(systemUse, 0, r, head, systemUse.length);
        return r;
    }

    private static void directory(byte[] image, int sector, List<byte[]> records) {
        int at = sector * SECTOR;
        for (byte[] r : records) {
            if (at + r.length > (sector + 1) * SECTOR) {
                throw new IllegalArgumentException("the file names do not fit in one directory sector");
            }
            System.arraycopy(r, 0, image, at, r.length);
            at += r.length;
        }
    }

    /** A primary (type 1) or Joliet supplementary (type 2) volume descriptor (ECMA-119 8.4). */
    private static void descriptor(byte[] image, int sector, int type, String volumeId, int root, int pathL,
            int pathM, int totalSectors, boolean joliet) {
        int at = sector * SECTOR;
        image[at] = (byte) type;
        System.arraycopy("CD001".getBytes(StandardCharsets.US_ASCII), 0, image, at + 1, 5);
        image[at + 6] = 1;
        text(image, at + 8, 32, "LINUX", joliet);
        text(image, at + 40, 32, volumeId, joliet);
        both32(image, at + 80, totalSectors);
        if (joliet) {
            System.arraycopy(new byte[] {'%', '/', 'E'}, 0, image, at + 88, 3); // UCS-2 level 3
        }
        both16(image, at + 120, 1);
        both16(image, at + 124, 1);
        both16(image, at + 128, SECTOR);
        both32(image, at + 132, PATH_TABLE_SIZE);
        le32(image, at + 140, pathL);
        be32(image, at + 148, pathM);
        byte[] rootRecord = record(root, SECTOR, 2, new byte[] {0}, new byte[0]);
        System.arraycopy(rootRecord, 0, image, at + 156, rootRecord.length);
        for (int field : new int[] {190, 318, 446}) {
            text(image, at + field, 128, "", joliet);
        }
        text(image, at + 574, 128, "EGRESS-PROXIES-OPERATOR", joliet);
        for (int field : new int[] {702, 739, 776}) {
            text(image, at + field, 37, "", joliet);
        }
        for (int field : new int[] {813, 830}) {
            System.arraycopy(DESCRIPTOR_TIME.getBytes(StandardCharsets.US_ASCII), 0, image, at + field, 16);
        }
        for (int field : new int[] {847, 864}) {
            Arrays.fill(image, at + field, at + field + 16, (byte) '0');
        }
        image[at + 881] = 1;
    }

    /** The root's entry in an L (little-endian) and an M (big-endian) path table. */
    private static void pathTables(byte[] image, int sectorL, int sectorM, int root) {
        for (int sector : new int[] {sectorL, sectorM}) {
            int at = sector * SECTOR;
            image[at] = 1;
            if (sector == sectorL) {
                le32(image, at + 2, root);
                image[at + 6] = 1;
            } else {
                be32(image, at + 2, root);
                image[at + 7] = 1;
            }
        }
    }

    /** A space-padded identifier: ASCII, or UCS-2 big-endian in a Joliet descriptor. */
    private static void text(byte[] image, int at, int length, String value, boolean joliet) {
        byte[] padded = new byte[length];
        if (joliet) {
            for (int i = 0; i + 1 < length; i += 2) {
                char c = i / 2 < value.length() ? value.charAt(i / 2) : ' ';
                padded[i] = (byte) (c >> 8);
                padded[i + 1] = (byte) c;
            }
        } else {
            Arrays.fill(padded, (byte) ' ');
            byte[] ascii = value.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(ascii, 0, padded, 0, Math.min(ascii.length, length));
        }
        System.arraycopy(padded, 0, image, at, length);
    }

    private static byte[] px(int mode, int links) {
        byte[] px = {'P', 'X', 36, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        both32(px, 4, mode);
        both32(px, 12, links);
        return px; // uid and gid 0
    }

    private static byte[] ce(int sector, int offset, int length) {
        byte[] ce = new byte[28];
        ce[0] = 'C';
        ce[1] = 'E';
        ce[2] = 28;
        ce[3] = 1;
        both32(ce, 4, sector);
        both32(ce, 12, offset);
        both32(ce, 20, length);
        return ce;
    }

    /** The {@code ER} entry announcing Rock Ridge (RRIP 1.09, as genisoimage writes it). */
    private static byte[] extensionReference() {
        byte[] id = RR_ID.getBytes(StandardCharsets.US_ASCII);
        byte[] des = RR_DESCRIPTOR.getBytes(StandardCharsets.US_ASCII);
        byte[] src = RR_SOURCE.getBytes(StandardCharsets.US_ASCII);
        byte[] head = {'E', 'R', (byte) (8 + id.length + des.length + src.length), 1, (byte) id.length,
            (byte) des.length, (byte) src.length, 1};
        return concat(head, id, des, src);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static void both16(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >> 8);
        b[at + 2] = (byte) (v >> 8);
        b[at + 3] = (byte) v;
    }

    private static void both32(byte[] b, int at, int v) {
        le32(b, at, v);
        be32(b, at + 4, v);
    }

    private static void le32(byte[] b, int at, int v) {
        for (int i = 0; i < 4; i++) {
            b[at + i] = (byte) (v >> (8 * i));
        }
    }

    private static void be32(byte[] b, int at, int v) {
        for (int i = 0; i < 4; i++) {
            b[at + 3 - i] = (byte) (v >> (8 * i));
        }
    }
}

package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.provider.ProviderException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;
import org.w3c.dom.Element;

/**
 * The storage volumes of one VM, their names and their libvirt XML, as pure functions.
 *
 * <p>Names are derived, never stored: a VM's overlay is {@code <name>.qcow2} and its seed
 * {@code <name>-seed.iso}, so {@code delete} finds both from the providerID alone, and a retried
 * {@code create} finds what an earlier attempt made. The base image is named after its content,
 * {@code egress-base-sha256-<digest>.img}, so that every VM of the same image on a host shares
 * one copy; an image given without a digest is named after its URL instead
 * ({@code egress-base-url-<sha256 of the URL>.img}), the two prefixes keeping a URL's hash from
 * ever passing for a content digest.
 */
final class VolumeXml {

    static final String BASE_PREFIX = "egress-base-";
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final byte[] QCOW2_MAGIC = {'Q', 'F', 'I', (byte) 0xfb};

    /** The on-disk formats this provider writes or reads. */
    enum Format { qcow2, raw }

    private VolumeXml() {
    }

    /** The VM's copy-on-write disk over the base image. */
    static String overlayName(String domain) {
        return domain + ".qcow2";
    }

    /** The VM's NoCloud seed ISO. */
    static String seedName(String domain) {
        return domain + "-seed.iso";
    }

    /**
     * The base image volume of {@code image}: named by its {@code sha256} when given, else by the
     * hash of its URL.
     *
     * @throws ProviderException.Permanent when the image, its URL, or the form of its digest is
     *                                     wrong (the CRD enforces these; a hand-made object may not)
     */
    static String baseName(KvmSpec.Image image) throws ProviderException.Permanent {
        if (image == null || image.url() == null || image.url().isBlank()) {
            throw new ProviderException.Permanent("spec.kvm.image.url: required by a kvm provider");
        }
        if (image.sha256() == null || image.sha256().isEmpty()) {
            return BASE_PREFIX + "url-" + hex(image.url().getBytes(StandardCharsets.UTF_8)) + ".img";
        }
        if (!SHA256.matcher(image.sha256()).matches()) {
            throw new ProviderException.Permanent("spec.kvm.image.sha256: must be 64 lowercase hex characters");
        }
        return BASE_PREFIX + "sha256-" + image.sha256() + ".img";
    }

    /**
     * The format of an image by its first bytes: {@code qcow2} by its magic ({@code QFI\xfb}),
     * anything else {@code raw}. Cloud images come in both; libvirt must be told which, because
     * it does not guess the format of a backing file.
     */
    static Format sniff(byte[] head) {
        if (head.length < QCOW2_MAGIC.length) {
            return Format.raw;
        }
        for (int i = 0; i < QCOW2_MAGIC.length; i++) {
            if (head[i] != QCOW2_MAGIC[i]) {
                return Format.raw;
            }
        }
        return Format.qcow2;
    }

    /**
     * The base image volume, before its bytes are uploaded: {@code bytes} long (the downloaded
     * file's size) in the image's own {@code format}.
     */
    static String base(String name, long bytes, Format format) throws ProviderException.Permanent {
        return volume(name, "bytes", bytes, format, null, null);
    }

    /**
     * The VM's overlay: a qcow2 volume of {@code diskGiB} whose backing store is the base image at
     * {@code basePath} (the path libvirt reports for the base volume) in {@code baseFormat}. The
     * guest sees {@code diskGiB}; cloud-init grows its root partition to fill it.
     */
    static String overlay(String domain, int diskGiB, String basePath, Format baseFormat)
            throws ProviderException.Permanent {
        return volume(overlayName(domain), "GiB", diskGiB, Format.qcow2, XmlDoc.legal(basePath, "base image path"),
                baseFormat);
    }

    /** The VM's seed ISO volume, {@code bytes} long, uploaded after it is created. */
    static String seed(String domain, long bytes) throws ProviderException.Permanent {
        return volume(seedName(domain), "bytes", bytes, Format.raw, null, null);
    }

    private static String volume(String name, String unit, long capacity, Format format, String backingPath,
            Format backingFormat) throws ProviderException.Permanent {
        XmlDoc xml = XmlDoc.create();
        Element volume = xml.root("volume");
        xml.text(volume, "name", XmlDoc.legal(name, "volume name"));
        xml.attr(xml.text(volume, "capacity", Long.toString(capacity)), "unit", unit);
        xml.attr(xml.child(xml.child(volume, "target"), "format"), "type", format.name());
        if (backingPath != null) {
            Element backing = xml.child(volume, "backingStore");
            xml.text(backing, "path", backingPath);
            xml.attr(xml.child(backing, "format"), "type", backingFormat.name());
        }
        return xml.serialise();
    }

    private static String hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK ships SHA-256", e);
        }
    }
}

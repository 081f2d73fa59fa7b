package com.example.crawl.egress.provider.kvm;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Which files a domain's disks and a pool's volumes read, from the XML libvirt reports, as pure
 * functions: what {@link UnusedBases} needs to tell whether a base image is in use.
 *
 * <ul>
 *   <li>A domain's disk names its top file: a path ({@code type='file'} or {@code 'block'}), a
 *       volume of a pool ({@code type='volume'}), nothing (an empty CD-ROM), or something
 *       without a local path ({@code network}, {@code nvme}, ...). A running domain's XML also
 *       lists the files below the top ({@code <backingStore>}, as QEMU opened them), ending in an
 *       empty {@code <backingStore/>} when libvirt read the whole chain; a stopped domain's XML
 *       lists none. A block job's {@code <mirror>} is read as one more disk.</li>
 *   <li>A volume names its path and, for an overlay, its backing file and that file's format.</li>
 * </ul>
 */
final class DiskChains {

    /**
     * Formats that QEMU never opens a backing file for. libvirt opens a disk whose XML states no
     * format as raw (it has not probed formats since 2010), so a missing format counts as raw.
     */
    private static final Set<String> NO_BACKING = Set.of("raw", "iso", "fat");

    private DiskChains() {
    }

    /** One file of a chain: its path (null when it has none, a network layer) and format (null: not stated). */
    record Layer(String path, String format) {
    }

    /** Where a disk's top file is, as the domain XML states it. */
    sealed interface Source permits File, PoolVolume, Empty, Elsewhere {
    }

    /** A file or block device, by path. */
    record File(String path) implements Source {
    }

    /** A volume of a storage pool, by pool and volume name. */
    record PoolVolume(String pool, String volume) implements Source {
    }

    /** No medium. */
    record Empty() implements Source {
    }

    /** A disk without a local path ({@code network}, {@code nvme}, {@code vhostuser}, ...): nothing to follow. */
    record Elsewhere(String type) implements Source {
    }

    /**
     * One disk of a domain.
     *
     * @param target the guest's device name ({@code vda}), for messages
     * @param format the format QEMU opens the top file with (null: not stated)
     * @param below  the files under the top, as a running domain's XML lists them
     * @param ends   whether {@code below} is the whole chain (the XML ends it with an empty
     *               {@code <backingStore/>})
     */
    record Disk(String target, Source source, String format, List<Layer> below, boolean ends) {
        Disk {
            below = List.copyOf(below);
        }
    }

    /**
     * One volume of an active pool.
     *
     * @param backing what it is an overlay of, or null
     */
    record Volume(String pool, String name, String path, Layer backing) {
    }

    /** Whether QEMU may open a backing file under a file of {@code format} (null counts as raw). */
    static boolean mayHaveBacking(String format) {
        return format != null && !NO_BACKING.contains(format);
    }

    /**
     * The disks of a domain XML ({@code virDomainGetXMLDesc}).
     *
     * @throws IllegalArgumentException when {@code xml} is not a well-formed domain document
     */
    static List<Disk> disks(String xml) {
        Element domain = root(xml, "domain");
        List<Disk> out = new ArrayList<>();
        for (Element devices : children(domain, "devices")) {
            for (Element disk : children(devices, "disk")) {
                String target = attr(first(disk, "target"), "dev");
                String format = attr(first(disk, "driver"), "type");
                out.add(disk(target, disk, format));
                for (Element mirror : children(disk, "mirror")) {
                    String mirrorFormat = attr(first(mirror, "format"), "type");
                    out.add(disk(target + " (block job mirror)", mirror,
                            mirrorFormat != null ? mirrorFormat : attr(mirror, "format")));
                }
            }
        }
        return out;
    }

    /**
     * A volume XML ({@code virStorageVolGetXMLDesc}) of {@code pool}.
     *
     * @throws IllegalArgumentException when {@code xml} is not a well-formed volume document with a path
     */
    static Volume volume(String pool, String name, String xml) {
        Element volume = root(xml, "volume");
        String path = text(first(first(volume, "target"), "path"));
        if (path == null) {
            throw new IllegalArgumentException("volume " + name + " of pool " + pool + " has no target path");
        }
        Element backing = first(volume, "backingStore");
        Layer layer = null;
        if (backing != null && text(first(backing, "path")) != null) {
            layer = new Layer(text(first(backing, "path")), attr(first(backing, "format"), "type"));
        }
        return new Volume(pool, name, path, layer);
    }

    private static Disk disk(String target, Element disk, String format) {
        Source source = source(disk);
        List<Layer> below = new ArrayList<>();
        boolean ends = false;
        for (Element layer = first(disk, "backingStore"); layer != null; layer = first(layer, "backingStore")) {
            if (!hasElements(layer)) {
                ends = true; // <backingStore/>: nothing below
                break;
            }
            Element src = first(layer, "source");
            below.add(new Layer(src == null ? null : path(src), attr(first(layer, "format"), "type")));
        }
        return new Disk(target, source, format, below, ends);
    }

    private static Source source(Element disk) {
        String type = disk.getAttribute("type");
        Element src = first(disk, "source");
        if (src == null) {
            // A mirror of the old form names its file in an attribute of its own.
            return disk.getAttribute("file").isEmpty() ? new Empty() : new File(disk.getAttribute("file"));
        }
        return switch (type) {
            case "file", "block", "" -> {
                String path = path(src);
                yield path == null ? new Empty() : new File(path);
            }
            case "volume" -> new PoolVolume(src.getAttribute("pool"), src.getAttribute("volume"));
            default -> new Elsewhere(type);
        };
    }

    private static String path(Element source) {
        for (String attr : List.of("file", "dev")) {
            if (!source.getAttribute(attr).isEmpty()) {
                return source.getAttribute(attr);
            }
        }
        return null;
    }

    private static Element root(String xml, String name) {
        Document doc;
        try {
            DocumentBuilder builder = XmlDoc.secureFactory().newDocumentBuilder();
            builder.setErrorHandler(new DefaultHandler()); // silence the default handler's stderr line
            doc = builder.parse(new InputSource(new StringReader(xml == null ? "" : xml)));
        } catch (SAXException | IOException | ParserConfigurationException e) {
            throw new IllegalArgumentException("not well-formed XML: " + e.getMessage(), e);
        }
        Element root = doc.getDocumentElement();
        if (!name.equals(root.getLocalName())) {
            throw new IllegalArgumentException("not a " + name + " document but <" + root.getLocalName() + ">");
        }
        return root;
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        if (parent == null) {
            return out;
        }
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getNamespaceURI() == null && name.equals(e.getLocalName())) {
                out.add(e);
            }
        }
        return out;
    }

    private static Element first(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.getFirst();
    }

    private static boolean hasElements(Element e) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element) {
                return true;
            }
        }
        return false;
    }

    private static String attr(Element e, String name) {
        return e == null || e.getAttribute(name).isEmpty() ? null : e.getAttribute(name);
    }

    private static String text(Element e) {
        return e == null || e.getTextContent().isBlank() ? null : e.getTextContent().strip();
    }
}

package com.example.crawl.egress.provider.kvm;

import java.io.IOException;
import java.io.StringReader;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Who a domain belongs to, as recorded in its {@code <metadata>}: libvirt has no labels, so one
 * element under our own namespace carries what the gcp provider keeps in labels.
 *
 * <pre>{@code
 * <metadata>
 *   <egress:owner xmlns:egress="https://crawl.example.com/egress-proxies-operator/domain/v1">
 *     <egress:managed>true</egress:managed>
 *     <egress:cluster>prod-eu</egress:cluster>
 *     <egress:uid>6f1c...</egress:uid>
 *     <egress:namespace>crawlers</egress:namespace>
 *     <egress:name>kvm-home-1</egress:name>
 *     <egress:created>2026-12-01T15:00:00Z</egress:created>
 *   </egress:owner>
 * </metadata>
 * }</pre>
 *
 * <p>libvirt keeps an element of a foreign namespace as it is inside the whole domain XML
 * ({@link #fromDomainXml}), and hands it back alone, without its namespace, through
 * {@code virDomainGetMetadata(ELEMENT, uri)} ({@link #fromMetadata}).
 *
 * @param cluster   the installation that made it ({@code --cluster-name})
 * @param ownerUid  UID of the owning Proxy: garbage collection's proof of ownership
 * @param namespace the Proxy's namespace, for a human reading {@code virsh dumpxml}
 * @param proxyName the Proxy's name, likewise
 * @param createdAt when the domain was defined; null when absent or unreadable (then its age
 *                  cannot prove it an orphan)
 */
record DomainOwner(String cluster, String ownerUid, String namespace, String proxyName, Instant createdAt) {

    /** Our metadata namespace. A URI that names us; libvirt never dereferences it. */
    static final String NAMESPACE = "https://crawl.example.com/egress-proxies-operator/domain/v1";
    static final String PREFIX = "egress";
    static final String ELEMENT = "owner";

    DomainOwner {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(ownerUid, "ownerUid");
    }

    /** {@code <metadata>} holding this owner's element, made in {@code doc}. */
    static Element element(Document doc, DomainOwner owner) {
        Element metadata = doc.createElement("metadata");
        Element element = doc.createElementNS(NAMESPACE, PREFIX + ":" + ELEMENT);
        metadata.appendChild(element);
        child(doc, element, "managed", "true");
        child(doc, element, "cluster", owner.cluster());
        child(doc, element, "uid", owner.ownerUid());
        child(doc, element, "namespace", owner.namespace());
        child(doc, element, "name", owner.proxyName());
        if (owner.createdAt() != null) {
            child(doc, element, "created", owner.createdAt().toString());
        }
        return metadata;
    }

    /**
     * The owner recorded in a whole domain XML ({@code virDomainGetXMLDesc}), or empty when the
     * domain is not ours: no element of our namespace in its {@code <metadata>}, two of them, no
     * {@code managed=true}, no UID or cluster, or anything that is not well-formed XML. Never
     * throws: a domain whose XML cannot be read is one we cannot prove ours, and the callers skip
     * it.
     */
    static Optional<DomainOwner> fromDomainXml(String xml) {
        Document doc = parse(xml);
        if (doc == null || !"domain".equals(doc.getDocumentElement().getLocalName())) {
            return Optional.empty();
        }
        List<Element> owners = new ArrayList<>();
        for (Element metadata : children(doc.getDocumentElement(), null, "metadata")) {
            owners.addAll(children(metadata, NAMESPACE, ELEMENT));
        }
        return owners.size() == 1 ? of(owners.getFirst(), NAMESPACE) : Optional.empty();
    }

    /**
     * The owner in what {@code virDomainGetMetadata(ELEMENT, NAMESPACE)} returns: our element with
     * the namespace stripped (libvirt 9.0 hands it back as a plain {@code <owner>}); one that
     * still carries our namespace is read too. Empty, never an exception, as for
     * {@link #fromDomainXml}.
     */
    static Optional<DomainOwner> fromMetadata(String xml) {
        Document doc = parse(xml);
        if (doc == null) {
            return Optional.empty();
        }
        Element root = doc.getDocumentElement();
        String ns = root.getNamespaceURI();
        if (!ELEMENT.equals(root.getLocalName()) || ns != null && !ns.equals(NAMESPACE)) {
            return Optional.empty();
        }
        return of(root, ns);
    }

    /** {@code xml} parsed without DTDs or external entities, or null when it is not well-formed. */
    private static Document parse(String xml) {
        if (xml == null || xml.isBlank()) {
            return null;
        }
        try {
            DocumentBuilder builder = XmlDoc.secureFactory().newDocumentBuilder();
            builder.setErrorHandler(new DefaultHandler()); // silence the default handler's stderr line
            return builder.parse(new InputSource(new StringReader(xml)));
        } catch (SAXException | IOException | ParserConfigurationException | RuntimeException e) {
            return null;
        }
    }

    private static Optional<DomainOwner> of(Element owner, String ns) {
        String uid = value(owner, ns, "uid");
        String cluster = value(owner, ns, "cluster");
        if (!"true".equals(value(owner, ns, "managed")) || uid == null || uid.isEmpty() || cluster == null) {
            return Optional.empty();
        }
        return Optional.of(new DomainOwner(cluster, uid, value(owner, ns, "namespace"), value(owner, ns, "name"),
                instant(value(owner, ns, "created"))));
    }

    /** The direct children {@code name} of {@code parent} in namespace {@code ns} (null: none). */
    private static List<Element> children(Element parent, String ns, String name) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && Objects.equals(ns, e.getNamespaceURI()) && name.equals(e.getLocalName())) {
                out.add(e);
            }
        }
        return out;
    }

    /** The text of the one direct child {@code name} in namespace {@code ns}, or null (none, or two). */
    private static String value(Element parent, String ns, String name) {
        List<Element> found = children(parent, ns, name);
        return found.size() == 1 ? found.getFirst().getTextContent().strip() : null;
    }

    private static Instant instant(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static void child(Document doc, Element parent, String name, String text) {
        Element child = doc.createElementNS(NAMESPACE, PREFIX + ":" + name);
        child.setTextContent(text);
        parent.appendChild(child);
    }
}

package com.example.crawl.egress.provider.kvm;

import java.io.IOException;
import java.io.StringReader;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
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
 * <p>libvirt keeps an element of a foreign namespace as it is and hands it back through
 * {@code virDomainGetMetadata(ELEMENT, uri)} or inside the whole domain XML; {@link #parse}
 * reads either.
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
     * The owner recorded in {@code xml} (a whole domain XML, or the metadata element alone), or
     * empty when the domain is not ours: no element of our namespace, no {@code managed=true},
     * no UID or cluster, or anything that is not well-formed XML. Never throws: a domain whose XML
     * cannot be read is one we cannot prove ours, and the callers skip it.
     */
    static Optional<DomainOwner> parse(String xml) {
        if (xml == null || xml.isBlank()) {
            return Optional.empty();
        }
        try {
            DocumentBuilder builder = XmlDoc.secureFactory().newDocumentBuilder();
            builder.setErrorHandler(new DefaultHandler()); // silence the default handler's stderr line
            Document doc = builder.parse(new InputSource(new StringReader(xml)));
            NodeList owners = doc.getElementsByTagNameNS(NAMESPACE, ELEMENT);
            return owners.getLength() == 1 ? of((Element) owners.item(0)) : Optional.empty();
        } catch (SAXException | IOException | ParserConfigurationException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<DomainOwner> of(Element owner) {
        String uid = value(owner, "uid");
        String cluster = value(owner, "cluster");
        if (!"true".equals(value(owner, "managed")) || uid == null || uid.isEmpty() || cluster == null) {
            return Optional.empty();
        }
        return Optional.of(new DomainOwner(cluster, uid, value(owner, "namespace"), value(owner, "name"),
                instant(value(owner, "created"))));
    }

    /** The text of the one direct child {@code name} of our namespace, or null. */
    private static String value(Element parent, String name) {
        String found = null;
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && NAMESPACE.equals(e.getNamespaceURI()) && name.equals(e.getLocalName())) {
                if (found != null) {
                    return null; // two answers to one question: believe neither
                }
                found = e.getTextContent().strip();
            }
        }
        return found;
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

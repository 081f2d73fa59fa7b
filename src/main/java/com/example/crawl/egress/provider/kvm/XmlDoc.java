package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.provider.ProviderException;
import java.io.StringWriter;
import java.util.Objects;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The libvirt XML documents this provider writes, built as a DOM and serialised by the JDK, which
 * escapes markup in every text and attribute; and the one parser setting for the documents it
 * reads (no DTD, no external entity). Terse on purpose, so that a document's shape reads top to
 * bottom where it is built.
 */
record XmlDoc(Document doc) {

    static XmlDoc create() {
        try {
            return new XmlDoc(secureFactory().newDocumentBuilder().newDocument());
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's parser builds empty documents", e);
        }
    }

    /** A namespace-aware parser factory that reads no DTD and resolves no external entity. */
    static DocumentBuilderFactory secureFactory() {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setExpandEntityReferences(false);
        factory.setXIncludeAware(false);
        try {
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's parser supports these features", e);
        }
        return factory;
    }

    /**
     * {@code value}, if XML 1.0 can carry it. Escaping takes care of markup, but no escape makes a
     * control character other than tab, newline and carriage return, U+FFFE, U+FFFF or an unpaired
     * surrogate legal, so such a value is refused.
     *
     * @throws ProviderException.Permanent naming {@code field} and the character
     */
    static String legal(String value, String field) throws ProviderException.Permanent {
        Objects.requireNonNull(value, field);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1));
            if (pair) {
                i++;
                continue;
            }
            boolean control = c < 0x20 && c != '\t' && c != '\n' && c != '\r';
            if (control || c == 0xfffe || c == 0xffff || Character.isSurrogate(c)) {
                throw new ProviderException.Permanent(field + ": contains a character a libvirt XML document cannot "
                        + "hold (U+" + String.format("%04X", (int) c) + ")");
            }
        }
        return value;
    }

    Element root(String name) {
        Element root = doc.createElement(name);
        doc.appendChild(root);
        return root;
    }

    Element root(String name, String attr, String value) {
        return attr(root(name), attr, value);
    }

    Element child(Element parent, String name) {
        Element child = doc.createElement(name);
        parent.appendChild(child);
        return child;
    }

    Element text(Element parent, String name, String text) {
        Element child = child(parent, name);
        child.setTextContent(text);
        return child;
    }

    Element attr(Element element, String name, String value) {
        element.setAttribute(name, value);
        return element;
    }

    /** The document as indented XML without a declaration (libvirt wants none). */
    String serialise() {
        try {
            Transformer transformer = TransformerFactory.newInstance().newTransformer();
            transformer.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
            transformer.setOutputProperty(OutputKeys.INDENT, "yes");
            transformer.setOutputProperty("{http://xml.apache.org/xslt}indent-amount", "2");
            StringWriter out = new StringWriter();
            transformer.transform(new DOMSource(doc), new StreamResult(out));
            return out.toString();
        } catch (TransformerException e) {
            throw new IllegalStateException("a DOM built here always serialises", e);
        }
    }
}

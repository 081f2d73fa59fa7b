package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.provider.ProviderException;
import java.util.Locale;
import org.libvirt.Error.ErrorNumber;
import org.libvirt.LibvirtException;

/**
 * libvirt's errors sorted into the four provider classes. Pure.
 *
 * <table>
 *   <caption>libvirt error code to provider class</caption>
 *   <tr><th>libvirt</th><th>class</th><th>why</th></tr>
 *   <tr><td>{@code NO_DOMAIN}</td><td>NotFound</td><td>the domain does not exist: an answer</td></tr>
 *   <tr><td>{@code NO_STORAGE_VOL}</td><td>NotFound</td><td>a volume does not exist; callers
 *       that expect one absent look it up first</td></tr>
 *   <tr><td>{@code XML_ERROR}, {@code XML_DETAIL}, {@code XML_INVALID_SCHEMA},
 *       {@code CONFIG_UNSUPPORTED}, {@code INVALID_ARG}, {@code NO_NETWORK}, {@code OS_TYPE},
 *       {@code CPU_INCOMPATIBLE}</td><td>Permanent</td><td>the document built from the spec
 *       cannot work on this host (a network the spec names that the host lacks, firmware it
 *       cannot provide); a retry sends the same document</td></tr>
 *   <tr><td>a message saying {@code No space left on device} or {@code Cannot allocate memory}
 *       (the host's disk or RAM)</td><td>QuotaExceeded</td><td>the host is full: a wait, not a
 *       failure</td></tr>
 *   <tr><td>everything else ({@code NO_STORAGE_POOL}, {@code OPERATION_INVALID},
 *       {@code OPERATION_FAILED}, {@code INTERNAL_ERROR}, {@code SYSTEM_ERROR}, {@code RPC},
 *       {@code AUTH_FAILED}, {@code ACCESS_DENIED}...)</td><td>Transient</td><td>a host-side
 *       condition the host's admin can fix without touching the Proxy (a missing or stopped pool,
 *       an ACL), or one that passes; the checker names the lasting ones</td></tr>
 * </table>
 */
final class LibvirtFailure {

    private LibvirtFailure() {
    }

    /** Whether {@code e} carries libvirt error {@code code}. */
    static boolean is(LibvirtException e, ErrorNumber code) {
        return e.getError() != null && e.getError().getCode() == code;
    }

    /** {@code e} as a provider error whose message starts with {@code what}. */
    static ProviderException classify(String what, LibvirtException e) {
        ErrorNumber code = e.getError() == null ? ErrorNumber.VIR_ERR_UNKNOWN : e.getError().getCode();
        String message = what + ": " + describe(e);
        if (full(e)) {
            return new ProviderException.QuotaExceeded(message, e);
        }
        return switch (code) {
            case VIR_ERR_NO_DOMAIN, VIR_ERR_NO_STORAGE_VOL -> new ProviderException.NotFound(message, e);
            case VIR_ERR_XML_ERROR, VIR_ERR_XML_DETAIL, VIR_ERR_XML_INVALID_SCHEMA, VIR_ERR_CONFIG_UNSUPPORTED,
                    VIR_ERR_INVALID_ARG, VIR_ERR_NO_NETWORK, VIR_ERR_OS_TYPE, VIR_ERR_CPU_INCOMPATIBLE ->
                    new ProviderException.Permanent(message, e);
            default -> new ProviderException.Transient(message, e);
        };
    }

    /** libvirt's code and message, without the Java class name that {@code toString} adds. */
    static String describe(LibvirtException e) {
        if (e.getError() == null) {
            return String.valueOf(e.getMessage());
        }
        return e.getError().getCode() + ": " + e.getError().getMessage();
    }

    private static boolean full(LibvirtException e) {
        String text = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        return text.contains("no space left on device") || text.contains("cannot allocate memory");
    }
}

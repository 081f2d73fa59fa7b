package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.CheckCall;
import com.example.crawl.egress.provider.ProviderException;
import java.lang.reflect.Constructor;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.libvirt.Error;
import org.libvirt.Error.ErrorNumber;
import org.libvirt.LibvirtException;
import org.libvirt.jna.virError;

/** The libvirt error table of {@link LibvirtFailure}, the checker's reasons, and the accelerator choice. */
class LibvirtFailureTest {

    @Test
    void shouldSortLibvirtErrorsIntoTheFourClasses() throws Exception {
        assertClass(ProviderException.NotFound.class, ErrorNumber.VIR_ERR_NO_DOMAIN, "Domain not found");
        assertClass(ProviderException.NotFound.class, ErrorNumber.VIR_ERR_NO_STORAGE_VOL, "no volume");
        assertClass(ProviderException.Permanent.class, ErrorNumber.VIR_ERR_NO_NETWORK, "Network not found: 'lan'");
        assertClass(ProviderException.Permanent.class, ErrorNumber.VIR_ERR_XML_ERROR, "bad XML");
        assertClass(ProviderException.Permanent.class, ErrorNumber.VIR_ERR_CONFIG_UNSUPPORTED, "no firmware");
        assertClass(ProviderException.QuotaExceeded.class, ErrorNumber.VIR_ERR_INTERNAL_ERROR,
                "cannot write: No space left on device");
        assertClass(ProviderException.QuotaExceeded.class, ErrorNumber.VIR_ERR_INTERNAL_ERROR,
                "qemu: Cannot allocate memory");
        assertClass(ProviderException.Transient.class, ErrorNumber.VIR_ERR_NO_STORAGE_POOL, "pool not found");
        assertClass(ProviderException.Transient.class, ErrorNumber.VIR_ERR_OPERATION_INVALID, "not running");
        assertClass(ProviderException.Transient.class, ErrorNumber.VIR_ERR_RPC, "connection reset");
    }

    @Test
    void shouldNameTheStepAndLibvirtsCodeInTheMessage() throws Exception {
        ProviderException e = LibvirtFailure.classify("host h: read domain d",
                libvirt(ErrorNumber.VIR_ERR_NO_DOMAIN, "Domain not found: no domain with matching name 'd'"));
        assertTrue(e.getMessage().startsWith("host h: read domain d: VIR_ERR_NO_DOMAIN: Domain not found"),
                e.getMessage());
    }

    @Test
    void shouldGiveTheCheckerAReasonPerFailure() throws Exception {
        assertEquals(CheckCall.TIMEOUT, KvmCheck.reason(new ProviderException.Transient("late",
                new TimeoutException("late"))));
        assertEquals(KvmCheck.SSH_UNREACHABLE, KvmCheck.reason(dial(DialFailure.Stage.TCP)));
        assertEquals(KvmCheck.SSH_HANDSHAKE_FAILED, KvmCheck.reason(dial(DialFailure.Stage.SSH_HANDSHAKE)));
        assertEquals(KvmCheck.LIBVIRT_UNREACHABLE, KvmCheck.reason(dial(DialFailure.Stage.LIBVIRT_CONNECT)));
        assertEquals(KvmCheck.LIBVIRT_UNREACHABLE, KvmCheck.reason(libvirt(ErrorNumber.VIR_ERR_RPC, "eof")));
        assertEquals(KvmCheck.LIBVIRT_ERROR, KvmCheck.reason(libvirt(ErrorNumber.VIR_ERR_ACCESS_DENIED, "no")));
    }

    @Test
    void shouldChooseKvmOnlyWhenTheCapabilitiesOfferIt() {
        String tcgOnly = "<capabilities><guest><arch name='x86_64'><domain type='qemu'/></arch></guest></capabilities>";
        String both = "<capabilities><guest><arch name='x86_64'><domain type='qemu'/><domain type='kvm'/>"
                + "</arch></guest></capabilities>";
        assertEquals(DomainXml.Accel.qemu, KvmProvider.accel(tcgOnly));
        assertEquals(DomainXml.Accel.kvm, KvmProvider.accel(both));
    }

    @Test
    void shouldTakeTheHostsAcceleratorSettingOverItsCapabilities() {
        assertEquals(Optional.of(DomainXml.Accel.qemu), KvmProvider.pinned(ProviderConfig.Accelerator.tcg));
        assertEquals(Optional.of(DomainXml.Accel.kvm), KvmProvider.pinned(ProviderConfig.Accelerator.kvm));
        assertEquals(Optional.empty(), KvmProvider.pinned(ProviderConfig.Accelerator.auto), "auto asks the capabilities");
    }

    @Test
    void shouldPrintLibvirtsPackedVersion() {
        assertEquals("9.0.0", HostChecks.version(9_000_000));
        assertEquals("10.10.3", HostChecks.version(10_010_003));
    }

    private static ProviderException dial(DialFailure.Stage stage) {
        return new ProviderException.Transient("host h: " + stage.tag, new DialFailure(stage, "x", null));
    }

    private static void assertClass(Class<? extends ProviderException> expected, ErrorNumber code, String message)
            throws Exception {
        ProviderException e = LibvirtFailure.classify("step", libvirt(code, message));
        assertInstanceOf(expected, e, code + " " + message + " -> " + e.kind());
    }

    /** A LibvirtException as libvirt-java makes one; its constructor is package-private. */
    static LibvirtException libvirt(ErrorNumber code, String message) throws Exception {
        virError raw = new virError();
        raw.code = code.ordinal();
        raw.message = message;
        Constructor<LibvirtException> make = LibvirtException.class.getDeclaredConstructor(Error.class);
        make.setAccessible(true);
        return make.newInstance(new Error(raw));
    }
}

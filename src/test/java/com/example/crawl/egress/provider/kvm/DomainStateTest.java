package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.libvirt.DomainInfo;

class DomainStateTest {

    private static final DomainId ID = new DomainId("hv1", "proxy-abc");
    private static final DomainOwner OWNER = new DomainOwner("prod", "uid-1", "crawlers", "kvm-1",
            Instant.parse("2026-12-01T15:00:00Z"));

    @ParameterizedTest(name = "{0} with address {1} -> {2}")
    @CsvSource(nullValues = "-", value = {
        "VIR_DOMAIN_NOSTATE,     192.168.122.5, Provisioning",
        "VIR_DOMAIN_NOSTATE,     -,             Provisioning",
        "VIR_DOMAIN_RUNNING,     192.168.122.5, Running",
        "VIR_DOMAIN_RUNNING,     -,             Provisioning",
        "VIR_DOMAIN_BLOCKED,     192.168.122.5, Running",
        "VIR_DOMAIN_BLOCKED,     -,             Provisioning",
        "VIR_DOMAIN_PAUSED,      192.168.122.5, Provisioning",
        "VIR_DOMAIN_SHUTDOWN,    192.168.122.5, Stopped",
        "VIR_DOMAIN_SHUTOFF,     -,             Stopped",
        "VIR_DOMAIN_CRASHED,     -,             Stopped",
        "VIR_DOMAIN_PMSUSPENDED, 192.168.122.5, Stopped",
    })
    void shouldMapEveryLibvirtStateByTheTable(DomainInfo.DomainState state, String ip, InstanceState expected) {
        assertEquals(expected, DomainState.of(state, ip));
    }

    @Test
    void shouldWaitRatherThanReplaceWhenTheStateCouldNotBeRead() {
        assertEquals(InstanceState.Provisioning, DomainState.of(null, "192.168.122.5"));
    }

    @Test
    void shouldCarryOwnerAgeAndAddressOfARunningDomain() {
        Instance i = DomainState.instance(ID, DomainInfo.DomainState.VIR_DOMAIN_RUNNING, OWNER, "192.168.122.5");

        assertEquals(new Instance("hosts/hv1/domains/proxy-abc", "proxy-abc", "uid-1", InstanceState.Running,
                "192.168.122.5", OWNER.createdAt()), i);
    }

    @Test
    void shouldReportNoAddressUnlessRunning() {
        assertNull(DomainState.instance(ID, DomainInfo.DomainState.VIR_DOMAIN_PAUSED, OWNER, "192.168.122.5").ip());
        assertNull(DomainState.instance(ID, DomainInfo.DomainState.VIR_DOMAIN_SHUTOFF, OWNER, "192.168.122.5").ip());
    }

    @Test
    void shouldLeaveADomainWithoutOurMetadataOwnerless() {
        Instance i = DomainState.instance(ID, DomainInfo.DomainState.VIR_DOMAIN_SHUTOFF, null, null);

        assertNull(i.ownerUid(), "garbage collection never deletes an instance without an owner");
        assertNull(i.createdAt());
    }
}

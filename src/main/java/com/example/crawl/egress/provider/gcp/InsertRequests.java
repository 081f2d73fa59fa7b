package com.example.crawl.egress.provider.gcp;

import com.example.crawl.egress.api.GcpSpec;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.OperatorCloudInit;
import com.example.crawl.egress.provider.ProviderException;
import com.google.cloud.compute.v1.AccessConfig;
import com.google.cloud.compute.v1.AttachedDisk;
import com.google.cloud.compute.v1.AttachedDiskInitializeParams;
import com.google.cloud.compute.v1.InsertInstanceRequest;
import com.google.cloud.compute.v1.Instance;
import com.google.cloud.compute.v1.Items;
import com.google.cloud.compute.v1.Metadata;
import com.google.cloud.compute.v1.NetworkInterface;
import com.google.cloud.compute.v1.Scheduling;
import com.google.cloud.compute.v1.Tags;
import java.util.Map;

/**
 * The {@code instances.insert} request for one Proxy, as a pure function of the request, the
 * provider's project and egress policy, and the password file's content (which carries a random
 * salt, so the caller makes it): the same inputs give the same request, and nothing here talks to
 * the API.
 *
 * <ul>
 *   <li>name {@code req.name()}; labels {@value #MANAGED_LABEL}{@code =true},
 *       {@value #CLUSTER_LABEL}{@code =<--cluster-name>} and {@value #OWNER_UID_LABEL}{@code =<uid>}
 *       (GCE label keys allow neither {@code /} nor {@code .}, so these are not the Kubernetes
 *       labels); a description naming the Proxy;</li>
 *   <li>{@code user-data} metadata: {@link OperatorCloudInit#merge}, the user's cloud-init followed
 *       by the operator's part with the hashed credentials and Squid's rules. The metadata is
 *       readable by anyone who may read the instance, so it never holds the password itself;</li>
 *   <li>machine type, network and subnetwork as partial URLs: a bare name is completed
 *       ({@code zones/<zone>/machineTypes/<name>}, {@code global/networks/<name>},
 *       {@code regions/<region>/subnetworks/<name>}), anything with a {@code /} is used as written
 *       (a Shared VPC network lives in another project). No network means the {@code default}
 *       network;</li>
 *   <li>one boot disk from {@code image}, deleted with the instance; one interface with an
 *       ephemeral external address ({@code ONE_TO_ONE_NAT}), the address crawlers reach;</li>
 *   <li>{@code spot}: provisioning model {@code SPOT}, termination action {@code DELETE}: a
 *       preempted VM disappears, {@code get} answers NotFound and the reconciler creates a new one
 *       under the same name; {@code STOP} would leave a stopped VM billing for its disk until the
 *       reconciler deleted it anyway;</li>
 *   <li>no service account: the API attaches none unless asked, so the VM holds no credentials to
 *       the project.</li>
 * </ul>
 */
final class InsertRequests {

    /** Marks every instance this operator made; {@code listByTag} filters on it. */
    static final String MANAGED_LABEL = "proxy-operator-managed";
    /**
     * The installation that made the instance ({@code --cluster-name}): operators of several
     * clusters may share a project, and each lists and collects only its own instances.
     */
    static final String CLUSTER_LABEL = "proxy-operator-cluster";
    /** UID of the owning Proxy: garbage collection's proof of ownership. */
    static final String OWNER_UID_LABEL = "proxy-operator-uid";
    static final String USER_DATA_KEY = "user-data";
    static final String DEFAULT_NETWORK = "global/networks/default";
    static final String NAT_NAME = "External NAT";
    static final String ONE_TO_ONE_NAT = AccessConfig.Type.ONE_TO_ONE_NAT.name();

    private InsertRequests() {
    }

    /**
     * The insert request for {@code req} in {@code project}, made by installation {@code cluster}.
     *
     * @param authFiles the Squid auth helper's files ({@code SquidAuth.files})
     * @throws ProviderException.Permanent when {@code spec.gcp} or its zone, machine type or image
     *                                     is missing, naming the field
     */
    static InsertInstanceRequest build(String project, String cluster, CreateRequest req, EgressPolicy policy,
            Map<String, String> authFiles)
            throws ProviderException.Permanent {
        GcpSpec gcp = req.gcp();
        if (gcp == null) {
            throw new ProviderException.Permanent("spec.gcp: required by a gcp provider (zone, machineType, image)");
        }
        String zone = required(gcp.zone(), "spec.gcp.zone");
        String machineType = required(gcp.machineType(), "spec.gcp.machineType");
        String image = required(gcp.image(), "spec.gcp.image");
        Instance.Builder instance = Instance.newBuilder()
                .setName(req.name())
                .setDescription("egress proxy for Proxy " + req.namespace() + "/" + req.proxyName())
                .setMachineType(qualified(machineType, "zones/" + zone + "/machineTypes/"))
                .putAllLabels(labels(cluster, req))
                .setMetadata(Metadata.newBuilder().addItems(Items.newBuilder().setKey(USER_DATA_KEY)
                        .setValue(OperatorCloudInit.merge(req.cloudInit(), authFiles, policy, req.port()))))
                .addDisks(AttachedDisk.newBuilder().setBoot(true).setAutoDelete(true)
                        .setType(AttachedDisk.Type.PERSISTENT.name())
                        .setInitializeParams(AttachedDiskInitializeParams.newBuilder().setSourceImage(image)))
                .addNetworkInterfaces(networkInterface(gcp, zone));
        if (gcp.spot()) {
            instance.setScheduling(Scheduling.newBuilder()
                    .setProvisioningModel(Scheduling.ProvisioningModel.SPOT.name())
                    .setInstanceTerminationAction(Scheduling.InstanceTerminationAction.DELETE.name()));
        }
        if (!gcp.tags().isEmpty()) {
            instance.setTags(Tags.newBuilder().addAllItems(gcp.tags()));
        }
        return InsertInstanceRequest.newBuilder().setProject(project).setZone(zone).setInstanceResource(instance).build();
    }

    /** The labels every instance of {@code req} carries. */
    static Map<String, String> labels(String cluster, CreateRequest req) {
        return Map.of(MANAGED_LABEL, "true", CLUSTER_LABEL, cluster, OWNER_UID_LABEL, req.ownerUid());
    }

    private static NetworkInterface.Builder networkInterface(GcpSpec gcp, String zone) {
        NetworkInterface.Builder nic = NetworkInterface.newBuilder()
                .setNetwork(blank(gcp.network()) ? DEFAULT_NETWORK : qualified(gcp.network(), "global/networks/"))
                .addAccessConfigs(AccessConfig.newBuilder().setName(NAT_NAME).setType(ONE_TO_ONE_NAT));
        if (!blank(gcp.subnetwork())) {
            nic.setSubnetwork(qualified(gcp.subnetwork(), "regions/" + region(zone) + "/subnetworks/"));
        }
        return nic;
    }

    /** {@code europe-west4} for {@code europe-west4-a}: a zone is its region plus one suffix. */
    static String region(String zone) {
        int dash = zone.lastIndexOf('-');
        return dash > 0 ? zone.substring(0, dash) : zone;
    }

    private static String qualified(String value, String prefix) {
        return value.contains("/") ? value : prefix + value;
    }

    private static String required(String value, String field) throws ProviderException.Permanent {
        if (blank(value)) {
            throw new ProviderException.Permanent(field + ": required by a gcp provider; the operator does not guess "
                    + "the shape of a billable VM");
        }
        return value.strip();
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }
}

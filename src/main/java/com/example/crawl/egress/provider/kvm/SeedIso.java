package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.OperatorCloudInit;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The NoCloud seed of one VM: an ISO 9660 volume labelled {@value #VOLUME_ID} with the files
 * {@value #USER_DATA} and {@value #META_DATA} in its root, which cloud-init finds by the label and
 * reads by those exact names. A pure function: the same request, policy and password file give
 * the same bytes.
 *
 * <ul>
 *   <li>{@code user-data}: {@link OperatorCloudInit#merge}, the user's cloud-init followed by the
 *       operator's part with the hashed credentials and Squid's rules, as on every VM provider;</li>
 *   <li>{@code meta-data}: {@code instance-id} and {@code local-hostname}, both the instance name.
 *       The instance id is what makes cloud-init run once per instance; a replacement VM is a
 *       new domain on a new overlay, so it boots fresh whatever the id.</li>
 * </ul>
 *
 * <p>The seed holds the password file's hash and the user's cloud-init, which may carry secrets
 * of its own: it lives in the host's storage pool beside the VM's disk, readable by whoever may
 * read the disk.
 */
final class SeedIso {

    static final String VOLUME_ID = "cidata";
    static final String USER_DATA = "user-data";
    static final String META_DATA = "meta-data";
    /** What {@code api.InstanceName} makes; anything else would need quoting in YAML. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    private SeedIso() {
    }

    /**
     * The seed image for {@code req}.
     *
     * @param authFiles the Squid auth helper's files ({@code SquidAuth.files}); the password file
     *                  carries a random salt, so they are made by the caller
     */
    static byte[] build(CreateRequest req, EgressPolicy policy, Map<String, String> authFiles) {
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put(USER_DATA, userData(req, policy, authFiles).getBytes(StandardCharsets.UTF_8));
        files.put(META_DATA, metaData(req.name()).getBytes(StandardCharsets.UTF_8));
        return IsoImage.write(VOLUME_ID, files);
    }

    static String userData(CreateRequest req, EgressPolicy policy, Map<String, String> authFiles) {
        return OperatorCloudInit.merge(req.cloudInit(), authFiles, policy, req.port());
    }

    /**
     * NoCloud's meta-data for instance {@code name}.
     *
     * @throws IllegalArgumentException when {@code name} is not a DNS label (instance names always
     *                                  are)
     */
    static String metaData(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("instance name \"" + name + "\" is not a DNS label");
        }
        return "instance-id: " + name + "\nlocal-hostname: " + name + "\n";
    }
}

package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.transport.verification.OpenSSHKnownHosts;
import net.schmizz.sshj.userauth.keyprovider.KeyProvider;

/**
 * One host's SSH credentials, read once at start from the mounted Secret's files and held in
 * memory only: the user's private key, already parsed, and the host keys to verify sshd against.
 * A rotated Secret takes effect at the next start. {@link #toString} shows no key.
 *
 * @param key        the user's key pair (OpenSSH or PEM, unencrypted)
 * @param knownHosts the known_hosts entries; the only host key verifier a connection gets
 */
record SshMaterial(KeyProvider key, OpenSSHKnownHosts knownHosts) {

    /**
     * Reads and parses {@code host}'s key and known_hosts files.
     *
     * @throws ConfigException naming the host, the stage {@code ssh-material} and the file, if a
     *                         file cannot be read, the key cannot be parsed or known_hosts holds no entry
     */
    static SshMaterial read(String provider, ProviderConfig.KvmHost host) throws ConfigException {
        String at = "providers config: provider " + provider + " (kvm) host " + host.name() + ": "
                + DialFailure.Stage.SSH_MATERIAL.tag + ": ";
        String key = content(at + "privateKeyFile ", host.privateKeyFile());
        String hosts = content(at + "knownHostsFile ", host.knownHostsFile());
        KeyProvider keys;
        try (SSHClient parser = new SSHClient(HostConnection.sshConfig())) {
            keys = parser.loadKeys(key, null, null);
            keys.getPrivate(); // parses now: a bad key fails the start, not the first reconcile
            keys.getPublic();
        } catch (IOException | RuntimeException e) {
            // The message names the file and sshj's complaint, never the key's content.
            throw new ConfigException(at + "privateKeyFile " + host.privateKeyFile()
                    + " is not an unencrypted OpenSSH or PEM private key: " + e.getMessage());
        }
        OpenSSHKnownHosts verifier;
        try {
            verifier = new OpenSSHKnownHosts(new StringReader(hosts), HostConnection.sshConfig().getLoggerFactory());
        } catch (IOException e) {
            throw new ConfigException(at + "knownHostsFile " + host.knownHostsFile() + ": " + e.getMessage());
        }
        if (verifier.entries().stream().noneMatch(OpenSSHKnownHosts.HostEntry.class::isInstance)) {
            throw new ConfigException(at + "knownHostsFile " + host.knownHostsFile() + " holds no host key");
        }
        return new SshMaterial(keys, verifier);
    }

    @Override
    public String toString() {
        return "SshMaterial[key=(redacted)]";
    }

    private static String content(String what, Path file) throws ConfigException {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new ConfigException(what + file + " cannot be read: " + e);
        }
    }
}

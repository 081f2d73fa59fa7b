package com.example.crawl.egress.provider.kvm;

import java.util.Optional;

/**
 * Why a host connection could not be set up, tagged with the stage that failed. Becomes the
 * cause of the {@code ProviderException} a caller sees, whose message starts with the host and
 * the stage's tag, so a condition message says where to look, and the checker finds the stage
 * here to choose its reason. The message never carries key material.
 */
final class DialFailure extends Exception {

    /** The dial's stages, in order; {@link #tag} is what messages show. */
    enum Stage {
        /** The private key or known_hosts cannot be read or parsed. */
        SSH_MATERIAL("ssh-material"),
        /** No TCP connection to sshd: refused, unreachable, timed out, name not resolved. */
        TCP("tcp"),
        /** sshd answered but the host key is not in known_hosts, or the user key was refused. */
        SSH_HANDSHAKE("ssh-handshake"),
        /** SSH is up but libvirt cannot be reached or opened through the forwarded socket. */
        LIBVIRT_CONNECT("libvirt-connect");

        final String tag;

        Stage(String tag) {
            this.tag = tag;
        }
    }

    private final Stage stage;

    DialFailure(Stage stage, String message, Throwable cause) {
        super(stage.tag + ": " + message, cause);
        this.stage = stage;
    }

    Stage stage() {
        return stage;
    }

    /** The stage of the first dial failure in {@code t}'s cause chain, if there is one. */
    static Optional<Stage> stageOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof DialFailure d) {
                return Optional.of(d.stage);
            }
        }
        return Optional.empty();
    }
}

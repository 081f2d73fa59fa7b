package com.example.crawl.egress.lab;

import com.example.crawl.egress.ItRequirements;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The KVM tests' guest: a qcow2 that boots under UEFI (secure boot off) into an initramfs with
 * busybox, Squid on port 3128 and qemu-guest-agent, takes an address by DHCP on its virtio NIC and
 * never writes its disk, so any number of overlays can share it. {@code kvm/build-guest.sh} says
 * what is in it; {@code kvm/tiny-guest.xml} is a domain that boots it.
 *
 * <p>{@link #path} builds it on first use and caches it under
 * {@code ~/.cache/egress-proxies-operator/kvm-guest/<script hash>/}, so a changed script makes a new
 * image and an unchanged one is never rebuilt. The Debian packages it unpacks (kernel, busybox,
 * qemu-guest-agent) are kept in {@code kvm-guest/debs/}: after the first download the build needs
 * no network. A file lock serialises builds across JVMs. Thread-safe.
 */
public final class KvmGuestImage {

    private static final String SCRIPT = "kvm/build-guest.sh";
    private static final String IMAGE = "tiny-guest.qcow2";
    private static final Duration BUILD_WAIT = Duration.ofMinutes(10);
    private static final List<String> TOOLS = List.of("apt-get", "dpkg-deb", "objcopy", "cpio", "gzip", "sgdisk",
            "mkfs.vfat", "mmd", "mcopy", "qemu-img", "squid", "bash");
    private static final Path EFI_STUB = Path.of("/usr/lib/systemd/boot/efi/linuxx64.efi.stub");

    private KvmGuestImage() {
    }

    /**
     * The cached image, built first if needed (about 10 to 30 s; the first build also downloads
     * about 70 MB of packages). The file must be treated as read-only: copy it, or put an overlay
     * on it.
     *
     * @throws org.opentest4j.TestAbortedException if a build tool is missing (failure under {@code EGRESS_IT_REQUIRED=1})
     * @throws IllegalStateException               if the build fails; the message carries its output
     */
    public static synchronized Path path() throws IOException {
        ItRequirements.require("the guest image's build tools (" + String.join(", ", TOOLS) + ", systemd-boot-efi)",
                TOOLS.stream().allMatch(KvmGuestImage::installed) && Files.exists(EFI_STUB),
                "apt-get install binutils systemd-boot-efi cpio gdisk dosfstools mtools qemu-utils squid");
        byte[] script = script();
        Path root = cacheRoot();
        Path image = root.resolve(HexFormat.of().formatHex(sha256(script), 0, 8)).resolve(IMAGE);
        if (Files.exists(image)) {
            return image;
        }
        Files.createDirectories(image.getParent());
        try (FileChannel channel = FileChannel.open(root.resolve(".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
            if (!Files.exists(image)) { // another JVM may have built it while this one waited
                build(script, image, root.resolve("debs"));
            }
        }
        return image;
    }

    private static void build(byte[] script, Path image, Path debs) throws IOException {
        Path work = Files.createTempDirectory("kvm-guest-");
        try {
            Path file = Files.write(work.resolve("build-guest.sh"), script);
            Path output = work.resolve("build.log");
            ProcessBuilder builder = new ProcessBuilder("bash", file.toString(), image.toString(), debs.toString())
                    .directory(work.toFile()).redirectErrorStream(true).redirectOutput(output.toFile());
            builder.environment().put("TMPDIR", work.toString());
            Process process = builder.start();
            if (!process.waitFor(BUILD_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("the guest image build did not finish within " + BUILD_WAIT + ":\n"
                        + Files.readString(output, StandardCharsets.ISO_8859_1));
            }
            if (process.exitValue() != 0 || !Files.exists(image)) {
                throw new IllegalStateException("the guest image build exited with " + process.exitValue() + ":\n"
                        + Files.readString(output, StandardCharsets.ISO_8859_1));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building the guest image", e);
        } finally {
            deleteTree(work);
        }
    }

    private static byte[] script() throws IOException {
        try (InputStream in = KvmGuestImage.class.getClassLoader().getResourceAsStream(SCRIPT)) {
            if (in == null) {
                throw new IllegalStateException(SCRIPT + " is not on the test classpath");
            }
            return in.readAllBytes();
        }
    }

    /** {@code $XDG_CACHE_HOME} or {@code ~/.cache}, as the freedesktop base-directory convention has it. */
    private static Path cacheRoot() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("egress-proxies-operator").resolve("kvm-guest");
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    static boolean installed(String tool) {
        return Stream.of(Netns.PATH.split(":")).map(d -> Path.of(d, tool)).anyMatch(Files::isExecutable);
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

#!/bin/bash
# Builds the KVM provider ITs' test guest: a UEFI-bootable qcow2 whose one partition (a FAT32 EFI
# system partition) holds a single EFI program, a Unified Kernel Image made of Debian's kernel and
# an initramfs with busybox, Squid and qemu-guest-agent. The guest runs entirely from that
# initramfs and never writes its disk, so one image can back any number of qcow2 overlays.
#
# Once up, the guest takes an address by DHCP on its first virtio NIC, answers HTTP on port 80
# (busybox httpd) and runs Squid on port 3128 for 192.168.0.0/16, 10.0.0.0/8 and 172.16.0.0/12.
# It writes "GUEST: <what>" lines to the serial console as it boots.
#
# Usage: build-guest.sh OUT_QCOW2 DEB_CACHE_DIR
#   DEB_CACHE_DIR keeps the kernel, busybox and qemu-guest-agent packages (fetched with
#   `apt-get download`, unpacked with dpkg-deb, never installed); once they are there the build
#   needs no network. Squid and the shared libraries come from this machine (apt-get install squid).
# Needs: apt-get, dpkg-deb, objcopy (binutils), systemd-boot-efi, cpio, gzip, gdisk, dosfstools,
#   mtools, qemu-img (qemu-utils), squid.
set -euo pipefail
OUT=$1
DEBS=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kvm-guest-build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$DEBS" "$(dirname "$OUT")"

# 1. The packages. The kernel is whichever linux-image-amd64 points at when the cache is first
#    filled: a pinned ABI version would disappear from the archive at the next point release.
fetch() { (cd "$DEBS" && apt-get download "$@" >/dev/null 2>"$WORK/apt.err") || { cat "$WORK/apt.err" >&2; exit 1; }; }
if ! ls "$DEBS"/linux-image-*.deb >/dev/null 2>&1; then
  kernel=$(apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1)
  [[ -n $kernel ]] || { echo "cannot tell which kernel linux-image-amd64 depends on" >&2; exit 1; }
  fetch "$kernel"
fi
ls "$DEBS"/busybox-static_*.deb >/dev/null 2>&1 || fetch busybox-static
ls "$DEBS"/qemu-guest-agent_*.deb >/dev/null 2>&1 || fetch qemu-guest-agent
cd "$WORK"
dpkg-deb -x "$(ls "$DEBS"/linux-image-*.deb | head -1)" kernel
dpkg-deb -x "$(ls "$DEBS"/busybox-static_*.deb | head -1)" busybox
dpkg-deb -x "$(ls "$DEBS"/qemu-guest-agent_*.deb | head -1)" qga
KVER=$(ls kernel/lib/modules)

# 2. The initramfs tree.
R=$WORK/root
mkdir -p $R/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,run,tmp,var/log,var/run,www,lib/modules}
cp busybox/bin/busybox $R/bin/busybox
ln -s busybox $R/bin/sh
# Debian builds virtio as modules; the guest loads them in this (dependency) order with insmod.
# button and evdev let busybox acpid see the ACPI power button (virsh shutdown).
MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci failover net_failover
  virtio_net virtio-rng virtio_console button evdev"
for m in $MODULES; do
  found=$(find kernel/lib/modules/$KVER/kernel -name "$m.ko" | head -1)
  [[ -n $found ]] || { echo "module $m not in the kernel package" >&2; exit 1; }
  cp "$found" $R/lib/modules/
done

cat > $R/etc/passwd <<'END'
root:x:0:0:root:/:/bin/sh
proxy:x:13:13:proxy:/bin:/bin/false
nobody:x:65534:65534:nobody:/:/bin/false
END
cat > $R/etc/group <<'END'
root:x:0:
proxy:x:13:
nogroup:x:65534:
END
echo 'hosts: files dns' > $R/etc/nsswitch.conf
echo '127.0.0.1 localhost' > $R/etc/hosts
echo 'tiny-guest-ok' > $R/www/index.html

# udhcpc calls this with the lease; it configures eth0 and says so on the console.
cat > $R/etc/udhcpc.script <<'END'
#!/bin/sh
case "$1" in
  deconfig) ip addr flush dev "$interface"; ip link set "$interface" up ;;
  bound|renew)
    ip addr flush dev "$interface"
    ip addr add "$ip/${mask:-24}" dev "$interface"
    [ -n "$router" ] && ip route replace default via ${router%% *} dev "$interface"
    : > /etc/resolv.conf; for d in $dns; do echo "nameserver $d" >> /etc/resolv.conf; done
    echo "GUEST: dhcp $1 ip=$ip uptime=$(cut -d' ' -f1 /proc/uptime)" > /dev/console ;;
esac
exit 0
END
chmod 755 $R/etc/udhcpc.script

# The ACPI power button powers off; qemu-ga's guest-shutdown runs /sbin/shutdown, which busybox lacks.
mkdir -p $R/etc/acpi/PWRF
printf '#!/bin/sh\necho "GUEST: acpi power button" > /dev/console\nsync\npoweroff -f\n' > $R/etc/acpi/PWRF/00000080
printf '#!/bin/sh\necho "GUEST: shutdown $*" > /dev/console\nsync\ncase "$1" in -r) reboot -f;; *) poweroff -f;; esac\n' > $R/sbin/shutdown
chmod 755 $R/etc/acpi/PWRF/00000080 $R/sbin/shutdown

cat > $R/init <<END
#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm; mount -t devpts devpts /dev/pts; mount -t tmpfs tmpfs /dev/shm; mount -t tmpfs tmpfs /run
exec >/dev/console 2>&1
echo "GUEST: init start uptime=\$(cut -d' ' -f1 /proc/uptime)"
for m in $(echo $MODULES); do insmod /lib/modules/\$m.ko || echo "GUEST: insmod \$m failed"; done
hostname tiny-guest
ip link set lo up
i=0; while [ ! -e /sys/class/net/eth0 ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done
ip link set eth0 up
acpid -c /etc/acpi -l /var/log/acpid.log
# -b: go on in the background while there is no lease; without -q udhcpc stays and renews it
udhcpc -i eth0 -s /etc/udhcpc.script -x hostname:tiny-guest -t 30 -T 2 -b
httpd -p 80 -h /www
# no udev in the guest: find the agent's virtio-serial port by its name
for p in /sys/class/virtio-ports/*; do
  [ "\$(cat \$p/name 2>/dev/null)" = org.qemu.guest_agent.0 ] && qemu-ga -d -m virtio-serial -p /dev/\$(basename \$p) -f /run/qemu-ga.pid && echo "GUEST: qemu-ga started"
done
mkdir -p /var/spool/squid /var/log/squid /var/run/squid; chown proxy:proxy /var/spool/squid /var/log/squid /var/run/squid
/usr/sbin/squid -f /etc/squid/squid.conf && echo "GUEST: squid started"
echo "GUEST: init done uptime=\$(cut -d' ' -f1 /proc/uptime)"
while true; do sleep 3600; done
END
chmod 755 $R/init

# 3. Squid and qemu-ga with the shared libraries they link (copied from this machine, as ldd sees them).
copy_libs() { for l in $(ldd "$1" | grep -o '/[^ ]*'); do mkdir -p $R$(dirname $l); cp -L $l $R$l; done; }
mkdir -p $R/etc/squid $R/usr/share/squid/errors $R/usr/lib/squid $R/lib64
cp /usr/sbin/squid $R/usr/sbin/
cp /usr/lib/squid/unlinkd $R/usr/lib/squid/             # Squid 5.7 does not start without it
copy_libs /usr/sbin/squid
# NSS modules are dlopen'ed (getpwnam("proxy"), host lookups), so ldd does not list them.
for l in /lib/x86_64-linux-gnu/libnss_files.so.2 /lib/x86_64-linux-gnu/libnss_dns.so.2; do [ -e $l ] && cp -L $l $R$l; done
[ -e $R/lib64/ld-linux-x86-64.so.2 ] || cp -L /lib64/ld-linux-x86-64.so.2 $R/lib64/
cp -r /usr/share/squid/errors/templates $R/usr/share/squid/errors/templates
cp /usr/share/squid/mime.conf $R/usr/share/squid/
cp -rL /usr/share/squid/icons $R/usr/share/squid/icons  # also fatal when missing
# The worker runs as proxy and cannot open /dev/console, so its logs are files proxy owns.
cat > $R/etc/squid/squid.conf <<'END'
http_port 3128
visible_hostname tiny-guest
acl localnet src 192.168.0.0/16 10.0.0.0/8 172.16.0.0/12
http_access allow localnet
http_access allow localhost
http_access deny all
cache_mem 8 MB
cache deny all
error_directory /usr/share/squid/errors/templates
mime_table /usr/share/squid/mime.conf
icon_directory /usr/share/squid/icons
cache_effective_user proxy
pid_filename /var/run/squid/squid.pid
access_log stdio:/var/log/squid/access.log
cache_log /var/log/squid/cache.log
cache_store_log none
logfile_rotate 0
dns_nameservers 192.168.122.1
shutdown_lifetime 1 seconds
pinger_enable off
END
cp qga/usr/sbin/qemu-ga $R/usr/sbin/
copy_libs qga/usr/sbin/qemu-ga

# 4. The initramfs, then the UKI: the systemd-boot EFI stub with the kernel, initramfs and command
#    line added as sections (bookworm has no ukify).
(cd $R && find . | cpio -o -H newc --quiet | gzip -6) > initrd.img
echo -n "console=ttyS0,115200 panic=-1 quiet loglevel=4" > cmdline.txt
cp /etc/os-release osrel.txt
objcopy \
  --add-section .osrel=osrel.txt     --change-section-vma .osrel=0x20000 \
  --add-section .cmdline=cmdline.txt --change-section-vma .cmdline=0x30000 \
  --add-section .linux=kernel/boot/vmlinuz-$KVER --change-section-vma .linux=0x2000000 \
  --add-section .initrd=initrd.img   --change-section-vma .initrd=0x3000000 \
  /usr/lib/systemd/boot/efi/linuxx64.efi.stub BOOTX64.EFI

# 5. A GPT disk with one FAT32 ESP, put together without mounting anything. FAT32 needs about
#    33 MiB at least; one MiB before the partition and the backup GPT after it.
UKI_MB=$(( $(stat -c %s BOOTX64.EFI) / 1048576 + 1 ))
ESP_MB=$(( UKI_MB + 40 < 64 ? 64 : UKI_MB + 40 ))
truncate -s $(( ESP_MB + 2 ))M disk.raw
# sgdisk -q (gdisk 1.0.9) exits 0 without writing the table, hence no -q and the check after it.
sgdisk -n 1:2048:+${ESP_MB}M -t 1:ef00 -c 1:ESP disk.raw >/dev/null
sgdisk -p disk.raw | grep -q EF00 || { echo "sgdisk wrote no partition table" >&2; exit 1; }
mkfs.vfat -F 32 -n ESP -C esp.img $(( ESP_MB * 1024 )) >/dev/null
mmd -i esp.img ::/EFI ::/EFI/BOOT
mcopy -i esp.img BOOTX64.EFI ::/EFI/BOOT/BOOTX64.EFI
dd if=esp.img of=disk.raw bs=1M seek=1 conv=notrunc status=none
# Written beside the target and renamed, so a reader never sees half an image.
qemu-img convert -f raw -O qcow2 -c disk.raw "$OUT.tmp"
mv "$OUT.tmp" "$OUT"

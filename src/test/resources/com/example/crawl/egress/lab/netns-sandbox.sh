#!/bin/sh
# Runs a command the way a hardened Kubernetes pod runs its container, for NetnsLab:
#   - the root file system read-only (readOnlyRootFilesystem: true), every other mount too;
#   - a fresh empty tmpfs at each WRITABLE_DIR (an emptyDir volume; /dev/shm is one in a pod);
#   - the files of SOURCE copied to STAGE and mounted read-only there (a ConfigMap or Secret);
#   - then the command as UID:GID with no supplementary groups, no capabilities in any set
#     (drop: [ALL]) and no_new_privs (allowPrivilegeEscalation: false), in STAGE.
#
# Usage: netns-sandbox.sh CALLER_MNT_NS UID GID SOURCE STAGE WRITABLE_DIR... -- COMMAND [ARG]...
#
# Run it as root in a mount namespace of its own with private propagation
# (unshare --mount --propagation private): every mount change below stays in there.
# CALLER_MNT_NS is the caller's /proc/self/ns/mnt link, e.g. mnt:[4026531841]: if this script
# finds itself in that namespace after all, it stops before changing anything.
set -eu
caller=$1 uid=$2 gid=$3 source=$4 stage=$5
shift 5

if [ "$(readlink /proc/self/ns/mnt)" = "$caller" ]; then
  echo "netns-sandbox.sh: refusing to change the mounts of the caller's mount namespace" >&2
  exit 1
fi

# "remount,bind,ro" changes this namespace's copy of a mount only; a plain "remount,ro" would
# change the file system itself, for the whole host. Mount points are octal-escaped (\040).
while read -r _ _ _ _ mountpoint _; do
  mount -o remount,bind,ro "$(printf '%b' "$mountpoint")"
done </proc/self/mountinfo

# SOURCE is usually under /tmp, which the first tmpfs covers. A working directory stays
# reachable under a mount that hides its path, so go there before mounting.
cd "$source"
while [ "$1" != -- ]; do
  mount -t tmpfs -o mode=1777,size=64m,nosuid,nodev egress-lab "$1"
  shift
done
shift

mkdir -p "$stage"
cp -R . "$stage"
chmod -R a+rX "$stage"
mount --bind "$stage" "$stage"
mount -o remount,bind,ro "$stage"
cd "$stage"

exec setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all --bounding-set=-all \
  --no-new-privs -- "$@"

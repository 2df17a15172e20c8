# Helpers of the package tests (tests/deb/): a root tree $R, an overlay of
# the Debian base root with the packages' directory bound on $R/mnt.
# Source after root.sh and image.sh.

# inside SCRIPT: in the root, own namespaces (network too); debconf never asks
inside() {
	CHROOT_UNSHARE=-n chroot_run "$R" /usr/bin/env DEBIAN_FRONTEND=noninteractive \
	    /bin/sh -c "$1" 2>&1
}
# setid: every set-ID file of the root with its mode and numeric owner
setid() {
	(cd "$R" && find . -xdev \( -path ./mnt -o -path ./proc -o -path ./dev \
	    -o -path ./run -o -path ./tmp -o -path ./sys \) -prune -o \
	    -type f -perm /6000 -printf '%m %U:%G %P\n' | sort)
}
# st PATH...: "mode owner:group " of each, by the root's own names
st() {
	inside "stat -c '%a %U:%G' $*" | tr '\n' ' '
}

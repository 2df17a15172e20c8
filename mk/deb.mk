# make deb: the Debian packages of debian/ (docs/packaging.md), built with
# dpkg-buildpackage -b in a copy of the tree under $(B), so that neither
# the tree nor this machine's /etc changes.  The .debs land in $(DEB_OUT).
#
#   make deb                     version from debian/changelog
#   make deb DEB_VERSION=0.1.1   a changelog entry for 0.1.1 is added in the
#                                copy (e.g. a newer version to test upgrades)
#   make deb DEB_OUT=DIR         output elsewhere (default $(B)/deb)
#   make deb DEB_LINTIAN=0       skip lintian (default: fail on a warning
#                                or error that debian/*.lintian-overrides
#                                does not justify)
#   make deb DEB_SHADOW=0        leave out owlet-shadow-tcb (built from
#                                Debian's shadow source, downloaded once;
#                                left out by itself when that fails)
#   make deb-repack DEB_FROM=DIR DEB_OUT=DIR2 DEB_VERSION=V
#                                the packages of one make deb (DIR) as
#                                version V in DIR2: same files, only the
#                                version fields changed (mk/deb-repack.sh;
#                                the upgrade tests' "next" version; root)
DEB_OUT     ?= $(B)/deb
DEB_VERSION ?=
DEB_LINTIAN ?= 1
DEB_SHADOW  ?= 1

deb:
	@B=$(B) DEB_OUT=$(DEB_OUT) DEB_VERSION=$(DEB_VERSION) \
	  DEB_LINTIAN=$(DEB_LINTIAN) DEB_SHADOW=$(DEB_SHADOW) sh mk/deb.sh

deb-repack:
	@DEB_FROM=$(DEB_FROM) DEB_OUT=$(DEB_OUT) DEB_VERSION=$(DEB_VERSION) \
	  sh mk/deb-repack.sh

.PHONY: deb deb-repack

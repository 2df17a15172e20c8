# tests/compat: third-party programs built unchanged against our libtcb.
#   make compat-shadow   fetch Debian 12's shadow source (cached under
#                        $(B)/cache; private apt config, host's untouched)
#                        and build it --with-tcb against $(B)/lib/libtcb
# tests/tcb/shadow-utils.t (part of make check, as root) runs the same
# script, then the built programs in private tcb roots.
compat-shadow: $(LIBTCB_SO)
	B=$(abspath $(B)) bash tests/compat/shadow-utils.sh

.PHONY: compat-shadow

# owlet: one non-recursive GNU Makefile.  Each component adds its targets
# through a fragment (*/*.mk); all objects go to $(B) (out of tree).
#
#   make                 build everything
#   make check           run the TAP suite with prove (needs root for the
#                        namespace tests; they skip otherwise)
#   make install DESTDIR=... PREFIX=...
#   make deps            install missing Debian build/test packages
#   make bench           benchmarks (bench/), ratios against peers
#   make demo            convert a generated sample root to tcb

B        ?= build
PREFIX   ?= /usr
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
# Debian (usrmerge): system libraries, NSS and PAM modules live in /lib/$(MULTIARCH).
SLIBDIR  ?= /lib/$(MULTIARCH)
LIBDIR   ?= $(PREFIX)/lib/$(MULTIARCH)
INCDIR   ?= $(PREFIX)/include
SBINDIR  ?= $(PREFIX)/sbin
MANDIR   ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

include mk/flags.mk

all:

include common/common.mk
include tcb/lib/lib.mk
include tcb/edit/edit.mk
include tcb/nss/nss.mk
include tcb/pam/pam.mk
include tcb/pam/conf.mk
include tcb/progs/progs.mk
include seal/seal.mk
include control/control.mk
include setup/setup.mk
include tests/tests.mk
include tests/compat/compat.mk
include tests/fuzz/fuzz.mk
include tests/fault/fault.mk
include man/man.mk
include bench/bench.mk
include mk/lint.mk
include image/image.mk
include mk/deb.mk

# V=1 shows the commands.
ifneq ($(V),1)
Q := @
endif

$(B)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Dependency files only: $(B)/cache, $(B)/image and $(B)/bench hold whole
# Debian roots, whose files named *.d (invoke-rc.d, ...) are not makefiles.
-include $(shell find $(B) \( -path $(B)/cache -o -path $(B)/image -o -path $(B)/bench \) -prune \
    -o -name '*.d' -type f -print 2>/dev/null)

deps:
	@sh mk/deps.sh

demo: all
	@B=$(B) sh mk/demo.sh

clean:
	rm -rf $(B)

# Objects reached through pattern rules are not intermediate files to delete.
.SECONDARY:

.PHONY: all check check-build install deps demo clean bench rootfs image shell boot disk vm container iso

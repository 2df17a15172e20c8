# Hardening on by default; warnings are errors.  SANITIZE=1 builds with clang
# ASan+UBSan instead of fortification (the two do not mix).
WARN     := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wvla -Wno-unused-parameter -Werror
# -Icommon (owlet.h) is the only include path every component needs; each
# fragment adds the others to its own objects (target-specific CPPFLAGS on
# the objects, never on a program, whose prerequisites would inherit them:
# common/ must build without tcb/lib on its path).
CPPFLAGS += -D_GNU_SOURCE -Icommon
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 $(WARN) -fPIC -fvisibility=hidden \
            -fstack-protector-strong -fstack-clash-protection -fcf-protection
LDFLAGS  += -Wl,-z,relro,-z,now -Wl,--as-needed -Wl,-z,noexecstack
# A build dir made with SANITIZE=1 stays one (make install B=build-san ...).
SANITIZE ?= $(if $(wildcard $(B)/sanitize),1)
ifeq ($(SANITIZE),1)
# Every report is fatal (-fno-sanitize-recover=all).  The runtime is the
# shared one (-shared-libsan), found through an absolute rpath (honoured by
# set-ID programs too), so that our programs and a system program that
# loads our NSS/PAM modules share one runtime: tests preload it into the
# latter (tests/lib/tap.sh reads $(B)/sanitize, written below).
CC       := clang
ASAN_RT  := $(shell clang -print-file-name=libclang_rt.asan-$(firstword \
              $(subst -, ,$(MULTIARCH))).so)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all
LDFLAGS  += -fsanitize=address,undefined -shared-libsan \
            -Wl,-rpath,$(dir $(ASAN_RT))
# Preloaded after the runtime: ASan intercepts crypt() and finds the real
# one only in a library present at start-up (google/sanitizers#1365), and
# pam_tcb's plain_crypt calls crypt() from a dlopened module.
SAN_PRELOAD := $(shell clang -print-file-name=libcrypt.so.1)
all: $(B)/sanitize
$(B)/sanitize: mk/flags.mk
	@mkdir -p $(@D)
	@printf '%s\n' '# make SANITIZE=1: an ASan+UBSan build (read by tests/lib/tap.sh)' \
	  'OWLET_SANITIZE=1' 'OWLET_ASAN_RT=$(ASAN_RT)' \
	  'OWLET_SAN_PRELOAD=$(SAN_PRELOAD)' > $@
else
CPPFLAGS += -D_FORTIFY_SOURCE=3
PIE      := -pie
endif

# The link recipe of every program and shared object:
#   $(call link,OBJECTS AND LIBRARIES,FLAGS)
# FLAGS: $(PIE) for a program; -shared, the soname and the version script
# for a shared object.  Use it as a whole recipe line.
# $(,) is a comma inside such an argument.
, := ,
define link
@mkdir -p $(@D)
@$(if $(Q),echo "  LD      $@")
$(Q)$(CC) $(CFLAGS) $(2) $(LDFLAGS) -o $@ $(1)
endef

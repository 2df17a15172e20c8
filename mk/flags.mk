# Hardening on by default; warnings are errors.  SANITIZE=1 builds with clang
# ASan+UBSan instead of fortification (the two do not mix).
WARN     := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wvla -Wno-unused-parameter -Werror
CPPFLAGS += -D_GNU_SOURCE -Iinclude -Icommon -Itcb/lib
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 $(WARN) -fPIC -fvisibility=hidden \
            -fstack-protector-strong -fstack-clash-protection -fcf-protection
LDFLAGS  += -Wl,-z,relro,-z,now -Wl,--as-needed -Wl,-z,noexecstack
ifeq ($(SANITIZE),1)
CC       := clang
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
else
CPPFLAGS += -D_FORTIFY_SOURCE=3
PIE      := -pie
endif

SEAL_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard seal/*.c))
SEAL     := $(B)/bin/seal

all: $(SEAL)

$(SEAL): $(SEAL_OBJ) $(COMMON_A)
	$(call link,$(SEAL_OBJ) $(COMMON_A) -lcrypto -lsodium -lpthread,$(PIE))

install: install-seal
install-seal: $(SEAL)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(SEAL) $(DESTDIR)$(PREFIX)/bin/
.PHONY: install-seal

# libFuzzer targets (tests/fuzz/fuzz.mk builds them; this file is read
# first): the minisign/signify parsers, pure; strict base64 and the scrypt
# limit mapping, each checked against libsodium, which minisign itself uses.
FUZZ_TARGETS += minisign_sig minisign_key minisign_b64 minisign_scrypt
FUZZ_SRC_minisign_sig     := seal/sigfmt.c seal/b64.c
FUZZ_SRC_minisign_key     := seal/sigfmt.c seal/b64.c
FUZZ_SRC_minisign_b64     := seal/b64.c
FUZZ_LIBS_minisign_b64    := -lsodium
FUZZ_SRC_minisign_scrypt  := seal/sigcrypto.c seal/sigfmt.c seal/b64.c
FUZZ_LIBS_minisign_scrypt := -lcrypto -lsodium
FUZZ_TARGETS += mtree_spec
FUZZ_SRC_mtree_spec := seal/specread.c seal/vis.c seal/entry.c common/number.c
FUZZ_CPPFLAGS_mtree_spec := -Iseal
FUZZ_HDRS += seal/seal.h seal/specread.h

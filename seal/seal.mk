SEAL_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard seal/*.c))
SEAL     := $(B)/bin/seal

all: $(SEAL)

$(SEAL): $(SEAL_OBJ) $(COMMON_A)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(PIE) $(LDFLAGS) -o $@ $(SEAL_OBJ) $(COMMON_A) \
	  -lcrypto -lpthread

install: install-seal
install-seal: $(SEAL)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(SEAL) $(DESTDIR)$(PREFIX)/bin/
.PHONY: install-seal

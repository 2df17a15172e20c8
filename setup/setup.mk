# owlet-setup(8): first-login settings and administrator accounts.
SETUP_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard setup/*.c))
SETUP     := $(B)/sbin/owlet-setup

all: $(SETUP)

$(SETUP): $(SETUP_OBJ) $(COMMON_A)
	$(call link,$(SETUP_OBJ) $(COMMON_A) -lpasswdqc -lcrypt,$(PIE))

install: install-setup
install-setup: $(SETUP)
	install -d $(DESTDIR)$(SBINDIR)
	install -m 0700 $(SETUP) $(DESTDIR)$(SBINDIR)/
	install -d $(DESTDIR)$(PREFIX)/lib/owlet
	install -m 0755 setup/owlet-install $(DESTDIR)$(PREFIX)/lib/owlet/
.PHONY: install-setup

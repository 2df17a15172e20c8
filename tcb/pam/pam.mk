PAM_TCB_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard tcb/pam/*.c))
PAM_TCB_SO  := $(B)/lib/security/pam_tcb.so
SECUREDIR   ?= $(SLIBDIR)/security

all: $(PAM_TCB_SO)

$(PAM_TCB_SO): $(PAM_TCB_OBJ) $(COMMON_A) $(LIBTCB_SO) tcb/pam/pam_tcb.map
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared \
	  -Wl,--version-script=tcb/pam/pam_tcb.map -o $@ $(PAM_TCB_OBJ) \
	  $(COMMON_A) -L$(B)/lib -ltcb -lpam -lcrypt

install: install-pam
install-pam: $(PAM_TCB_SO)
	install -d $(DESTDIR)$(SECUREDIR)
	install -m 0644 $(PAM_TCB_SO) $(DESTDIR)$(SECUREDIR)/
.PHONY: install-pam

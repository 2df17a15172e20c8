PAM_TCB_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard tcb/pam/*.c))
PAM_TCB_SO  := $(B)/lib/security/pam_tcb.so
SECUREDIR   ?= $(SLIBDIR)/security

all: $(PAM_TCB_SO)

$(PAM_TCB_OBJ): CPPFLAGS += $(TCB_INC) $(TCBEDIT_INC)
$(PAM_TCB_SO): $(PAM_TCB_OBJ) $(TCBEDIT_A) $(COMMON_A) $(LIBTCB_SO) \
    tcb/pam/pam_tcb.map
	$(call link,$(PAM_TCB_OBJ) $(TCBEDIT_A) $(COMMON_A) -L$(B)/lib -ltcb \
	  -lpam -lcrypt,-shared -Wl$(,)--version-script=tcb/pam/pam_tcb.map)

install: install-pam
install-pam: $(PAM_TCB_SO)
	install -d $(DESTDIR)$(SECUREDIR)
	install -m 0644 $(PAM_TCB_SO) $(DESTDIR)$(SECUREDIR)/
.PHONY: install-pam

TOOL_OBJ := $(B)/tcb/progs/tool.o $(B)/tcb/progs/tcbgroups.o
TCB_TOOLS := $(B)/sbin/tcb_convert $(B)/sbin/tcb_unconvert

all: $(TCB_TOOLS)

$(B)/sbin/%: $(B)/tcb/progs/%.o $(TOOL_OBJ) $(COMMON_A)
	$(call link,$^,$(PIE))

# The helper: set-gid shadow when installed by the image or packages (the
# groups may not exist where make install runs); see tcb(5).
CHKPWD := $(B)/libexec/tcb_chkpwd
CHKPWD_DIR ?= /usr/libexec/chkpwd
all: $(CHKPWD)
CHKPWD_OBJ := $(B)/tcb/progs/tcb_chkpwd.o $(B)/tcb/progs/chkpwd_request.o \
    $(B)/tcb/pam/gate.o $(B)/tcb/pam/owner.o
$(CHKPWD): $(CHKPWD_OBJ) $(COMMON_A) $(LIBTCB_SO)
	$(call link,$(CHKPWD_OBJ) $(COMMON_A) -L$(B)/lib -ltcb -lcrypt,$(PIE))
$(CHKPWD_OBJ): CPPFLAGS += $(TCB_INC) -Itcb/pam

# Owl installs the conversion tools root-only.
install: install-tcb-tools
install-tcb-tools: $(TCB_TOOLS) $(CHKPWD)
	install -d $(DESTDIR)$(SBINDIR)
	install -m 0700 $(TCB_TOOLS) $(DESTDIR)$(SBINDIR)/
	install -d -m 0711 $(DESTDIR)$(CHKPWD_DIR)
	install -m 0711 $(CHKPWD) $(DESTDIR)$(CHKPWD_DIR)/
.PHONY: install-tcb-tools

# chage(1) for tcb systems: installed 0755 here; the image or package makes
# it root:shadow 2711 (set-gid shadow, never set-uid), as passwd.
CHAGE := $(B)/bin/chage
BINDIR ?= $(PREFIX)/bin
all: $(CHAGE)
$(B)/tcb/progs/chage.o: CPPFLAGS += $(TCB_INC) $(TCBEDIT_INC)
$(CHAGE): $(B)/tcb/progs/chage.o $(TCBEDIT_A) $(COMMON_A) $(LIBTCB_SO)
	$(call link,$(B)/tcb/progs/chage.o $(TCBEDIT_A) $(COMMON_A) \
	  -L$(B)/lib -ltcb,$(PIE))

install: install-chage
install-chage: $(CHAGE)
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(CHAGE) $(DESTDIR)$(BINDIR)/chage
.PHONY: install-chage

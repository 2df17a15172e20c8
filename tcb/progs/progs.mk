TOOL_OBJ := $(B)/tcb/progs/tool.o $(B)/tcb/progs/tcbgroups.o
TCB_TOOLS := $(B)/sbin/tcb_convert $(B)/sbin/tcb_unconvert

all: $(TCB_TOOLS)

$(B)/sbin/%: $(B)/tcb/progs/%.o $(TOOL_OBJ) $(COMMON_A)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(PIE) $(LDFLAGS) -o $@ $^

# The helper: set-gid shadow when installed by the image or packages (the
# groups may not exist where make install runs); see tcb(5).
CHKPWD := $(B)/libexec/tcb_chkpwd
CHKPWD_DIR ?= /usr/libexec/chkpwd
all: $(CHKPWD)
CHKPWD_OBJ := $(B)/tcb/progs/tcb_chkpwd.o $(B)/tcb/progs/chkpwd_request.o \
    $(B)/tcb/pam/gate.o $(B)/tcb/pam/owner.o
$(CHKPWD): $(CHKPWD_OBJ) $(COMMON_A) $(LIBTCB_SO)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(PIE) $(LDFLAGS) -o $@ $(CHKPWD_OBJ) $(COMMON_A) \
	  -L$(B)/lib -ltcb -lcrypt
$(CHKPWD_OBJ): CPPFLAGS += -Itcb/pam

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
$(CHAGE): $(B)/tcb/progs/chage.o $(COMMON_A) $(LIBTCB_SO)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(PIE) $(LDFLAGS) -o $@ $(B)/tcb/progs/chage.o \
	  $(COMMON_A) -L$(B)/lib -ltcb

install: install-chage
install-chage: $(CHAGE)
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(CHAGE) $(DESTDIR)$(BINDIR)/chage
.PHONY: install-chage

TOOL_OBJ := $(B)/tcb/progs/tool.o $(B)/tcb/progs/tcbgroups.o
TCB_TOOLS := $(B)/sbin/tcb_convert $(B)/sbin/tcb_unconvert

all: $(TCB_TOOLS)

$(B)/sbin/%: $(B)/tcb/progs/%.o $(TOOL_OBJ) $(COMMON_A)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(PIE) $(LDFLAGS) -o $@ $^

# Owl installs the conversion tools root-only.
install: install-tcb-tools
install-tcb-tools: $(TCB_TOOLS)
	install -d $(DESTDIR)$(SBINDIR)
	install -m 0700 $(TCB_TOOLS) $(DESTDIR)$(SBINDIR)/
.PHONY: install-tcb-tools

TCB_VERSION := 0.9.8
LIBTCB_OBJ  := $(patsubst %.c,$(B)/%.o,$(wildcard tcb/lib/*.c))
LIBTCB_SO   := $(B)/lib/libtcb.so.$(TCB_VERSION)
LIBTCB_A    := $(B)/lib/libtcb.a
# The include path for tcb.h, added by every fragment whose objects use it.
TCB_INC     := -Itcb/lib

all: $(LIBTCB_SO) $(LIBTCB_A) $(B)/lib/tcb.pc

$(LIBTCB_OBJ): CPPFLAGS += $(TCB_INC)

# libtcb's objects and the few common/ helpers they call (LIBTCB_PRIV),
# joined into one relocatable object whose hidden symbols are then made
# local: it defines libtcb's API (default visibility, tcb/lib/export.h)
# and nothing else a program could link against, so neither libtcb.a nor
# libtcb.so ships owlet's internals as symbols.  Both are made from it.
LIBTCB_PRIV := $(B)/common/names.o
LIBTCB_RELOC := $(B)/tcb/lib/libtcb.o
OBJCOPY     ?= objcopy
$(LIBTCB_RELOC): $(LIBTCB_OBJ) $(LIBTCB_PRIV)
	@$(if $(Q),echo "  LD -r   $@")
	$(Q)$(CC) -nostdlib -r -o $@.tmp $^
	$(Q)$(OBJCOPY) --localize-hidden $@.tmp $@
	$(Q)rm -f $@.tmp

$(LIBTCB_SO): $(LIBTCB_RELOC) tcb/lib/libtcb.map
	$(call link,$(LIBTCB_RELOC),-shared -Wl$(,)-soname$(,)libtcb.so.0 \
	  -Wl$(,)--version-script=tcb/lib/libtcb.map)
	$(Q)ln -sf libtcb.so.$(TCB_VERSION) $(B)/lib/libtcb.so.0
	$(Q)ln -sf libtcb.so.0 $(B)/lib/libtcb.so

$(LIBTCB_A): $(LIBTCB_RELOC)
	@mkdir -p $(@D)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(B)/lib/tcb.pc: tcb/lib/tcb.pc.in
	@mkdir -p $(@D)
	$(Q)sed -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(TCB_VERSION)|' $< > $@

install: install-libtcb
install-libtcb: $(LIBTCB_SO) $(LIBTCB_A) $(B)/lib/tcb.pc
	install -d $(DESTDIR)$(SLIBDIR) $(DESTDIR)$(LIBDIR) \
	  $(DESTDIR)$(INCDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0755 $(LIBTCB_SO) $(DESTDIR)$(SLIBDIR)/
	ln -sf libtcb.so.$(TCB_VERSION) $(DESTDIR)$(SLIBDIR)/libtcb.so.0
	# relative, so that it resolves inside DESTDIR too
	ln -sf $(shell realpath -m -s --relative-to=$(LIBDIR) $(SLIBDIR))/libtcb.so.0 \
	  $(DESTDIR)$(LIBDIR)/libtcb.so
	install -m 0644 $(LIBTCB_A) $(DESTDIR)$(LIBDIR)/
	install -m 0644 tcb/lib/tcb.h $(DESTDIR)$(INCDIR)/
	install -m 0644 $(B)/lib/tcb.pc $(DESTDIR)$(PKGCONFIGDIR)/
.PHONY: install-libtcb

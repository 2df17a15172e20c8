TCB_VERSION := 0.9.8
LIBTCB_OBJ  := $(patsubst %.c,$(B)/%.o,$(wildcard tcb/lib/*.c))
LIBTCB_SO   := $(B)/lib/libtcb.so.$(TCB_VERSION)
LIBTCB_A    := $(B)/lib/libtcb.a

all: $(LIBTCB_SO) $(LIBTCB_A) $(B)/lib/tcb.pc

$(LIBTCB_SO): $(LIBTCB_OBJ) $(COMMON_A) tcb/lib/libtcb.map
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libtcb.so.0 \
	  -Wl,--version-script=tcb/lib/libtcb.map -o $@ $(LIBTCB_OBJ) $(COMMON_A)
	$(Q)ln -sf libtcb.so.$(TCB_VERSION) $(B)/lib/libtcb.so.0
	$(Q)ln -sf libtcb.so.0 $(B)/lib/libtcb.so

$(LIBTCB_A): $(LIBTCB_OBJ) $(COMMON_OBJ)
	@mkdir -p $(@D)
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

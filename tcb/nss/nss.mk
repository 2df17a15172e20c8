NSS_OBJ := $(B)/tcb/nss/nss_tcb.o
NSS_SO  := $(B)/lib/libnss_tcb.so.2

all: $(NSS_SO)

$(NSS_OBJ): CPPFLAGS += $(TCB_INC)
$(NSS_SO): $(NSS_OBJ) $(COMMON_A) tcb/nss/libnss_tcb.map
	$(call link,$(NSS_OBJ) $(COMMON_A) -lpthread,-shared \
	  -Wl$(,)-soname$(,)libnss_tcb.so.2 \
	  -Wl$(,)--version-script=tcb/nss/libnss_tcb.map)

install: install-nss
install-nss: $(NSS_SO)
	install -d $(DESTDIR)$(SLIBDIR)
	install -m 0644 $(NSS_SO) $(DESTDIR)$(SLIBDIR)/
.PHONY: install-nss

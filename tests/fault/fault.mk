# Fault injection: faultinj.so, an LD_PRELOAD shim that fails the N-th
# open/write/fsync/rename/mkdir/chown/chmod/link call (tests/fault/faultinj.c).
# Built without _FORTIFY_SOURCE (it defines open() itself) and without
# sanitizers (it is preloaded into any binary); only needed by `make check`.
FAULTINJ_SO := $(B)/tests/faultinj.so
FAULTINJ_CFLAGS := $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS))
FAULTINJ_LDFLAGS := $(filter-out -fsanitize=%,$(LDFLAGS))

$(FAULTINJ_SO): tests/fault/faultinj.c tests/fault/fault.mk
	@mkdir -p $(@D)
	$(CC) -U_FORTIFY_SOURCE -D_GNU_SOURCE $(FAULTINJ_CFLAGS) -shared \
	  $(FAULTINJ_LDFLAGS) -o $@ $< -ldl

faultinj: $(FAULTINJ_SO)
check: $(FAULTINJ_SO)
.PHONY: faultinj

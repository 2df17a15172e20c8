# make check: build, then run every TAP test with prove.  Test helper
# programs are built here too; the rpath lets them find build/lib/libtcb.so.0
# without LD_LIBRARY_PATH (tests run them inside and outside in_ns).
TEST_BINS := $(patsubst tests/bin/%.c,$(B)/tests/bin/%,$(wildcard tests/bin/*.c))

$(B)/tests/bin/%: tests/bin/%.c $(COMMON_A) $(LIBTCB_SO)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PIE) $(LDFLAGS) -o $@ $< $(COMMON_A) \
	  -Wl,-rpath,$(abspath $(B))/lib -L$(B)/lib -ltcb -lcrypt -lpam -lpthread -ldl

check: all $(TEST_BINS)
	B=$(abspath $(B)) prove -r $(PROVE_FLAGS) tests/

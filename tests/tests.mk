# make check: build, then run every TAP test with prove.  Test helper
# programs are built here too; the rpath lets them find build/lib/libtcb.so.0
# without LD_LIBRARY_PATH (tests run them inside and outside in_ns).
TEST_BINS := $(patsubst tests/bin/%.c,$(B)/tests/bin/%,$(wildcard tests/bin/*.c))

# tcbprobe exercises libtcb (tcb.h); private: COMMON_A's objects, built
# as prerequisites, must not inherit the path.
$(B)/tests/bin/tcbprobe: private CPPFLAGS += $(TCB_INC)
$(B)/tests/bin/%: tests/bin/%.c $(COMMON_A) $(LIBTCB_SO)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PIE) $(LDFLAGS) -o $@ $< $(COMMON_A) \
	  -Wl,-rpath,$(abspath $(B))/lib -L$(B)/lib -ltcb -lcrypt -lpam -lpthread -ldl
$(B)/tests/bin/pamprobe: tests/bin/tokenconv.h

# Two at a time (PROVE_JOBS), the slowest first so that the run does not
# end on one of them alone.  Tests that share an output (the image, the
# disk) hold shared locks on it while they read it; a build takes the
# exclusive lock only when its stamp says it must rebuild.  static.t
# (compilers only) comes second: it runs while iso.t builds the packages
# and the image, steps that leave a CPU idle, where vm/disk.t would only
# wait for them.  TESTS_SLOW is in the order of CI's durations (plain;
# the sanitizer pass skips the VM, image and container tests at once,
# and its own slowest, privmatrix, shadow-utils, fault-pam, control, are
# then near the front too); the rest, each under ~25 s, alphabetically.
PROVE_JOBS ?= 2
TESTS_SLOW := tests/iso/iso.t tests/unit/static.t tests/vm/disk.t tests/ansible/ansible.t \
	tests/sys/privmatrix.t tests/deb/deb.t tests/deb/shadow-tcb.t \
	tests/image/disk.t tests/container/build.t tests/tcb/shadow-utils.t \
	tests/sys/fault-pam.t tests/control/control.t tests/container/system.t \
	tests/image/shadow-tcb.t tests/container/oci.t tests/tcb/chkpwd.t tests/unit/fuzz.t \
	tests/pam/auth.t tests/tcb/fault.t tests/image/image.t tests/control/hardening.t \
	tests/pam/password.t
TESTS := $(TESTS_SLOW) $(filter-out $(TESTS_SLOW),$(sort $(wildcard tests/*/*.t)))

check: all $(TEST_BINS)
	B=$(abspath $(B)) prove --timer -j$(PROVE_JOBS) $(PROVE_FLAGS) $(TESTS)

# Sanitizer build: a hook that turns LeakSanitizer off in processes without
# owlet code and in those it cannot check (set-ID, traced), preloaded with
# the runtime (preload in tests/lib/tap.sh; tests/lib/lsan_off.c says why).
# Plain C, never instrumented.
ifeq ($(SANITIZE),1)
$(B)/tests/lsan_off.so: tests/lib/lsan_off.c
	@mkdir -p $(@D)
	$(Q)$(CC) -O2 -Wall -Wextra -Werror -fPIC -shared -o $@ $<
check: $(B)/tests/lsan_off.so
endif

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
# wait for them.  TESTS_SLOW is in the order of CI's durations; the rest,
# each under ~25 s, alphabetically.
PROVE_JOBS ?= 2
TESTS_SLOW := tests/iso/iso.t tests/unit/static.t tests/vm/disk.t tests/ansible/ansible.t \
	tests/sys/privmatrix.t tests/deb/deb.t tests/deb/shadow-tcb.t \
	tests/image/disk.t tests/container/build.t tests/tcb/shadow-utils.t \
	tests/sys/fault-pam.t tests/control/control.t tests/container/system.t \
	tests/image/shadow-tcb.t tests/container/oci.t tests/tcb/chkpwd.t tests/unit/fuzz.t \
	tests/pam/auth.t tests/tcb/fault.t tests/image/image.t tests/control/hardening.t \
	tests/pam/password.t
TESTS := $(TESTS_SLOW) $(filter-out $(TESTS_SLOW),$(sort $(wildcard tests/*/*.t)))

# make check CHECK_SANITIZED=1 (CI): the suite against this build and,
# in the same prove run, against the sanitizer build $(SAN_B) (made here
# first), each of whose tests is listed as $(SAN_B):tests/DIR/NAME.t
# (tests/lib/run.sh).  One run keeps both CPUs busy: the sanitizer
# build's tests fill the time that this build's VM and image tests spend
# waiting (for qemu, for a lock on a shared build), and nothing waits at
# the end of a first run for its last slow test.  The sanitizer build's
# slowest tests come right after the four slowest here; its VM, image and
# container tests skip at once.
SAN_B ?= build-san
TESTS_SAN_SLOW := tests/sys/privmatrix.t tests/control/control.t tests/tcb/shadow-utils.t \
	tests/sys/fault-pam.t tests/control/hardening.t
ifeq ($(CHECK_SANITIZED),1)
TESTS_RUN := $(wordlist 1,4,$(TESTS)) $(addprefix $(SAN_B):,$(filter $(TESTS),$(TESTS_SAN_SLOW))) \
	$(wordlist 5,$(words $(TESTS)),$(TESTS)) \
	$(addprefix $(SAN_B):,$(filter-out $(TESTS_SAN_SLOW),$(TESTS)))
else
TESTS_RUN := $(TESTS)
endif

check-build: all $(TEST_BINS)

check: check-build
ifeq ($(CHECK_SANITIZED),1)
	$(MAKE) --no-print-directory B=$(SAN_B) SANITIZE=1 CHECK_SANITIZED= check-build
endif
	B=$(abspath $(B)) prove --timer -j$(PROVE_JOBS) --exec '$(CURDIR)/tests/lib/run.sh' \
	  $(PROVE_FLAGS) $(TESTS_RUN)

# Sanitizer build: a hook that turns LeakSanitizer off in processes without
# owlet code and in those it cannot check (set-ID, traced), preloaded with
# the runtime (preload in tests/lib/tap.sh; tests/lib/lsan_off.c says why).
# Plain C, never instrumented.
ifeq ($(SANITIZE),1)
$(B)/tests/lsan_off.so: tests/lib/lsan_off.c
	@mkdir -p $(@D)
	$(Q)$(CC) -O2 -Wall -Wextra -Werror -fPIC -shared -o $@ $<
check-build: $(B)/tests/lsan_off.so
endif

# libFuzzer targets for owlet's parsers of untrusted input (tests/fuzz/):
#
#   fuzz_chkpwd_request  tcb_chkpwd's request parser (tcb/progs/chkpwd_request.c)
#   fuzz_login_defs      the login.defs reader (common/logindefs.c)
#   fuzz_pam_options     pam_tcb's option parser (tcb/pam/options.c)
#   fuzz_shadow_line     shadow(5) line check/parse (common/shadowline.c)
# (seal's targets come from seal/seal.mk, control's from control/control.mk)
#
#   make fuzz-build      build them into $(B)/fuzz/ (needs clang and
#                        libclang-rt-14-dev; make deps installs both)
#   make fuzz-list       print the target names
#   make fuzz            run each for FUZZ_RUNS inputs, or if that is
#                        not set for FUZZ_SECONDS (default 300), on a
#                        working corpus in $(B)/fuzz/corpus/TARGET, seeded
#                        from tests/fuzz/corpus/TARGET; crashes are saved
#                        in $(B)/fuzz/artifacts/, logs in $(B)/fuzz/logs/,
#                        a results table (executions, exec/s, verdict) in
#                        $(B)/fuzz/results.md (tests/fuzz/run.sh).
#                        FUZZ_RUN=TARGET... picks targets (names without
#                        the fuzz_ prefix).  docs/hardening.md has the
#                        figures.
#
# tests/unit/fuzz.t (make check) builds them and runs each briefly.
#
# Another component adds a target NAME (source tests/fuzz/fuzz_NAME.c,
# seeds in tests/fuzz/corpus/NAME/, optional tests/fuzz/NAME.dict) from a
# fragment read before this one: FUZZ_TARGETS += NAME, FUZZ_SRC_NAME := the
# sources under test, and if needed FUZZ_CPPFLAGS_NAME, FUZZ_LIBS_NAME.
#
# The sources are compiled straight into each fuzzer with clang and the
# flags below, never with the project's CFLAGS: fortification, -fPIE/-pie
# and -Werror under gcc's warning set do not mix with the sanitizers and
# libFuzzer's own main().  The guard lets this file be included by the top
# Makefile and also named on the command line (make -f Makefile -f
# tests/fuzz/fuzz.mk), as tests/unit/fuzz.t does.
ifndef OWLET_FUZZ_MK
OWLET_FUZZ_MK := 1

FUZZ_CC       ?= clang
FUZZ_SECONDS  ?= 300
FUZZ_RUNS     ?=
FUZZ_DIR      := $(B)/fuzz
FUZZ_CPPFLAGS := -D_GNU_SOURCE -Icommon -Itcb/lib -Itcb/pam -Itcb/progs
FUZZ_CFLAGS   := -std=gnu11 -g -O1 -fno-omit-frame-pointer \
                 -fsanitize=fuzzer,address,undefined \
                 -fno-sanitize-recover=all -Wall -Wextra -Werror \
                 -Wno-unused-parameter
FUZZ_TARGETS  += chkpwd_request login_defs pam_options shadow_line
FUZZ_RUN      ?= $(FUZZ_TARGETS)
FUZZ_BINS     := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_HDRS     := common/owlet.h tcb/pam/chkpwd.h tcb/pam/pam_tcb.h \
                 tcb/progs/chkpwd_request.h

# The code under test, per target.
FUZZ_SRC_chkpwd_request := tcb/progs/chkpwd_request.c common/names.c
FUZZ_SRC_pam_options    := tcb/pam/options.c common/number.c
# options.c's tcb_opts_get logs through libpam; tcb_opts_parse asks
# libxcrypt whether it takes the prefix and count.
FUZZ_LIBS_pam_options   := -lpam -lcrypt
FUZZ_SRC_shadow_line    := common/shadowline.c common/names.c common/number.c
FUZZ_SRC_login_defs     := common/logindefs.c common/linereader.c common/fdio.c

define FUZZ_RULE
$(FUZZ_DIR)/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(FUZZ_SRC_$(1)) $(FUZZ_HDRS)
	@mkdir -p $$(@D)
	@$$(if $$(Q),echo "  FUZZCC  $$@")
	$$(Q)$$(FUZZ_CC) $$(FUZZ_CPPFLAGS) $(FUZZ_CPPFLAGS_$(1)) \
	  $$(FUZZ_CFLAGS) -o $$@ tests/fuzz/fuzz_$(1).c $(FUZZ_SRC_$(1)) \
	  $(FUZZ_LIBS_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_RULE,$(t))))

fuzz-build: $(FUZZ_BINS)

fuzz-list:
	@echo $(FUZZ_TARGETS)

fuzz: fuzz-build
	FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_SECONDS=$(FUZZ_SECONDS) \
	  sh tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_RUN)

.PHONY: fuzz fuzz-build fuzz-list
endif

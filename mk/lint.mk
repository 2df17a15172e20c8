# make lint: static analysis of every C source in the tree (programs,
# libraries, modules, tests/bin, tests/fuzz, tests/fault, bench).  Each
# finding is fixed, or justified in a suppressions file; docs/hardening.md
# has the figures.
#
#   make lint-cppcheck  cppcheck --enable=warning,portability, with the
#                       posix/gnu/bsd library models, one job (its
#                       cross-file checks do not run with -j); suppressions
#                       (with reasons) in tests/static/cppcheck.supp
#   make lint-scan      clang's scan-build over a fresh build in $(SCAN_B)
#                       (default build-scan): everything, the test programs
#                       and faultinj.so (compiled by gcc), then the libFuzzer
#                       targets (compiled by clang; SCAN_FUZZ=0 leaves
#                       them out); suppressions in
#                       tests/static/scan-build.supp, checked by
#                       tests/static/scan-build-check; one run at a time
#                       (flock on this file)
#   make lint           both
#
# tests/unit/static.t runs `make lint SCAN_FUZZ=0` as part of make check
# (skipped when cppcheck or scan-build is missing: make deps installs
# them): the fuzz targets' code under test is the library sources the
# first scan covers, and their harnesses are test code; a second scan
# doubled the test's CPU time.
LINT_SRC  := $(sort $(filter-out build%,$(wildcard */*.c */*/*.c)))
LINT_INC  := $(sort $(filter-out build%,$(dir $(wildcard */*.h */*/*.h))))
CPPCHECK  ?= cppcheck
CPPCHECK_FLAGS := --enable=warning,portability --std=c11 --language=c \
    --library=posix --library=gnu --library=bsd \
    -D_GNU_SOURCE -D__linux__ $(addprefix -I,$(LINT_INC)) \
    --suppressions-list=tests/static/cppcheck.supp \
    --error-exitcode=1 --quiet \
    --template='{file}:{line}: {severity} ({id}): {message}'

SCAN_B     ?= build-scan
SCAN_FUZZ  ?= 1
# clang-tools-14 installs scan-build-14; the clang-tools package adds the
# unversioned name.
SCAN_BUILD ?= $(firstword $(shell command -v scan-build scan-build-14 \
    2>/dev/null) scan-build)
# The sub-makes build plainly (SANITIZE=0), whatever this make was given.
SCAN_MAKE  := $(MAKE) -s --no-print-directory B=$(SCAN_B) SANITIZE=0
SCAN_BINS  := $(patsubst tests/bin/%.c,$(SCAN_B)/tests/bin/%,\
    $(wildcard tests/bin/*.c)) $(SCAN_B)/tests/faultinj.so

lint: lint-cppcheck lint-scan

lint-cppcheck:
	$(CPPCHECK) $(CPPCHECK_FLAGS) $(LINT_SRC)

# One scan at a time (two make checks at once would share build-scan):
# the lock is on this file, which always exists.
lint-scan:
	@flock -w 1800 mk/lint.mk $(MAKE) --no-print-directory lint-scan-locked

lint-scan-locked:
	rm -rf $(SCAN_B)
	$(SCAN_BUILD) -plist -o $(SCAN_B)/report $(SCAN_MAKE) all $(SCAN_BINS)
ifeq ($(SCAN_FUZZ),1)
	$(SCAN_BUILD) --use-cc=clang -plist -o $(SCAN_B)/report \
	  $(SCAN_MAKE) fuzz-build FUZZ_CC='$$(CC)'
endif
	perl tests/static/scan-build-check $(SCAN_B)/report \
	  tests/static/scan-build.supp

.PHONY: lint lint-cppcheck lint-scan lint-scan-locked

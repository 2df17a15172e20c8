# make bench: benchmarks printing ratios against peers measured in the same
# run (not part of make check; need root for private mount namespaces).
#   make bench-tcb    getspnam via tcb vs files vs the open+read floor, and
#                     tcb_convert at 1k/100k/1M users (BENCH_SIZES=...)
#   make bench-passwd one password change through pam_tcb vs Debian's
#                     pam_unix (whole /etc/shadow rewritten) at 1k/100k/1M
#   make bench-seal   seal create/verify vs the SHA-256 ceiling, bsdtar,
#                     NetBSD mtree, AIDE; RSS on 1M files (SEAL_FILES=...)
#   make bench-audit  control --audit vs find -perm /6000 + getcap -r on
#                     this machine's /usr /etc /var /opt (read-only)
#   make bench-boot   boot-to-SSH time and qcow2 size of the owlet disk vs a
#                     stock Debian disk from the same pipeline (qemu, one
#                     VM at a time; BENCH_BOOTS=3 boots of each)
#   make bench-container  compressed size of the container base flavour vs
#                     a stock Debian minbase from the same pipeline
#   make bench-bootparams  boot time and a small workload with owlet's
#                     kernel boot parameters vs Debian's, on one VM of the
#                     owlet disk (BENCH_BOOTS=3 rounds; BENCH_ONE="P..."
#                     measures each parameter P alone against Debian's)
# bench-tcb runs first: a freshly deleted 1M-file tree slows ext4 inode
# allocation for minutes.  bench-passwd then waits until bench-tcb's roots
# are removed in the background and BENCH_SETTLE (360 s) old, about 18
# minutes here.  Results and method: docs/benchmarks.md.
BENCH_BINS := $(B)/bench/getspnam_bench $(B)/bench/mktree $(B)/bench/readfloor

$(B)/bench/%: bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PIE) $(LDFLAGS) -o $@ $<

# bench/timing.h: what getspnam_bench and passwd_bench share (static
# inline functions, so no object of its own).
$(B)/bench/getspnam_bench $(B)/bench/passwd_bench: bench/timing.h
$(B)/bench/passwd_bench: tests/bin/tokenconv.h

# passwd_bench drives libpam.
$(B)/bench/passwd_bench: bench/passwd_bench.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PIE) $(LDFLAGS) -o $@ $< -lpam

bench: bench-tcb bench-passwd bench-seal bench-audit bench-boot bench-container
bench-tcb: all $(BENCH_BINS)
	B=$(abspath $(B)) sh bench/tcb.sh
bench-passwd: all $(B)/bench/passwd_bench $(B)/tests/bin/pamprobe
	B=$(abspath $(B)) sh bench/passwd.sh
bench-seal: all $(BENCH_BINS)
	B=$(abspath $(B)) bash bench/seal.sh
bench-audit: all
	B=$(abspath $(B)) sh bench/audit.sh
# make disk first: a no-op when the owlet disk is current.
bench-boot: disk
	B=$(abspath $(B)) sh bench/boot.sh
# make container first: a no-op when the outputs are current.
bench-container: container
	B=$(abspath $(B)) sh bench/container.sh
bench-bootparams: disk
	B=$(abspath $(B)) sh bench/bootparams.sh
.PHONY: bench-tcb bench-passwd bench-seal bench-audit bench-boot bench-bootparams bench-container

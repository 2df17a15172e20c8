# make bench: benchmarks printing ratios against peers measured in the same
# run (not part of make check; need root for private mount namespaces).
#   make bench-tcb    getspnam via tcb vs files vs the open+read floor, and
#                     tcb_convert at 1k/100k/1M users (BENCH_SIZES=...)
#   make bench-seal   seal create/verify vs the SHA-256 ceiling, bsdtar,
#                     NetBSD mtree, AIDE; RSS on 1M files (SEAL_FILES=...)
# bench-tcb runs first: a freshly deleted 1M-file tree slows ext4 inode
# allocation for minutes.  Results and method: docs/benchmarks.md.
BENCH_BINS := $(B)/bench/getspnam_bench $(B)/bench/mktree

$(B)/bench/%: bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PIE) $(LDFLAGS) -o $@ $<

bench: bench-tcb bench-seal
bench-tcb: all $(BENCH_BINS)
	B=$(abspath $(B)) sh bench/tcb.sh
bench-seal: all $(BENCH_BINS)
	B=$(abspath $(B)) bash bench/seal.sh
.PHONY: bench-tcb bench-seal

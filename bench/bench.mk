# make bench: benchmarks printing ratios against peers measured in the same
# run (not part of make check; needs root for private mount namespaces).
#   BENCH_SIZES="1000 100000"   user counts (default 1000 100000 1000000)
# See bench/tcb.sh for the other knobs and docs/benchmarks.md for results.
BENCH_BINS := $(B)/bench/getspnam_bench

$(B)/bench/%: bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PIE) $(LDFLAGS) -o $@ $<

bench: all $(BENCH_BINS)
	B=$(abspath $(B)) sh bench/tcb.sh

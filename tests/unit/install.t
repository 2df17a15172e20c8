#!/bin/bash
# make install DESTDIR=: Debian paths and modes, and a program written for
# Openwall's libtcb compiles and links against the installed header, .so and
# pkg-config file alone.
. "$(dirname "$0")/../lib/tap.sh"
D=$(mktemp -d /tmp/owlet-install.XXXXXX)
trap 'rm -rf "$D"' EXIT
MA=$(cc -print-multiarch)

make -C "$TOP" -s install DESTDIR="$D/root" B="$B" >/dev/null 2>&1
ok $? "make install DESTDIR"
for f in "lib/$MA/libtcb.so.0.9.8 755" "lib/$MA/libnss_tcb.so.2 644" \
    "usr/include/tcb.h 644" "usr/lib/$MA/libtcb.a 644" \
    "usr/lib/$MA/pkgconfig/tcb.pc 644" "usr/sbin/tcb_convert 700" \
    "usr/sbin/tcb_unconvert 700" "usr/share/man/man5/tcb.5 644" \
    "usr/bin/chage 755" "usr/bin/seal 755" \
    "lib/$MA/security/pam_tcb.so 644" "usr/libexec/chkpwd/tcb_chkpwd 711"; do
	set -- $f
	is "$(stat -c %a "$D/root/$1" 2>/dev/null)" "$2" "$1 installed, mode $2"
done
is "$(readlink "$D/root/lib/$MA/libtcb.so.0")" libtcb.so.0.9.8 "soname link"

cat > "$D/use.c" <<'C'
#include <stdio.h>
#include <tcb.h>
int main(void)
{
	struct tcb_privs p = { 0 };
	gid_t g[TCB_NGROUPS];
	char path[256];
	p.grplist = g;
	p.number_of_groups = TCB_NGROUPS;
	snprintf(path, sizeof(path), TCB_FMT, "nobody");
	if (tcb_drop_priv_r("nosuchuser-owlet", &p) == 0)
		tcb_gain_priv_r(&p);
	/* nothing locked or dropped: each call must fail cleanly */
	if (ulckpwdf_tcb() != -1 || tcb_gain_priv() != -1)
		return 1;
	(void)tcb_is_suspect(0);	/* stdin: any answer, must not crash */
	if (lckpwdf_tcb("/nonexistent-owlet/x") != -1)
		return 1;
	if (tcb_drop_priv("nosuchuser-owlet") == 0)
		tcb_gain_priv();
	return 0;
}
C
flags=$(PKG_CONFIG_SYSROOT_DIR="$D/root" PKG_CONFIG_LIBDIR="$D/root/usr/lib/$MA/pkgconfig" \
    pkg-config --cflags --libs tcb)
flags=$(echo $flags)
is "$flags" "-I$D/root/usr/include -L$D/root/usr/lib/$MA -ltcb" "pkg-config tcb"
# With the pkg-config flags alone: the relative dev link must lead to the
# shared library (not silently to libtcb.a).
cc -o "$D/use" "$D/use.c" $flags 2>&1
ok $? "a libtcb client compiles against the installed files"
# (a sanitizer build's libtcb needs the ASan runtime preloaded: preload)
LD_PRELOAD=$(preload) LD_LIBRARY_PATH="$D/root/lib/$MA" "$D/use"
ok $? "and runs with the installed libtcb.so.0"
like "$(readelf -d "$D/use" | grep NEEDED)" "libtcb.so.0" "client records NEEDED libtcb.so.0"
like "$(nm -D "$D/use" | grep lckpwdf_tcb)" "lckpwdf_tcb@TCB_0.9.8" "binds to version TCB_0.9.8"

# The static library holds libtcb and nothing of owlet's own: its global
# symbols are exactly the API of libtcb.map (the common/ helpers libtcb
# uses are linked in as local symbols), and a client links it statically.
A=$D/root/usr/lib/$MA/libtcb.a
api=$(sed -n 's/^[[:space:]]*\([a-z_]*\);$/\1/p' "$TOP/tcb/lib/libtcb.map" | sort | tr '\n' ' ')
is "$(nm -g --defined-only "$A" | awk 'NF == 3 {print $3}' | sort | tr '\n' ' ')" "$api" \
    "libtcb.a defines only libtcb.map's symbols globally"
is "$(nm "$A" | awk 'NF == 3 && $3 ~ /^owlet_/ && $2 ~ /[A-Z]/' | wc -l)" 0 \
    "libtcb.a exports no owlet_* symbol"
is "$(ar t "$A" | tr '\n' ' ')" "libtcb.o " "libtcb.a is one object, no common/ members"
if [ -z "$(preload)" ]; then
	cc -o "$D/use-static" "$D/use.c" -I"$D/root/usr/include" "$A" 2>&1
	ok $? "a libtcb client links libtcb.a statically"
	"$D/use-static"
	ok $? "and runs"
fi
done_testing

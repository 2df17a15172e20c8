# Manual pages, written in mdoc(7).  Every man/*.N is installed into
# $(MANDIR)/manN.  A page that documents several names (several .Nm in its
# NAME section) gets one-line ".so" link pages for the other names, so that
# "man tcb_gain_priv" finds it; each link is LINK=TARGET, relative to
# $(MANDIR), the form man-db and mandoc resolve.
#
#   make install-man     install pages and link pages (0644)
#   make lint-man        mandoc -Tlint -W warning on every page (also run by
#                        tests/unit/man.t under make check)

MAN_PAGES    := $(sort $(wildcard man/*.[1-9]))
MAN_SECTIONS := $(sort $(patsubst .%,%,$(suffix $(MAN_PAGES))))
MAN_LINKS    := \
	man3/tcb_gain_priv.3=man3/tcb_drop_priv.3 \
	man3/tcb_drop_priv_r.3=man3/tcb_drop_priv.3 \
	man3/tcb_gain_priv_r.3=man3/tcb_drop_priv.3 \
	man3/ulckpwdf_tcb.3=man3/lckpwdf_tcb.3 \
	man8/tcb_unconvert.8=man8/tcb_convert.8

# The link pages are written straight into DESTDIR (umask-independent,
# 0644): nothing shared in the build dir, so that concurrent installs
# into different DESTDIRs (tests run side by side) cannot race.
install: install-man
install-man:
	set -e; for s in $(MAN_SECTIONS); do \
	  install -d $(DESTDIR)$(MANDIR)/man$$s; \
	done
	set -e; for p in $(MAN_PAGES); do \
	  s=$${p##*.}; install -m 0644 $$p $(DESTDIR)$(MANDIR)/man$$s/; \
	done
	set -e; for l in $(MAN_LINKS); do \
	  name=$${l%%=*}; target=$${l#*=}; \
	  install -d $(DESTDIR)$(MANDIR)/$${name%/*}; \
	  printf '.so %s\n' "$$target" > $(DESTDIR)$(MANDIR)/$$name; \
	  chmod 0644 $(DESTDIR)$(MANDIR)/$$name; \
	done

lint-man:
	@command -v mandoc >/dev/null || { echo "mandoc not found (apt-get install mandoc)" >&2; exit 1; }
	mandoc -Tlint -W warning $(MAN_PAGES)

.PHONY: install-man lint-man

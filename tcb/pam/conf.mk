# PAM stacks and password policy, installed as data; control (passwd tcb
# and passwd traditional, see facilities/passwd) puts a stack into
# /etc/pam.d.  tcb/pam/conf/common-* is owlet's tcb stack; unix/ is
# Debian 12's pam-auth-update output for pam_unix (with passwdqc), used
# when no saved copy of the system's own files exists.
OWLET_DATADIR ?= $(PREFIX)/share/owlet
PAM_TCB_STACK  := $(wildcard tcb/pam/conf/common-*)
PAM_UNIX_STACK := $(wildcard tcb/pam/conf/unix/common-*)

install: install-pam-conf
install-pam-conf:
	install -d $(DESTDIR)$(OWLET_DATADIR)/pam/tcb $(DESTDIR)$(OWLET_DATADIR)/pam/unix
	install -m 0644 $(PAM_TCB_STACK) $(DESTDIR)$(OWLET_DATADIR)/pam/tcb/
	install -m 0644 $(PAM_UNIX_STACK) $(DESTDIR)$(OWLET_DATADIR)/pam/unix/
	install -m 0644 tcb/pam/conf/passwdqc.conf $(DESTDIR)$(OWLET_DATADIR)/
.PHONY: install-pam-conf

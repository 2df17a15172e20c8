# PAM stacks and password policy for the tcb state, installed as data;
# control (passwd tcb) or the image puts them in /etc.
OWLET_DATADIR ?= $(PREFIX)/share/owlet
PAM_CONF := $(wildcard tcb/pam/conf/common-*) tcb/pam/conf/passwdqc.conf

install: install-pam-conf
install-pam-conf:
	install -d $(DESTDIR)$(OWLET_DATADIR)/pam.d
	install -m 0644 $(filter tcb/pam/conf/common-%,$(PAM_CONF)) \
	  $(DESTDIR)$(OWLET_DATADIR)/pam.d/
	install -m 0644 tcb/pam/conf/passwdqc.conf $(DESTDIR)$(OWLET_DATADIR)/
.PHONY: install-pam-conf

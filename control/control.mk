# control(8): the facility engine, installed root-only in /usr/sbin with
# the facility files in /usr/share/owlet/facilities and a dpkg hook.
CONTROL_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard control/*.c))
CONTROL     := $(B)/sbin/control
FACILITY_FILES := $(wildcard facilities/[a-z]*)
# Debian 12 keeps packaged units in /lib (merged /usr makes it /usr/lib).
SYSTEMD_UNITDIR ?= /lib/systemd/system

all: $(CONTROL) $(B)/control/dpkg-hook.cfg

# Root-relative data paths are compiled in (facility files, PAM stacks).
$(CONTROL_OBJ): CPPFLAGS += -DOWLET_DATADIR='"$(OWLET_DATADIR)"'
$(B)/control/dpkg-hook.cfg: control/dpkg-hook.cfg
	@mkdir -p $(@D)
	sed 's|/usr/sbin/control|$(SBINDIR)/control|g' $< > $@

$(CONTROL): $(CONTROL_OBJ) $(COMMON_A)
	$(call link,$(CONTROL_OBJ) $(COMMON_A) -lcap,$(PIE))

install: install-control
install-control: $(CONTROL)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(OWLET_DATADIR)/facilities
	install -m 0700 $(CONTROL) $(DESTDIR)$(SBINDIR)/
	install -m 0644 $(FACILITY_FILES) $(DESTDIR)$(OWLET_DATADIR)/facilities/
	install -d $(DESTDIR)/etc/dpkg/dpkg.cfg.d
	install -m 0644 $(B)/control/dpkg-hook.cfg \
	  $(DESTDIR)/etc/dpkg/dpkg.cfg.d/owlet-control
	install -d $(DESTDIR)$(SYSTEMD_UNITDIR)
	install -m 0644 control/units/owlet-sysctl-after-boot.service \
	  $(DESTDIR)$(SYSTEMD_UNITDIR)/
.PHONY: install-control

# libFuzzer target for the facility file parser.
FUZZ_TARGETS += facility
FUZZ_SRC_facility := control/parse.c common/names.c common/number.c
FUZZ_CPPFLAGS_facility := -Icontrol
FUZZ_LIBS_facility := -lcap

# control(8): the facility engine, installed root-only in /usr/sbin with
# the facility files in /usr/share/owlet/facilities and an apt hook.
CONTROL_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard control/*.c))
CONTROL     := $(B)/sbin/control
FACILITY_FILES := $(wildcard facilities/[a-z]*)

all: $(CONTROL) $(B)/control/apt-hook.conf

# Root-relative data paths are compiled in (facility files, PAM stacks).
$(CONTROL_OBJ): CPPFLAGS += -DOWLET_DATADIR='"$(OWLET_DATADIR)"'
$(B)/control/apt-hook.conf: control/apt-hook.conf
	@mkdir -p $(@D)
	sed 's|/usr/sbin/control|$(SBINDIR)/control|g' $< > $@

$(CONTROL): $(CONTROL_OBJ) $(COMMON_A)
	$(call link,$(CONTROL_OBJ) $(COMMON_A) -lcap,$(PIE))

install: install-control
install-control: $(CONTROL)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(OWLET_DATADIR)/facilities
	install -m 0700 $(CONTROL) $(DESTDIR)$(SBINDIR)/
	install -m 0644 $(FACILITY_FILES) $(DESTDIR)$(OWLET_DATADIR)/facilities/
	install -d $(DESTDIR)/etc/apt/apt.conf.d
	install -m 0644 $(B)/control/apt-hook.conf \
	  $(DESTDIR)/etc/apt/apt.conf.d/70owlet-control
.PHONY: install-control

# libFuzzer target for the facility file parser.
FUZZ_TARGETS += facility
FUZZ_SRC_facility := control/parse.c common/names.c common/number.c
FUZZ_CPPFLAGS_facility := -Icontrol
FUZZ_LIBS_facility := -lcap

COMMON_SRC := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(B)/%.o)
COMMON_A   := $(B)/libowlet.a

$(COMMON_A): $(COMMON_OBJ)
	$(Q)$(AR) rcs $@ $^

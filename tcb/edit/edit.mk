# tcb/edit: the locked shadow-file edits (owlet_edit_tcb, owlet_edit_etc)
# shared by pam_tcb and chage.  They need libtcb, so they are not in
# common/ (common/ never depends on libtcb): a small static archive linked
# into those two only, never into libtcb.
TCBEDIT_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard tcb/edit/*.c))
TCBEDIT_A   := $(B)/libtcbedit.a
TCBEDIT_INC := -Itcb/edit

$(TCBEDIT_OBJ): CPPFLAGS += $(TCB_INC) $(TCBEDIT_INC)
$(TCBEDIT_A): $(TCBEDIT_OBJ)
	$(Q)$(AR) rcs $@ $^

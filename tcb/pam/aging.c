/*
 * shadow(5) aging, in the order Openwall's pam_tcb checks it, with the
 * corrections pam_unix and shadow-utils make: the account expires ON the
 * expiry day (>=), an empty last-change field (-1) turns password aging
 * off, and sums of day counts saturate instead of overflowing.
 */
#include <limits.h>

#include "pam_tcb.h"

static long
add(long a, long b)
{
	if (b > 0 && a > LONG_MAX - b)
		return LONG_MAX;
	if (b < 0 && a < LONG_MIN - b)
		return LONG_MIN;
	return a + b;
}

enum tcb_aging
tcb_aging(const struct spwd *sp, long today, long *days)
{
	long expires;

	*days = 0;
	if (sp->sp_expire != -1 && today >= sp->sp_expire)
		return AGING_ACCOUNT_EXPIRED;
	if (sp->sp_lstchg == -1)
		return AGING_OK;
	if (sp->sp_lstchg == 0)
		return AGING_CHANGE_ENFORCED;
	if (sp->sp_max == -1)
		return AGING_OK;
	expires = add(sp->sp_lstchg, sp->sp_max);
	if (sp->sp_inact != -1 && today > add(expires, sp->sp_inact))
		return AGING_INACTIVE;
	if (today > expires)
		return AGING_PASSWORD_EXPIRED;
	if (sp->sp_warn > 0 && today > add(expires, -sp->sp_warn)) {
		*days = expires - today;
		return AGING_WARN;
	}
	return AGING_OK;
}

int
tcb_too_early(const struct spwd *sp, long today)
{
	return sp->sp_min > 0 && sp->sp_lstchg > 0 &&
	    today < add(sp->sp_lstchg, sp->sp_min);
}

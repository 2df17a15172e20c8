/*
 * lsan_off.so: preloaded with the ASan runtime, in a sanitizer build only,
 * into the commands tests run through in_ns, in_sys and with_syslog
 * (tests/lib/root.sh, pam.sh): Debian's getent, pamtester, passwd (set-gid
 * shadow), and whatever shell utilities a test pipes through.  The runtime
 * asks this hook before its leak check at exit; the check is turned off in
 * exactly these processes:
 *   - those without owlet code: no loaded object (program or library) is
 *     linked against the ASan runtime, as every object of a sanitizer
 *     build is; a sort(1) or sh(1) that merely inherited the preload is
 *     not ours to check;
 *   - those holding set-ID privileges as an ordinary user (effective ids
 *     not the real ones): LeakSanitizer checks from a tracer, a clone with
 *     the same credentials, which may not ptrace such a process, and it
 *     dies ("LeakSanitizer has encountered a fatal error"); nor can such a
 *     process read its own /proc/self/environ, so ASAN_OPTIONS never
 *     reaches it;
 *   - those already traced (strace): the tracer cannot attach either.
 * ASan and UBSan stay on everywhere.  The code of the set-ID programs is
 * leak-checked where it runs without set-ID (tests/pam, tests/tcb,
 * chage.t's fault injection).
 */
#define _GNU_SOURCE	/* dl_iterate_phdr */
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int __lsan_is_turned_off(void);

/* dl_iterate_phdr callback: 1 if the object has DT_NEEDED on the ASan
 * runtime.  glibc has relocated the d_ptr entries (DT_STRTAB) of the
 * loaded objects' dynamic sections in place, so they are addresses. */
static int
linked_to_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
	const ElfW(Dyn) *dyn = NULL, *d;
	const char *strtab = NULL;
	int i;

	(void)size;
	(void)data;
	if (strstr(info->dlpi_name, "linux-vdso") ||
	    strstr(info->dlpi_name, "libclang_rt."))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr +
			    info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return 0;
	for (d = dyn; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_STRTAB)
			strtab = (const char *)d->d_un.d_ptr;
	if (!strtab || (ElfW(Addr))strtab < info->dlpi_addr)
		return 0;
	for (d = dyn; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_NEEDED &&
		    strncmp(strtab + d->d_un.d_val, "libclang_rt.asan", 16) == 0)
			return 1;
	return 0;
}

static int
traced(void)
{
	char line[256];
	int pid = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &pid) == 1)
			break;
	fclose(f);
	return pid != 0;
}

__attribute__((visibility("default"))) int
__lsan_is_turned_off(void)
{
	if (!dl_iterate_phdr(linked_to_runtime, NULL))
		return 1;
	if (getuid() != 0 && (geteuid() != getuid() || getegid() != getgid()))
		return 1;
	return traced();
}

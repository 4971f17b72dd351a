/* elfscan.c - ELF64 headers, PT_INTERP and the defined symbols of .symtab/.dynsym of a file, read
 * with pread within a fixed budget per file (elfscan.h), and cached by file identity. */
#include "front/proc/elfscan.h"
#include "common/allocknown.h"

#include <elf.h>
#include <stdint.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1u << 20)
#define CHUNK_SYMS ((size_t)MIB / sizeof(Elf64_Sym))
#define CACHE_SLOTS 64
#define FACTS_CACHE 16 /* elfscan_facts: paths */

static void *read_at(int fd, off_t off, size_t n)
{
	char *p;

	if (n == 0 || !(p = malloc(n + 1)))
		return NULL;
	if (pread(fd, p, n, off) != (ssize_t)n) {
		free(p);
		return NULL;
	}
	p[n] = '\0';
	return p;
}

/* The section [off, off + size) lies inside the file. */
static int inside(const struct stat *st, uint64_t off, uint64_t size)
{
	return off <= (uint64_t)st->st_size && size <= (uint64_t)st->st_size - off;
}

/* The known allocator whose mark symtab sh defines, reading its symbols a chunk at a time. */
static const char *scan_symbols(int fd, const struct stat *st, const Elf64_Shdr *sh,
                                const Elf64_Shdr *strsh)
{
	size_t nsyms = sh->sh_size / sizeof(Elf64_Sym), done = 0;
	Elf64_Sym *syms;
	char *str;
	const char *found = NULL;

	if (!inside(st, sh->sh_offset, sh->sh_size) ||
	    !inside(st, strsh->sh_offset, strsh->sh_size) || strsh->sh_size == 0 || nsyms == 0)
		return NULL;
	if (!(str = read_at(fd, (off_t)strsh->sh_offset, strsh->sh_size)))
		return NULL;
	if (!(syms = malloc(CHUNK_SYMS * sizeof *syms))) {
		free(str);
		return NULL;
	}
	while (!found && done < nsyms) {
		size_t n = nsyms - done < CHUNK_SYMS ? nsyms - done : CHUNK_SYMS;
		off_t off = (off_t)(sh->sh_offset + done * sizeof *syms);

		if (pread(fd, syms, n * sizeof *syms, off) != (ssize_t)(n * sizeof *syms))
			break;
		for (size_t i = 0; i < n && !found; i++) {
			const struct alloc_known *k;

			if (syms[i].st_shndx == SHN_UNDEF || syms[i].st_name >= strsh->sh_size)
				continue;
			if ((k = alloc_known_by_mark(str + syms[i].st_name)))
				found = k->name;
		}
		done += n;
	}
	free(syms);
	free(str);
	return found;
}

/* Why the symbol tables of sh[0..n) are not read: more tables or more bytes than the limits, all
 * counted before anything is read. NULL: within them. */
static const char *over_limits(const Elf64_Shdr *sh, size_t n)
{
	uint64_t bytes = 0, max = (uint64_t)ELFSCAN_MAX_MIB * MIB;
	size_t tables = 0;

	for (size_t i = 0; i < n; i++) {
		if ((sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) || sh[i].sh_link >= n)
			continue;
		if (++tables > ELFSCAN_MAX_TABLES)
			return "symbols not scanned: more than " ELFSCAN_MAX_TABLES_TEXT " symbol tables";
		if (sh[i].sh_size > max || sh[sh[i].sh_link].sh_size > max ||
		    (bytes += sh[i].sh_size + sh[sh[i].sh_link].sh_size) > max)
			return "symbols not scanned: over " ELFSCAN_MAX_MIB_TEXT " MiB of symbol tables";
	}
	return NULL;
}

static void scan(int fd, const struct stat *st, struct elf_facts *f)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	Elf64_Shdr *sh;

	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		return;
	f->elf = 1;
	f->is_static = 1;
	if (eh.e_phentsize == sizeof *ph && inside(st, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof *ph) &&
	    (ph = read_at(fd, (off_t)eh.e_phoff, (size_t)eh.e_phnum * sizeof *ph))) {
		for (size_t i = 0; i < eh.e_phnum; i++)
			if (ph[i].p_type == PT_INTERP)
				f->is_static = 0;
		free(ph);
	}
	if (eh.e_shentsize != sizeof *sh ||
	    !inside(st, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof *sh) ||
	    !(sh = read_at(fd, (off_t)eh.e_shoff, (size_t)eh.e_shnum * sizeof *sh)))
		return;
	if ((f->unscanned = over_limits(sh, eh.e_shnum))) {
		free(sh);
		return;
	}
	for (size_t i = 0; i < eh.e_shnum && !f->allocator; i++)
		if ((sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM) &&
		    sh[i].sh_link < eh.e_shnum)
			f->allocator = scan_symbols(fd, st, &sh[i], &sh[sh[i].sh_link]);
	free(sh);
}

static struct {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
	int used;
	struct elf_facts f;
} cache[CACHE_SLOTS];
static size_t cache_next;

static int same(size_t i, const struct stat *st)
{
	return cache[i].used && cache[i].dev == st->st_dev && cache[i].ino == st->st_ino &&
	       cache[i].mtime.tv_sec == st->st_mtim.tv_sec &&
	       cache[i].mtime.tv_nsec == st->st_mtim.tv_nsec && cache[i].size == st->st_size;
}

/* 0 with *f filled, or -1 when path cannot be stat'ed or opened (f->elf 0); not ELF: 0, elf 0. */
static int elfscan_file(const char *path, struct elf_facts *f)
{
	struct stat st, fst;
	int fd;
	size_t slot;

	memset(f, 0, sizeof *f);
	if (!path || stat(path, &st) != 0)
		return -1;
	f->setid = (st.st_mode & (S_ISUID | S_ISGID)) != 0;
	if (!S_ISREG(st.st_mode))
		return 0;
	for (size_t i = 0; i < CACHE_SLOTS; i++)
		if (same(i, &st)) {
			*f = cache[i].f;
			return 0;
		}
	/* O_NONBLOCK: a path replaced by a FIFO since the stat opens at once instead of waiting for
	 * a writer; what is opened is checked again to be the regular file that was stat'ed. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode) || fst.st_dev != st.st_dev ||
	    fst.st_ino != st.st_ino) {
		close(fd);
		return 0;
	}
	f->setid = (fst.st_mode & (S_ISUID | S_ISGID)) != 0;
	scan(fd, &fst, f);
	close(fd);
	slot = cache_next++ % CACHE_SLOTS;
	cache[slot].dev = fst.st_dev;
	cache[slot].ino = fst.st_ino;
	cache[slot].mtime = fst.st_mtim;
	cache[slot].size = fst.st_size;
	cache[slot].used = 1;
	cache[slot].f = *f;
	return 0;
}

const struct elf_facts *elfscan_facts(const char *path)
{
	static struct {
		char path[PATH_MAX];
		struct timespec mtime;
		struct elf_facts f;
	} paths[FACTS_CACHE];
	static size_t next;
	static struct elf_facts none;
	struct stat st;

	if (!path || stat(path, &st) != 0)
		return &none;
	for (size_t i = 0; i < FACTS_CACHE; i++)
		if (strcmp(paths[i].path, path) == 0 &&
		    paths[i].mtime.tv_sec == st.st_mtim.tv_sec &&
		    paths[i].mtime.tv_nsec == st.st_mtim.tv_nsec)
			return &paths[i].f;
	size_t i = next++ % FACTS_CACHE;
	snprintf(paths[i].path, sizeof paths[i].path, "%s", path);
	paths[i].mtime = st.st_mtim;
	elfscan_file(path, &paths[i].f);
	return &paths[i].f;
}

const char *elfscan_find(const char *path, char *out, size_t len)
{
	const char *p = getenv("PATH");

	if (!path || strchr(path, '/') || !p)
		return path;
	while (*p) {
		size_t n = strcspn(p, ":");

		snprintf(out, len, "%.*s/%s", (int)n, p, path);
		if (access(out, X_OK) == 0)
			return out;
		p += n + (p[n] == ':');
	}
	return path;
}

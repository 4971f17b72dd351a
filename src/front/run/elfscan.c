/* elfscan.c - ELF64 headers, PT_INTERP and the defined symbols of .symtab/.dynsym of a file, read
 * with pread and bounded sizes. */
#include "front/run/elfscan.h"
#include "common/allocknown.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TABLE_MAX (64u << 20)

static void *read_at(int fd, off_t off, size_t n)
{
	char *p;

	if (n == 0 || n > TABLE_MAX || !(p = malloc(n + 1)))
		return NULL;
	if (pread(fd, p, n, off) != (ssize_t)n) {
		free(p);
		return NULL;
	}
	p[n] = '\0';
	return p;
}

static const char *scan_symbols(int fd, const Elf64_Shdr *sh, const Elf64_Shdr *strsh)
{
	Elf64_Sym *syms = read_at(fd, (off_t)sh->sh_offset, sh->sh_size);
	char *str = read_at(fd, (off_t)strsh->sh_offset, strsh->sh_size);
	const char *found = NULL;

	for (size_t i = 0; syms && str && !found && i < sh->sh_size / sizeof *syms; i++) {
		const struct alloc_known *k;

		if (syms[i].st_shndx == SHN_UNDEF || syms[i].st_name >= strsh->sh_size)
			continue;
		if ((k = alloc_known_by_mark(str + syms[i].st_name)))
			found = k->name;
	}
	free(syms);
	free(str);
	return found;
}

static void scan(int fd, struct elf_facts *f)
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
	if (eh.e_phentsize == sizeof *ph &&
	    (ph = read_at(fd, (off_t)eh.e_phoff, (size_t)eh.e_phnum * sizeof *ph))) {
		for (size_t i = 0; i < eh.e_phnum; i++)
			if (ph[i].p_type == PT_INTERP)
				f->is_static = 0;
		free(ph);
	}
	if (eh.e_shentsize != sizeof *sh ||
	    !(sh = read_at(fd, (off_t)eh.e_shoff, (size_t)eh.e_shnum * sizeof *sh)))
		return;
	for (size_t i = 0; i < eh.e_shnum && !f->allocator; i++)
		if ((sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM) &&
		    sh[i].sh_link < eh.e_shnum)
			f->allocator = scan_symbols(fd, &sh[i], &sh[sh[i].sh_link]);
	free(sh);
}

int elfscan_file(const char *path, struct elf_facts *f)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(f, 0, sizeof *f);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0) {
		f->setid = (st.st_mode & (S_ISUID | S_ISGID)) != 0;
		if (S_ISREG(st.st_mode))
			scan(fd, f);
	}
	close(fd);
	return 0;
}

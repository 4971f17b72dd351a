/* elfscan.h - what an executable file says about preloading, read from its ELF headers and
 * symbol tables without running it: static (no program interpreter, so LD_PRELOAD cannot reach
 * it), setuid/setgid (secure execution: ld.so ignores LD_PRELOAD), and an allocator linked into
 * it (a defined symbol of common/allocknown.h's marks in .symtab or .dynsym, as a Rust
 * #[global_allocator] build has). */
#ifndef ALLOCAB_ELFSCAN_H
#define ALLOCAB_ELFSCAN_H

struct elf_facts {
	int elf;               /* the file is an ELF executable or shared object */
	int is_static;         /* ELF without PT_INTERP */
	int setid;             /* setuid or setgid bit */
	const char *allocator; /* known allocator whose marks it defines, or NULL (static string) */
};

/* Reads path (at most the headers and symbol tables, each bounded). Returns 0 with *f filled, or
 * -1 when the file cannot be opened (f->elf 0). Not an ELF file: 0 with f->elf 0. */
int elfscan_file(const char *path, struct elf_facts *f);

#endif

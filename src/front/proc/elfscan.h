/* elfscan.h - what an executable file says about preloading, read from its ELF headers and
 * symbol tables without running it: static (no program interpreter, so LD_PRELOAD cannot reach
 * it), setuid/setgid (secure execution: ld.so ignores LD_PRELOAD), and an allocator linked into
 * it (a defined symbol of common/allocknown.h's marks in .symtab or .dynsym, as a Rust
 * #[global_allocator] build has). */
#ifndef ALLOCAB_ELFSCAN_H
#define ALLOCAB_ELFSCAN_H

#include <stddef.h>

struct elf_facts {
	int elf;               /* the file is an ELF executable or shared object */
	int is_static;         /* ELF without PT_INTERP */
	int setid;             /* setuid or setgid bit */
	const char *allocator; /* known allocator whose marks it defines, or NULL (static string) */
	/* NULL, or why its symbols were not all read (static string, "symbols not scanned: over
	 * 256 MiB of symbol tables"): whether it links an allocator is then unknown */
	const char *unscanned;
};

/* The work of one file's scan, whatever its section count: at most ELFSCAN_MAX_TABLES symbol
 * tables (.symtab and .dynsym: the ELF format allows one of each) and ELFSCAN_MAX_MIB MiB of
 * symbol and string tables read (symbols in chunks of 1 MiB, a string table at once), both counted
 * from the section headers before anything is read. A file over either gets `unscanned`. */
#define ELFSCAN_MAX_TABLES 4
#define ELFSCAN_MAX_TABLES_TEXT "4"
#define ELFSCAN_MAX_MIB 256
#define ELFSCAN_MAX_MIB_TEXT "256"


/* The facts of path, read (at most the headers and symbol tables, within the limits above) from a
 * regular file only: anything else (a FIFO, a device, a directory) is not opened and gives elf 0,
 * so a path replaced by a FIFO never blocks. Cached for the process by path and modification
 * time, and the scan by device, inode, modification time and size: one executable is scanned
 * once per bench. Never NULL: nothing set when path is NULL or cannot be stat'ed or opened. */
const struct elf_facts *elfscan_facts(const char *path);

/* path as execvp would find it: a name without '/' searched in PATH (into out), else path. */
const char *elfscan_find(const char *path, char *out, size_t len);

#endif

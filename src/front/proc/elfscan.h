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


/* Reads path (at most the headers and symbol tables, within the limits above), a regular file
 * only: anything else (a FIFO, a device, a directory) is not opened and gives 0 with f->elf 0, so
 * a path replaced by a FIFO never blocks. Results are cached for the process by device, inode,
 * modification time and size: one executable is scanned once per bench. Returns 0 with *f filled,
 * or -1 when the file cannot be stat'ed or opened (f->elf 0). Not an ELF file: 0 with f->elf 0. */
int elfscan_file(const char *path, struct elf_facts *f);

#endif

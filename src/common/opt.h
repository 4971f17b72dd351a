/* opt.h - the one command-line parser of both programs, and the one source of every command's
 * options: each command describes its options in a table of struct opt and reads them with
 * opt_next, so all commands accept the same syntax and print the same messages.
 *
 * The table is also the only place an option is documented. A row carries what the parser needs
 * (name, short name, flags) and what usage needs (the value's name, one line of help, the values
 * it takes); the row order is the order of --help. From the tables come `CMD --help`
 * (common/optdoc.h), the option entries of the man page docs/allocab.1 (`allocab help --man CMD`,
 * `allocab-BACKEND help --man`; `make man` merges them in, and tests/e2e/e2e_usage.sh fails when the
 * committed page differs) and bash completion (scripts/completion/allocab.bash asks
 * `allocab help --complete` at completion time), so they cannot disagree.
 *
 * Adding an option to a command is one row in the command's table, indexed by a new value of its
 * option enum ({"--name", 'x', OPT_VALUE, "ARG", .help = "..."} for "--name V", "--name=V", "-x V"
 * and "-xV"; 0 for no short form; flags below), plus the case for that value where the command
 * switches on opt_next's result; then `make man`, and any longer text for the man page goes below
 * the option's generated entry there.
 *
 * Syntax: a long option is its whole name (no abbreviation unless the parser's abbrev is set),
 * with its value after '=' or in the next argument; a short option has its value attached or in
 * the next argument; a value may start with '-'. "-" alone is a positional argument; "--" is
 * an unknown option unless the parser's dashdash is set. A command that takes a command line to
 * run stops at its first positional argument (p->at) or after "--" (p->i). Messages are
 * one line, without the "allocab: CMD: " prefix: "unknown option '--x'", "--x needs a value",
 * "--x takes no value", "--x is given twice". */
#ifndef ALLOCAB_OPT_H
#define ALLOCAB_OPT_H

#include <stddef.h>

enum opt_flags {
	OPT_VALUE = 1,  /* takes a value */
	OPT_REPEAT = 2, /* may be given more than once (else "--x is given twice") */
	OPT_REST = 4,   /* ends the parse: this argument and all after it belong to the caller */
	OPT_HIDDEN = 8, /* parsed, but neither listed nor completed (--help) */
	/* What completion offers for the value when the row lists no values: */
	OPT_FILE = 16,      /* file names */
	OPT_DIR = 32,       /* directory names */
	OPT_ALLOCATOR = 64, /* the drivers' backend names */
	OPT_WORKLOAD = 128, /* the drivers' workload names */
};

/* The values an option takes, listed by usage, the man page and completion: a fixed list, or a
 * registry's entries (e.g. the export formats) with a one-line description each. */
struct opt_values {
	const char *const *words; /* NULL-terminated, or NULL */
	/* else the i-th value, NULL past the end; *summary its description, or left NULL */
	const char *(*at)(size_t i, const char **summary);
};

/* One option, or a heading: a row with neither name nor short name that has help starts a new
 * group of options under that heading (the parser skips it). */
struct opt {
	const char *name; /* "--name"; NULL for a short-only option */
	char short_name;  /* 'x' for -x; 0 for none */
	unsigned flags;   /* enum opt_flags */
	const char *arg;  /* the value's name in usage ("N", "N|auto"); NULL: its values, a|b */
	const char *help; /* one line for --help and the man page; NULL: listed by name only */
	const struct opt_values *values; /* NULL when the values are not a list */
};

#define OPT_MAX 64

/* Results of opt_next besides an option's index in the table. */
enum { OPT_DONE = -1, OPT_ERROR = -2, OPT_ARG = -3 };

struct opt_parser {
	int argc;
	char **argv;
	int i;  /* next argument to read */
	int at; /* first argument of what opt_next returned last (option, value or positional) */
	const struct opt *opts;
	size_t nopts;
	const char *prefix; /* put before every message (e.g. "run: "); NULL for none */
	const char *help; /* the command named in "unknown option '--x' (CMD --help lists them)" */
	int abbrev;       /* accept a unique prefix of a long name */
	int dashdash;     /* "--" ends the options: OPT_DONE, with p->i after it */
	unsigned char given[OPT_MAX];
	char short_buf[3];
};

/* Prepares p to read argv[first..argc-1] against the table opts[0..nopts-1] (nopts <= OPT_MAX;
 * rows with neither a name nor a short name are skipped). prefix, help, abbrev and dashdash start
 * unset. */
void opt_init(struct opt_parser *p, int argc, char **argv, int first, const struct opt *opts,
              size_t nopts);

/* Reads the next argument. Returns the option's index in the table with *val its value (NULL
 * for an option without OPT_VALUE); OPT_ARG with *val the positional argument; OPT_DONE at the
 * end (also after an OPT_REST option, whose index was returned with p->at at it, and after "--"
 * with dashdash); or OPT_ERROR with the reason in err. */
int opt_next(struct opt_parser *p, const char **val, char *err, size_t errlen);

/* The name of option k as the user reads it: "--name", or "-x" for a short-only option. */
const char *opt_name(struct opt_parser *p, int k);

/* The row of opts[0..nopts-1] that argument arg names as an option ("--name", "--name=V", "-x",
 * "-xV" for a short option with a value), or -1; *inl is its inline value or NULL. No message. */
int opt_find(const struct opt *opts, size_t nopts, const char *arg, const char **inl);

#endif

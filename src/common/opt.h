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
 * A row is declarative: its type (enum opt_type), range, default and destination (an offset into
 * the command's settings struct, or a setter for the few values that need one) and the options it
 * needs or excludes. opt_defaults writes the defaults, opt_parse reads argv into the settings
 * with one message form per mistake, and opt_check applies needs/excludes; the help shows the
 * default from the row ("(default: 10)"), never from the help text.
 *
 * Adding an option to a command is one row in the command's table, and nothing beside it: no id
 * (rows name each other by their option names, OPT_NAMES), no second field to copy it into (the
 * destination is the field where the value is used), e.g. {"--rounds", 0, OPT_VALUE, "N",
 * .help = "measured rounds", OPT_UINT(struct s, rounds), .lo = 1, .hi = 100000, OPT_DEF_U(10)};
 * 0 for no short form; flags below (OPT_ALSO: another command's table takes the row too); then
 * `make man`, and any longer text for the man page goes below the option's generated entry
 * there. A row of type OPT_T_NONE is returned by opt_parse for the command to
 * handle (help, the OPT_REST row).
 *
 * Syntax: a long option is its whole name (no abbreviation unless the parser's abbrev is set),
 * with its value after '=' or in the next argument; a short option has its value attached or in
 * the next argument; a value may start with '-'. "-" alone is a positional argument; "--" is
 * an unknown option unless the parser's dashdash is set. A command that takes a command line to
 * run stops at its first positional argument (p->at) or after "--" (p->i). Messages are
 * one line, without the "allocab: CMD: " prefix: "unknown option '--x'", "--x needs a value",
 * "--x takes no value", "--x is given twice", and from typed rows "--x: 'v' is not a whole
 * number", "--x: 'v' is not a byte count (a whole number, optional k, M or G suffix)",
 * "--x: 'v' is not a number", "--x: 'v' is not a percentage", "--x: 0 is out of range
 * [1, 100000]" (a bound in parentheses is excluded), "--x: 'v' is not one of a, b, c", "--x: empty
 * value", "--x needs --y" ("needs --y or --z"), "--x cannot be combined with --y" (": WHY" when
 * the row says why). */
#ifndef ALLOCAB_OPT_H
#define ALLOCAB_OPT_H

#include <stddef.h>
#include <stdint.h>

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
	OPT_OPEN_LO = 256,  /* the range excludes lo */
	OPT_OPEN_HI = 512,  /* the range excludes hi */
	OPT_EMPTY = 1024,   /* an empty string value is accepted */
	OPT_BYTES = 2048,   /* OPT_T_I64: a byte count, with an optional k, M or G suffix (2^10..) */
	OPT_ALSO = 4096,    /* another command's table takes this row too (calibrate, bench's) */
};

/* What a row's value is, and the type of its destination field. */
enum opt_type {
	OPT_T_NONE,   /* no destination: opt_parse returns the row to the caller */
	OPT_T_FLAG,   /* int, set to 1 */
	OPT_T_UINT,   /* unsigned, a whole number */
	OPT_T_U64,    /* uint64_t, a whole number */
	OPT_T_SIZE,   /* size_t, a whole number */
	OPT_T_DOUBLE, /* double */
	OPT_T_PCT,    /* double, a percentage written 5, 5% or 2.5% */
	OPT_T_SECONDS, /* double, seconds written 90, 90s, 10m or 1.5h */
	OPT_T_STRING, /* const char *, pointing into argv; not empty unless OPT_EMPTY */
	OPT_T_ENUM,   /* int: the index of the value in values->words, or map[index] */
	OPT_T_LIST,   /* const char **, room for argc; appended, the count (size_t) at count */
	OPT_T_I64,    /* int64_t, a whole number that may be negative (OPT_BYTES: a byte count) */
};

/* A row's destination: the field's offset + 1 (0: none), with its size checked at compile time. */
#define OPT_FIELD_(T, f, type)                                                                     \
	(offsetof(T, f) + 1 + 0 * sizeof(char[sizeof(((T *)0)->f) == sizeof(type) ? 1 : -1]))
#define OPT_FLAG(T, f)   .type = OPT_T_FLAG, .dest = OPT_FIELD_(T, f, int)
#define OPT_UINT(T, f)   .type = OPT_T_UINT, .dest = OPT_FIELD_(T, f, unsigned)
#define OPT_U64(T, f)    .type = OPT_T_U64, .dest = OPT_FIELD_(T, f, uint64_t)
#define OPT_SIZE(T, f)   .type = OPT_T_SIZE, .dest = OPT_FIELD_(T, f, size_t)
#define OPT_I64(T, f)    .type = OPT_T_I64, .dest = OPT_FIELD_(T, f, int64_t)
#define OPT_DOUBLE(T, f) .type = OPT_T_DOUBLE, .dest = OPT_FIELD_(T, f, double)
#define OPT_PCT(T, f)    .type = OPT_T_PCT, .dest = OPT_FIELD_(T, f, double)
#define OPT_SECONDS(T, f) .type = OPT_T_SECONDS, .dest = OPT_FIELD_(T, f, double)
#define OPT_STRING(T, f) .type = OPT_T_STRING, .dest = OPT_FIELD_(T, f, const char *)
#define OPT_ENUM(T, f)   .type = OPT_T_ENUM, .dest = OPT_FIELD_(T, f, int)
#define OPT_LIST(T, f, n)                                                                          \
	.type = OPT_T_LIST, .dest = OPT_FIELD_(T, f, const char **), .count = OPT_FIELD_(T, n, size_t)
/* An int of the settings set to 1 when the option is given. */
#define OPT_GIVEN(T, f) .given_at = OPT_FIELD_(T, f, int)
/* Defaults: a number (whole or not), a string or enum word. def_doc says more in the help. */
#define OPT_DEF_U(x) .has_def = 1, .def_u = (x)
#define OPT_DEF_D(x) .has_def = 1, .def_d = (x)
#define OPT_DEF_S(x) .has_def = 1, .def_s = (x)
/* The options a row needs (one of them) or excludes, by name ("--name", or "-x" for a short-only
 * one), for .needs and .excludes; a name no row of the table has is never given. */
#define OPT_NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

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
	unsigned char type;              /* enum opt_type */
	unsigned char has_def;           /* the row has a default (def_u, def_d or def_s) */
	size_t dest;                     /* OPT_UINT(...) and the like: offset + 1, or 0 */
	size_t count;                    /* OPT_T_LIST: the count's offset + 1 */
	size_t given_at;                 /* OPT_GIVEN: an int set to 1 when given, offset + 1 */
	double lo, hi;                   /* the range; both 0: any value of the type */
	uint64_t def_u;
	double def_d;
	const char *def_s;
	const char *def_doc; /* the default in words, after its value when it has one */
	const int *map;      /* OPT_T_ENUM: the value stored for each word, or NULL */
	const char *const *needs;    /* OPT_NAMES: one of them must be given too, or NULL */
	const char *const *excludes; /* OPT_NAMES: none of them may be given too, or NULL */
	const char *why;     /* said after "cannot be combined with --y", or NULL */
	/* Reads v into the settings instead of dest (dest and type still document it; given_at is
	 * set before): 0, or -1 with the whole one-line message in err, the option's name first. */
	int (*set)(void *settings, const struct opt *o, const char *v, char *err, size_t errlen);
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

/* Whether row k (e.g. --help) is given in what is left of p's arguments, read as opt_next reads
 * them (not as another option's value; up to an OPT_REST row or "--" with dashdash), whatever
 * else is wrong with them: an unknown option is skipped as one without a value. p is unchanged,
 * so a command can answer --help before it reports any other mistake. */
int opt_seen(const struct opt_parser *p, int k);

/* The row of opts[0..nopts-1] that argument arg names as an option ("--name", "--name=V", "-x",
 * "-xV" for a short option with a value), or -1; *inl is its inline value or NULL. No message. */
int opt_find(const struct opt *opts, size_t nopts, const char *arg, const char **inl);

/* Writes the default of every row with a destination into settings (fields of rows without a
 * default are left as they are). */
void opt_defaults(const struct opt *opts, size_t nopts, void *settings);

/* Reads arguments as opt_next does, storing every typed row's value into settings (set given_at,
 * the row's setter or its destination). Returns a row with neither destination, setter nor
 * given_at (the caller's: help, the OPT_REST row, options passed on), OPT_ARG
 * with *val the positional argument, OPT_DONE or OPT_ERROR with the reason in err. */
int opt_parse(struct opt_parser *p, void *settings, const char **val, char *err, size_t errlen);

/* The needs and excludes of the rows given so far. Returns 0, or -1 with the first broken rule in
 * err. */
int opt_check(struct opt_parser *p, char *err, size_t errlen);

/* Reads v as row o's value into *settings as opt_parse would (for a value read elsewhere). 0, or
 * -1 with the reason in err. */
int opt_store(const struct opt *o, void *settings, const char *v, char *err, size_t errlen);

/* v read by o's type and range into *out (an object of that type), for a setter that keeps the
 * value elsewhere (e.g. appends it to an array). 0, or -1 with the message in err. */
int opt_value(const struct opt *o, const char *v, void *out, char *err, size_t errlen);

/* o's help with its default: "HELP (default: VALUE; DEF_DOC)", into buf. Returns buf, or o->help
 * itself when the row has no default. */
const char *opt_help(const struct opt *o, char *buf, size_t len);

#endif

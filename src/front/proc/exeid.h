/* exeid.h - the identity of the executable a command runs (private to front/run): the first word
 * of the command, resolved as the shell would (a path with a '/' as it is, else by PATH), with
 * its real path, size, modification time and an FNV-1a hash of its bytes. A bench records it per
 * arm in config.executables and --resume refuses a continuation whose executable changed
 * (docs/methodology.md, "Resuming a bench"). */
#ifndef ALLOCAB_EXEID_H
#define ALLOCAB_EXEID_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* {"word", "path", "size", "mtime_s", "fnv1a64"} of the executable command's first word names,
 * or NULL when it names none that can be read (a shell builtin, a word with quotes or
 * expansions, no such file, not a regular file) or memory ran out. */
cJSON *exeid_json(const char *command);

/* Whether two such objects name the same executable: the same path, size and hash (a rebuild to
 * the same bytes is the same program, whatever its time). When they differ, what differs in why ("/x/work: size 16040 in the file, 16216 now"). */
int exeid_same(const cJSON *was, const cJSON *now, char *why, size_t len);

#endif

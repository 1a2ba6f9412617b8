/*
 * yamldoc.h - read a YAML (or JSON) document into an ot_value tree.
 *
 * The only module that talks to libyaml. Every node carries the 1-based
 * line/column where it starts, and every map member the mark of its key, so
 * callers can report "file:line:column: reason" and link source lines.
 *
 * Hostile input is bounded: nesting deeper than OT_YAML_MAX_DEPTH is an
 * error, aliases share the anchored node instead of copying it (an alias
 * bomb costs one pointer per alias), an alias to a node that is still being
 * built (a cycle) is an error, and so is a duplicate key in one mapping.
 */
#ifndef OT_YAML_H
#define OT_YAML_H

#include "value.h"

#define OT_YAML_MAX_DEPTH 256

/**
 * Parse the first document of `data` (`len` bytes). Plain scalars are
 * resolved to null/bool/int/float where they look like one (YAML 1.1 core:
 * true/True/TRUE/false/..., null/~/empty, decimal integers, decimal floats);
 * everything else is a string. The original text of every scalar is kept in
 * ot_value.text. An empty document yields a null value.
 *
 * `name` is used in error messages ("name:line:col: reason").
 * On success *out is a tree owned by `arena`. Returns 0 or OT_ERROR.
 */
int ot_yaml_load(ot_value **out, ot_arena *arena, const char *data, size_t len,
		 const char *name);

/** libyaml's version string, for --version. Borrowed. */
const char *ot_yaml_library_version(void);

#endif

/* Format names and the choice of reader. */
#include "tools/io.h"

#include <string.h>
#include <strings.h>

#include "common.h"
#include "tools/io_internal.h"

static const struct {
    const char *name;
    gemst_format format;
} format_names[] = {
    {"auto", GEMST_FORMAT_AUTO}, {"tsplib", GEMST_FORMAT_TSPLIB}, {"tsp", GEMST_FORMAT_TSPLIB},
    {"text", GEMST_FORMAT_TEXT}, {"csv", GEMST_FORMAT_TEXT},      {"txt", GEMST_FORMAT_TEXT},
    {"binary", GEMST_FORMAT_BINARY}, {"bin", GEMST_FORMAT_BINARY},
};

int gemst_parse_format(const char *name, gemst_format *out)
{
    for (size_t i = 0; name && i < sizeof format_names / sizeof format_names[0]; i++) {
        if (strcmp(name, format_names[i].name) == 0) {
            *out = format_names[i].format;
            return 0;
        }
    }
    return -1;
}

/* The first name listed for each format is its canonical one. */
const char *gemst_format_name(gemst_format f)
{
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
        if (format_names[i].format == f)
            return format_names[i].name;
    return "unknown";
}

gemst_format gemst_format_from_path(const char *path)
{
    if (!path)
        return GEMST_FORMAT_TEXT;
    const char *base = strrchr(path, '/');
    const char *dot = strrchr(base ? base + 1 : path, '.');
    if (dot && strcasecmp(dot, ".tsp") == 0)
        return GEMST_FORMAT_TSPLIB;
    if (dot && strcasecmp(dot, ".bin") == 0)
        return GEMST_FORMAT_BINARY;
    return GEMST_FORMAT_TEXT;
}

/* Standard input has no name to tell its format: TSPLIB when its first
 * line with content is a TSPLIB keyword line ("NAME : ..."), else text. */
static int read_stdin_auto(gemst_pointset *out, gemst_warn_fn warn, void *warn_ctx, gridemst_error *err)
{
    gemst_lines ln;
    char *line;
    int rc = gemst_lines_open(&ln, "-", err);
    while (rc == GRIDEMST_OK && (rc = gemst_lines_next(&ln, &line, err)) == GRIDEMST_OK && line &&
           *gemst_skip_blanks(line) == '\0')
        ;
    memset(out, 0, sizeof *out);
    int tsplib = rc == GRIDEMST_OK && line && gemst_tsplib_keyword_line(line);
    gemst_lines_unread(&ln);
    if (rc == GRIDEMST_OK)
        rc = tsplib ? gemst_read_tsplib_lines(&ln, out, warn, warn_ctx, err) : gemst_read_text_lines(&ln, out, err);
    gemst_lines_close(&ln);
    return rc;
}

int gemst_read_points(const char *path, gemst_format fmt, gemst_pointset *out, gemst_warn_fn warn, void *warn_ctx,
                      gridemst_error *err)
{
    if (fmt == GEMST_FORMAT_AUTO && gemst_is_stdin(path))
        return read_stdin_auto(out, warn, warn_ctx, err);
    if (fmt == GEMST_FORMAT_AUTO)
        fmt = gemst_format_from_path(path);
    switch (fmt) {
    case GEMST_FORMAT_TSPLIB:
        return gemst_read_tsplib(path, out, warn, warn_ctx, err);
    case GEMST_FORMAT_TEXT:
        return gemst_read_text(path, out, warn, warn_ctx, err);
    case GEMST_FORMAT_BINARY:
        return gemst_read_binary(path, out, err);
    default:
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "%s: unknown input format %d", path, (int)fmt);
    }
}

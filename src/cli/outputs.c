/* Output files claimed before the work, removed again when the work fails. */
#include "cli/outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

/* Claims one path; *created tells whether the claim made the file. */
static int claim(const char *path, int *created, gridemst_error *err)
{
    struct stat st;
    *created = 0;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* opening a FIFO would wait for its reader; a directory fails when written */
        if (S_ISDIR(st.st_mode))
            errno = EISDIR;
        else if (access(path, W_OK) == 0)
            return GRIDEMST_OK;
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "%s: cannot write: %s", path, strerror(errno));
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0)
        *created = 1;
    else if (errno == EEXIST) /* not truncated: a failed run leaves it as it was */
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "%s: cannot write: %s", path, strerror(errno));
    close(fd);
    return GRIDEMST_OK;
}

int cli_outputs_claim(const cli_args *a, cli_outputs *o, gridemst_error *err)
{
    const char *paths[CLI_OUTPUTS] = {a->output, a->linkage, a->labels, a->save_points};
    memset(o, 0, sizeof *o);
    for (size_t k = 0; k < CLI_OUTPUTS; k++) {
        if (!paths[k] || strcmp(paths[k], "-") == 0)
            continue;
        o->path[k] = paths[k];
        int rc = claim(paths[k], &o->created[k], err);
        if (rc != GRIDEMST_OK) {
            cli_outputs_discard(o);
            memset(o, 0, sizeof *o);
            return rc;
        }
    }
    return GRIDEMST_OK;
}

void cli_outputs_discard(const cli_outputs *o)
{
    for (size_t k = 0; k < CLI_OUTPUTS; k++)
        if (o->path[k] && o->created[k])
            unlink(o->path[k]);
}

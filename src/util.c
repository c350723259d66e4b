#include "common.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

int gemst_fail(gridemst_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

int gemst_progress(const gridemst_options *opt, const char *phase, int iteration, int64_t components,
                   gridemst_error *err)
{
    if (!opt->progress || opt->progress(opt->progress_ctx, phase, iteration, components) == 0)
        return GRIDEMST_OK;
    return gemst_fail(err, GRIDEMST_ERR_CANCELLED, "cancelled by the progress callback at phase \"%s\" (%d)",
                      phase, iteration);
}

double gemst_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* libFuzzer harness of the binary (ArborX format) point reader (see fuzz_common.h). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    gemst_pointset ps;
    gridemst_error err = {0};
    int rc = gemst_read_binary(path, &ps, &err);
    fuzz_check_result(rc, &err, &ps, GRIDEMST_FLOAT32);
    /* the format is exactly a header (16 bytes only above INT32_MAX points) and n * dim floats */
    const size_t header = ps.n > INT32_MAX ? 16 : 8;
    if (rc == GRIDEMST_OK && (ps.is_tsplib || (size_t)(header + 4 * ps.n * ps.dim) != size))
        abort();
    gemst_pointset_free(&ps);
    return 0;
}

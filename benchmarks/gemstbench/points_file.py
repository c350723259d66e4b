"""The binary points format that `gridemst --save-points` writes.

Little-endian int32 n, int32 dim, then n*dim float32 in row-major order: the
ArborX benchmarks' format.  A set of more than 2^31 - 1 points has a 16-byte
header instead: the count word -1, int32 dim, then int64 n.  An extended
header whose count fits in int32 is malformed (each set has one encoding).

read_header needs the standard library only; read_points needs numpy.
"""
import struct

SHORT_HEADER_BYTES = 8
EXTENDED_HEADER_BYTES = 16
EXTENDED_MARK = -1
INT32_MAX = 2**31 - 1


def read_header(path):
    """(n, dim, header bytes) of the points file path; ValueError when the
    header is short or malformed."""
    with open(path, "rb") as f:
        head = f.read(EXTENDED_HEADER_BYTES)
    if len(head) < SHORT_HEADER_BYTES:
        raise ValueError(f"{path}: no header: the file has {len(head)} bytes, the header needs 8")
    n, dim = struct.unpack("<ii", head[:SHORT_HEADER_BYTES])
    size = SHORT_HEADER_BYTES
    if n == EXTENDED_MARK:
        if len(head) < EXTENDED_HEADER_BYTES:
            raise ValueError(f"{path}: no header: the file has {len(head)} bytes, the header needs 16")
        (n,) = struct.unpack("<q", head[SHORT_HEADER_BYTES:])
        size = EXTENDED_HEADER_BYTES
        if 0 <= n <= INT32_MAX:
            raise ValueError(f"{path}: malformed header: the extended header counts {n} points; "
                             f"up to {INT32_MAX} take the 8-byte header")
    if n < 0 or dim not in (2, 3):
        raise ValueError(f"{path}: bad header: n={n} dim={dim}")
    return n, dim, size


def read_points(path):
    """The points of the file path as an (n, dim) float32 array."""
    import numpy as np

    n, dim, offset = read_header(path)
    points = np.fromfile(path, dtype="<f4", offset=offset)
    if points.size != n * dim:
        raise ValueError(f"{path}: {points.size} coordinates, expected {n * dim}")
    return points.reshape(n, dim)

#!/bin/sh
# HDBSCAN* against scikit-learn and the hdbscan package (tests/hdbscan_check.py
# says what is checked).  Their Python is GEMST_HDBSCAN_PYTHON (.ci/run sets it
# to the virtual environment it makes); when that is not set, python3, and
# the test is skipped if python3 lacks scikit-learn >= 1.3 or hdbscan.

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"

check_imports='import sklearn, hdbscan; from sklearn.cluster import HDBSCAN'
python=${GEMST_HDBSCAN_PYTHON:-python3}
if ! "$python" -c "$check_imports" >/dev/null 2>&1; then
    if [ -n "${GEMST_HDBSCAN_PYTHON:-}" ]; then
        echo "ERROR: GEMST_HDBSCAN_PYTHON=$GEMST_HDBSCAN_PYTHON cannot import scikit-learn >= 1.3 and hdbscan"
        exit 99
    fi
    echo "SKIP: python3 lacks scikit-learn >= 1.3 or hdbscan (set GEMST_HDBSCAN_PYTHON)"
    exit 77
fi
"$python" -W ignore "$top_srcdir/tests/hdbscan_check.py" "$prog" "$tmp" || fail "HDBSCAN* disagrees with scikit-learn or hdbscan"
finish

"""The docstrings' examples run and show what they say."""
import doctest

import pytest

import gridemst
from gridemst import _hierarchy, _single_linkage, _tree


@pytest.mark.parametrize("module", [_tree, _hierarchy, _single_linkage])
def test_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_public_functions_document_their_options():
    for f in (gridemst.emst, gridemst.minimum_spanning_tree, gridemst.linkage, gridemst.fcluster,
              gridemst.SingleLinkage):
        assert "{options}" not in f.__doc__
        assert 'backend : {"auto", "cpu", "cuda"}, default="auto"' in f.__doc__
        assert 'devices : None, "all" or sequence of int, default=None' in f.__doc__

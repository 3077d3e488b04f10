"""linkpatrol: a fast, polite link checker and site crawler (a Rust engine).

``check(*inputs, **options)`` checks URLs, files and folders and returns a :class:`Report`;
``Checker(**options)`` runs the same options over many inputs, with ``run`` (the whole report)
or ``iter`` (each :class:`Result` as soon as it is known). Options are the command line's long
flags with ``_`` for ``-`` (``threads``, ``recursion_level``, ``exclude``, ...). The engine
runs with the GIL released; Ctrl-C stops a run and returns what was finished.
"""

from ._linkpatrol import (
    FORMATS,
    Checker,
    Report,
    Result,
    Results,
    __version__,
    check,
    merge,
    option_names,
)

__all__ = [
    "FORMATS",
    "Checker",
    "Report",
    "Result",
    "Results",
    "__version__",
    "check",
    "merge",
    "option_names",
]

"""tddgit's pytest probe, as pytest loads it: ``-p tddgit_probe``. The hooks are defined
in ``tddgit_probe_hooks`` (beside this module; the records it writes are described there).

Why two modules: pytest rewrites the asserts of every module named by ``-p``, and the
gates start pytest writing no bytecode until the probe has loaded (the project's bytecode
goes to tddgit's own directory, ``tddgit_pycache``), so the rewritten probe was never
cached: all of it was parsed and compiled anew on every gate run, ~80M instructions, a
twentieth of a small suite's run. This module is what pytest rewrites; the hooks' module
is a plain import, from the bytecode Python cached when tddgit was installed.
"""

from tddgit_probe_hooks import (  # the hooks pytest finds on this plugin module
    pytest_collection_finish,
    pytest_collection_modifyitems,
    pytest_collectreport,
    pytest_configure,
    pytest_internalerror,
    pytest_load_initial_conftests,
    pytest_make_collect_report,
    pytest_runtest_logreport,
    pytest_runtest_logstart,
    pytest_runtest_makereport,
    pytest_sessionfinish,
    pytest_sessionstart,
    pytest_unconfigure,
)

__all__ = [
    "pytest_collection_finish",
    "pytest_collection_modifyitems",
    "pytest_collectreport",
    "pytest_configure",
    "pytest_internalerror",
    "pytest_load_initial_conftests",
    "pytest_make_collect_report",
    "pytest_runtest_logreport",
    "pytest_runtest_logstart",
    "pytest_runtest_makereport",
    "pytest_sessionfinish",
    "pytest_sessionstart",
    "pytest_unconfigure",
]

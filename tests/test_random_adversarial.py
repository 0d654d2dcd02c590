"""Random adversarial programs (random_adversarial.py), one test per class: views, in-place writes, aliases, tuple
assignment, returned values, identity folds, fancy writes.  Each program must be exact or refused with a location
in value_and_grad, jvp and vjp (and hessian for every fifth program), leaving the caller's data unchanged.

CI size: 40 programs per class.  ``S2SAD_RANDOM_PROGRAMS=10000`` runs that many programs in all (split over the
classes), ``S2SAD_RANDOM_SEED=k`` starts at seed k.  A failure prints each failing program's seed and source; rerun
one with ``random_adversarial.run_one(cls, seed)`` or ``python tests/random_adversarial.py``."""

import os

import pytest
from random_adversarial import CLASSES, run_one

TOTAL = int(os.environ.get("S2SAD_RANDOM_PROGRAMS", 40 * len(CLASSES)))
START = int(os.environ.get("S2SAD_RANDOM_SEED", 0))
PER_CLASS = max(1, TOTAL // len(CLASSES))
SHOWN = 5


@pytest.mark.parametrize("cls", CLASSES)
def test_random_programs_exact_or_refused(cls):
    failures, ran = [], 0
    for seed in range(START, START + PER_CLASS):
        source, symptoms = run_one(cls, seed, hessian=seed % 5 == 0)
        if symptoms is None:
            continue  # the drawn program overflows or does not run in NumPy itself
        ran += 1
        if symptoms:
            failures.append((seed, source, symptoms))
    assert ran >= PER_CLASS // 2, f"only {ran} of {PER_CLASS} {cls} programs ran in NumPy"
    if failures:
        shown = "\n".join(
            f"--- {cls} seed {seed}:\n" + "\n".join(symptoms) + "\n" + source
            for seed, source, symptoms in failures[:SHOWN]
        )
        raise AssertionError(f"{len(failures)} of {ran} {cls} programs are wrong or crash:\n{shown}")

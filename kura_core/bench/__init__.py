"""Measure it, don't claim it: `kura bench compress | retention | perf`.

One module per measurement, each importable on its own:

* ``compress`` — how much the distiller shrinks what it drank, from its own metrics;
* ``retention`` — planted facts asked back through recall, scored by marker regexes;
* ``perf`` — the speed figures at several store sizes, made of ``recall_perf`` (recall by
  meaning and by words, the word index after writes), ``prefix`` (what a model's prefix
  cache holds), ``weave_perf``, ``gate_perf``, ``http_perf`` (with ``load``, the client
  process) and ``rss`` (the memory of a warmed `kura serve`);
* ``models`` — does each configured model help: the thinker against the word tier on a
  built-in set, the brain's candidates through the gate (``models_set.json``);
* ``stores`` and ``thinker`` — the generated stores and the instant thinker they all use.

Benchmarks live here and nowhere else: no production module carries benchmark code, and
this package never imports a face. A face that has figures of its own (the curation app's
first paint) hands ``perf`` a ``Probe``.
"""

from __future__ import annotations

from .compress import compress, tokenizer_counter
from .models import models_bench, models_table
from .perf import Probe, perf, perf_table
from .retention import PASS_SCORE, retention, score_line
from .stores import QUESTIONS, generate_store, generate_workspace

__all__ = [
    "PASS_SCORE",
    "Probe",
    "QUESTIONS",
    "compress",
    "generate_store",
    "generate_workspace",
    "models_bench",
    "models_table",
    "perf",
    "perf_table",
    "retention",
    "score_line",
    "tokenizer_counter",
]

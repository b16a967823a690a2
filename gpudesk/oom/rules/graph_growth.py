"""``leak``: a TensorFlow graph that has grown across models or iterations, read from the failing op's name.

TensorFlow 1.x keeps every op in one default graph for the life of the process, and gives a repeated name a numeric
suffix: ``Graph.unique_name`` (tensorflow/python/framework/ops.py) turns the second "sub" into "sub_1", the third into
"sub_2", and so on. Keras numbers its layers the same way from a per-session counter (``backend.get_uid``), which only
``K.clear_session()`` resets. A name outside any scope with a suffix in the thousands ("[[Node: sub_2518 = Sub[...]
(sub_2518/x, Variable_1955/read)]]") therefore says that op was created thousands of times in one graph: models built
one after the other in a loop, or ops added inside the training loop, each copy keeping its variables and buffers on
the GPU, so the memory grows with every model or iteration (tensorflow/tensorflow#1355: 127 Keras models fitted in a
for loop; the Keras maintainers' answer to that pattern, keras-team/keras#2102, is ``K.clear_session()`` per model).
Scoped names ("rnn/basic_lstm_cell/MatMul_999", an unrolled RNN) are not read so: one model may repeat an op that often
inside its own scopes. 0.6: above TensorFlow's op-level shortage reading (0.55), which names the batch.
"""

from __future__ import annotations

import re

from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence

# The failing op's clause of a TensorFlow message ("[[Node: ...]]", "[[{{node ...}}]]").
_NODE_CLAUSE = re.compile(r"\[\[\s{0,3}(?:\{\{)?node:?\s{1,3}([^\]\n]{1,400})", re.IGNORECASE)
# A name outside any scope (not after "/" or a word character) with a suffix of four digits or more.
_UNSCOPED_SUFFIX = re.compile(r"(?<![\w/])([A-Za-z][A-Za-z0-9]{0,40}(?:_[A-Za-z][A-Za-z0-9]{0,40}){0,3})_(\d{4,7})"
                              r"(?![\w])")
# A name repeated this many times in one graph is beyond any one model's unscoped ops (module docstring).
REPEATS_MIN = 1000


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    for clause in _NODE_CLAUSE.finditer(text):
        for m in _UNSCOPED_SUFFIX.finditer(clause.group(1)):
            if int(m.group(2)) < REPEATS_MIN:
                continue
            name = m.group(0)
            return Cause(
                id="leak",
                title=_("The TensorFlow graph grows with every model or iteration"),
                confidence=0.6,
                evidence=evidence(described_as=name, op_copies=int(m.group(2)) + 1),
                explanation=_("The failing op is named '{name}': TensorFlow numbers repeated names in one graph, so "
                              "this op was created {n} times. Models built one after another, or ops added inside the "
                              "training loop, all stay in the default graph with their variables on the GPU, and the "
                              "memory grows until the device is full.").format(name=name, n=int(m.group(2)) + 1),
                fix=_("Build the graph once, outside the loop; when training several models in one process, call "
                      "tf.keras.backend.clear_session() (TensorFlow 1: tf.reset_default_graph() and a new session) "
                      "before each one"),
                checks=[_("Print len(tf.get_default_graph().get_operations()) at every iteration: a number that keeps "
                          "rising is the graph growing.")],
            )
    return None

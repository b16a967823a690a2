"""SGLang's decode retraction log: its KV token pool is full for the running batch (``kv_cache_budget``).

SGLang's scheduler checks before every decode step that its token-to-KV pool can hold one more token for each running
request (``ScheduleBatch.check_decode_mem``); when it cannot, it takes requests out of the batch
(``retract_decode``), puts them back in the queue, raises ``new_token_ratio`` and logs "Decode out of memory happened.
#retracted_reqs: N, #new_token_ratio: A -> B" (older releases: "decode out of memory happened, ..."; scheduler.py,
https://github.com/sgl-project/sglang). No CUDA allocation failed: the pool, sized once at start by
``--mem-fraction-static`` (:mod:`gpudesk.oom.rules.kv_cache_budget`), was full for the load. SGLang's own tuning
guide (docs, "Hyperparameter Tuning") calls it harmless when occasional and, when frequent with the token usage high,
the sign of a scheduler admitting more than the pool holds: raise ``--schedule-conservativeness`` (e.g. 1.3). A
"RuntimeError: Decode out of memory. Try to lower your batch size" that prints the tokens available is another message
(the pool's accounting, :func:`gpudesk.oom.signatures.token_pool_has_room`). 0.8: the log names the pool itself.
"""

from __future__ import annotations

import re

from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence

CONFIDENCE = 0.8
# The retraction log line in both spellings, with its count of retracted requests and the ratio change.
_RETRACT = re.compile(r"decode out of memory happened[.,]\s{0,3}#retracted_reqs:\s{0,3}(\d{1,6}),\s{0,3}"
                      r"#new_token_ratio:\s{0,3}([\d.]{1,10})\s{0,3}->\s{0,3}([\d.]{1,10})", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    found = _RETRACT.findall(f.report.text or "")
    if not found:
        return None
    retracted = sum(int(n) for n, _old, _new in found)
    return Cause(
        id="kv_cache_budget",
        title=_("SGLang's KV token pool is full: the scheduler retracted running requests"),
        confidence=CONFIDENCE,
        evidence=evidence(retraction_lines=len(found), retracted_requests=retracted),
        explanation=_("This is SGLang's scheduler, not a failed CUDA allocation: before a decode step its KV token "
                      "pool (sized once at start by --mem-fraction-static) could not hold the next token of every "
                      "running request, so it took {count} request(s) back to the queue and raised new_token_ratio. "
                      "Occasional retractions are normal; frequent ones mean the scheduler admits more than the pool "
                      "holds.").format(count=retracted),
        fix=_("Raise --schedule-conservativeness (e.g. 1.3) so fewer requests are admitted at once, or lower "
              "--max-running-requests; give the pool more room with a higher --mem-fraction-static if the GPU has it, "
              "or serve on more GPUs"),
        checks=[_("Read the scheduler's 'token usage' in the decode log lines: near 1.0 with frequent retractions "
                  "confirms the pool is the limit.")],
    )

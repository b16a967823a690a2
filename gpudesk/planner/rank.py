"""Order feasible candidates: fits under the safe line, meets the deadline / QPS, within budget, for large
models NVLink before PCIe gradient sync, on the cost / time frontier before dominated options (another option
of the same tier is both cheaper and faster), priced before unpriced, cheapest 3-year TCO (which already charges the
opportunity cost of lateness), then fastest. #1 is therefore the lowest-TCO option among those that pass every
earlier rule, and its rank reason says so.

"Cost to meet the deadline" and "time to result" are the two axes of Stas Bekman's ROI (ML Engineering,
insights/when-to-upgrade-gpus); the article's rule: training values time to result, inference values cost
per unit of throughput.
"""

from __future__ import annotations

import math

from gpudesk.i18n import _
from gpudesk.planner.prices import break_even_price_usd, price_unknown_text
from gpudesk.planner.results import Candidate


def hardware_usd(c: Candidate) -> float | None:
    """GPUs + hosts purchase price (USD), None when a price is unknown."""
    if not c.tco:
        return None
    gpus, hosts = c.tco.breakdown_usd.get("gpus"), c.tco.breakdown_usd.get("hosts")
    if gpus is None or hosts is None:
        return None
    return gpus + hosts


def known_hardware_usd(c: Candidate) -> float:
    """The known part of the GPUs + hosts purchase price (USD): a lower bound on the hardware cost when one of the
    two prices is unknown (an unknown price is at least $0)."""
    if not c.tco:
        return 0.0
    return sum(c.tco.breakdown_usd.get(part) or 0.0 for part in ("gpus", "hosts"))


def budget_ceiling_per_gpu_usd(c: Candidate, budget_usd: float) -> float | None:
    """The highest GPU quote (USD per GPU) that keeps an option whose GPU price alone is unknown within the
    budget: (budget - known hardware) / GPUs bought. None when the GPU price is known or another price is not."""
    if c.unpriced_items != ["GPU"] or not c.bought:
        return None
    return max(0.0, budget_usd - known_hardware_usd(c)) / c.bought


def syncs_over_pcie(c: Candidate) -> bool:
    """Whether some of ``c``'s gradient sync crosses PCIe: plain PCIe cards, or NVLink-bridged pairs with more
    than one pair (the pairs talk over PCIe)."""
    return c.count > 1 and "pcie" in c.interconnect


# not fits, misses deadline, misses QPS/latency, budget state, PCIe-synced under an NVLink preference, dominated,
# unknown-price count, TCO (or its known part) in USD, time to result in s, GPU count
RankKey = tuple[bool, bool, bool, int, bool, bool, int, float, float, int]


def rank_key(c: Candidate, budget_usd: float | None, prefer_nvlink: bool = False) -> RankKey:
    """Sort key: smaller is better. ``prefer_nvlink`` (large-model and long-sequence kinds) puts multi-GPU options
    whose GPUs talk over PCIe after NVLink/Infinity Fabric ones (article 4.3: "PCIe bandwidth cannot carry the
    13B all-reduce -> choose NVLink")."""
    hw = hardware_usd(c)
    if not budget_usd:
        budget_state = 0
    elif hw is None:
        # Price unknown: after options known to be within budget, before those over it; but over it when the
        # known part alone (the host of an unpriced GPU) already exceeds the budget, since no quote can bring it back.
        budget_state = 2 if known_hardware_usd(c) > budget_usd else 1
    else:
        budget_state = 2 if hw > budget_usd else 0
    tco = c.tco_3y_usd
    return (
        not c.fits,
        c.meets_deadline is False,
        c.meets_qps is False or c.meets_latency is False,
        budget_state,
        prefer_nvlink and syncs_over_pcie(c),
        c.dominated_by is not None,
        # Unknown prices: 0 when priced, else how many prices (GPU, host) are unknown, fewer first.
        len(c.tco.missing) if c.tco and tco is None else (0 if tco is not None else 2),
        # Unknown GPU price: order by the costs that are known (hosts, power, labour...), a fair proxy
        # that does not invent a GPU price.
        tco if tco is not None else (c.tco.known_part_usd if c.tco else math.inf),
        c.time_to_result_s if c.time_to_result_s is not None else math.inf,
        c.count,
    )


def dedupe_best(candidates: list[Candidate], budget_usd: float | None) -> list[Candidate]:
    """Keep the best server option for each (GPU, count) pair."""
    best: dict[tuple[str, int], Candidate] = {}
    for c in candidates:
        key = (c.gpu_id, c.count)
        if key not in best or rank_key(c, budget_usd) < rank_key(best[key], budget_usd):
            best[key] = c
    return list(best.values())


def _speed(c: Candidate) -> float | None:
    """Larger is better: 1 / time to result for training, QPS capacity for serving; None when unknown."""
    if c.time_to_result_s:
        return 1.0 / c.time_to_result_s
    return c.qps_capacity


def mark_dominated(candidates: list[Candidate], budget_usd: float | None, prefer_nvlink: bool = False) -> None:
    """Set ``dominated_by`` on every priced option for which another priced option of the same tier (fit,
    deadline, QPS, budget, NVLink rule) costs no more over the TCO horizon and is at least as fast, one of the
    two strictly (Pareto dominance on the cost / time-to-result frontier). A dominated option is never the
    better buy, whatever the user weighs time against money."""
    priced: list[tuple[Candidate, tuple[object, ...], float, float]] = []
    for c in candidates:
        c.dominated_by = None
        cost, speed = c.tco_3y_usd, _speed(c)
        if cost is not None and speed is not None:
            priced.append((c, tuple(rank_key(c, budget_usd, prefer_nvlink)[:5]), cost, speed))
    for c, tier, cost, speed in priced:
        best: tuple[float, Candidate] | None = None
        for other, other_tier, other_cost, other_speed in priced:
            if other is c or other_tier != tier:
                continue
            dominates = (other_cost <= cost and other_speed >= speed and (other_cost < cost or other_speed > speed))
            if dominates and (best is None or other_cost < best[0]):
                best = (other_cost, other)
        if best is not None:
            c.dominated_by = best[1].label


def rank(candidates: list[Candidate], budget_usd: float | None = None, prefer_nvlink: bool = False) -> list[Candidate]:
    """Best first, one entry per (GPU, count); options dominated on cost and time rank after the frontier of
    their tier."""
    kept = dedupe_best(candidates, budget_usd)
    mark_dominated(kept, budget_usd, prefer_nvlink)
    return sorted(kept, key=lambda c: rank_key(c, budget_usd, prefer_nvlink))


def closest_to_deadline(candidates: list[Candidate], limit: int = 3) -> list[Candidate]:
    """When nobody meets the deadline: the fitting candidates that miss it by the least."""
    late = [c for c in candidates if c.fits and c.deadline_miss_s is not None]
    return sorted(late, key=lambda c: (c.deadline_miss_s, c.tco_3y_usd or math.inf))[:limit]


def _tier(key: RankKey) -> tuple[bool, bool, bool, bool]:
    """The part of a rank key that comes before money: fit, deadline, QPS, NVLink preference."""
    return key[0], key[1], key[2], key[4]


def _why_lower(c: Candidate, top: Candidate, key: RankKey, top_key: RankKey) -> str:
    """Why ``c`` ranks below ``top``: the first rule of :func:`rank_key` that separates them."""
    for i, (mine, theirs) in enumerate(zip(key, top_key)):
        if mine == theirs:
            continue
        if i == 0:
            return _("over the safe line, while #1 fits under it")
        if i == 1:
            return _("misses the deadline, while #1 meets it")
        if i == 2:
            if c.meets_latency is False:
                return _("misses the latency targets (time to first token / per output token), while #1 meets them")
            return _("does not reach the QPS target, while #1 does")
        if i == 3:
            return (_("its price is unknown, so it cannot be shown to be within the budget") if mine == 1
                    else _("its hardware is over the budget"))
        if i == 4:
            return _("its {count} GPUs exchange gradients over {link}; a large model's sync needs NVLink (article 4.3), "
                     "so options whose sync crosses PCIe rank after NVLink ones, even when cheaper").format(
                count=c.count, link=c.interconnect_name)
        if i == 5:
            return _("dominated: {other} costs no more over the TCO horizon and delivers at least as fast, so this "
                     "option sits off the cost / time frontier").format(other=c.dominated_by)
        if i == 6:
            return _("{what} price unknown: ranked after the priced options of its tier").format(
                what=_unpriced_text(c.unpriced_items))
        if i == 7:
            if c.tco_3y_usd is None or top.tco_3y_usd is None:
                return _("GPU prices unknown for both; its known costs without the GPUs are ${mine:,.0f} against "
                         "${theirs:,.0f} for #1").format(mine=mine, theirs=theirs)
            return _("3-year TCO ${tco_usd:,.0f} against ${top_usd:,.0f} for #1").format(tco_usd=c.tco_3y_usd,
                                                                                      top_usd=top.tco_3y_usd)
        if i == 8:
            return _("same cost, longer time to result than #1")
        return _("same cost and time with more GPUs ({count} against {top_count})").format(count=c.count,
                                                                                           top_count=top.count)
    return _("ties with #1 on every ranking rule")


def _unpriced_text(items: list[str]) -> str:
    """The unknown prices of a candidate ("GPU", "host" or both) in the current language."""
    names = {"GPU": _("GPU"), "host": _("host")}
    if len(items) == 2:
        return _("{first} and {second}").format(first=names.get(items[0], items[0]), second=names.get(items[1], items[1]))
    return names.get(items[0], items[0]) if items else _("GPU")


def explain_ranking(ranked: list[Candidate], budget_usd: float | None = None, prefer_nvlink: bool = False,
                    dollar_multiplier: float = 1.0) -> None:
    """Set ``rank_reason`` on every ranked candidate and, for an unknown GPU price, ``break_even_price_usd``:
    the per-GPU quote below which it would beat the best priced option of its tier (gpudesk.planner.prices).
    ``dollar_multiplier``: USD of TCO per USD of GPU price (gpudesk.planner.tco.gpu_dollar_multiplier)."""
    if not ranked:
        return
    keys = [rank_key(c, budget_usd, prefer_nvlink) for c in ranked]
    top, top_key = ranked[0], keys[0]
    first = [_("fits under the safe line") if top.fits else _("closest to the safe line (nothing fits)")]
    if top.meets_deadline is not None:
        first.append(_("meets the deadline") if top.meets_deadline else _("misses the deadline, as every option does"))
    if top.meets_qps is not None:
        first.append(_("reaches the QPS target") if top.meets_qps else _("misses the QPS target"))
    if top.meets_latency is not None:
        first.append(_("meets the latency targets") if top.meets_latency
                     else _("misses the latency targets, as every option does"))
    if budget_usd:
        first.append({0: _("within the budget"),
                      1: _("price unknown, so possibly within the budget, which every priced option exceeds"),
                      2: _("over the budget, as every option is")}[top_key[3]])
        ceiling = budget_ceiling_per_gpu_usd(top, budget_usd) if top_key[3] == 1 else None
        if ceiling is not None:  # how plausible "possibly" is: the quote the budget leaves room for
            first.append(_("within it only at a quote up to ${price_usd:,.0f} per GPU").format(price_usd=ceiling))
    if prefer_nvlink and top.count > 1 and not top_key[4]:
        first.append(_("NVLink between all its GPUs (large model: options whose gradient sync crosses PCIe rank after "
                       "NVLink ones)"))
    if top.tco_3y_usd is not None:
        first.append(_("lowest 3-year TCO (${tco_usd:,.0f}) among the priced options that do all of this").format(
            tco_usd=top.tco_3y_usd))
    else:
        first.append(_("{what} {price_unknown}").format(what=_unpriced_text(top.unpriced_items),
                                                       price_unknown=price_unknown_text()))
    # Translators: the separator between the reasons of the #1 option (a list of clauses).
    top.rank_reason = "#1: " + _(", ").join(first)
    for position, (c, key) in enumerate(zip(ranked[1:], keys[1:]), start=2):
        c.rank_reason = f"#{position}: " + _why_lower(c, top, key, top_key)
    for position, (c, key) in enumerate(zip(ranked, keys)):
        if c.tco is None or c.tco_3y_usd is not None or len(c.unpriced_items) != 1:
            continue  # priced, or two prices unknown (one break-even quote cannot be solved for)
        # The best priced option ranked above it in the same tier (with a budget, over-budget priced options rank
        # below unpriced ones: there is nothing to overtake then).
        # (position, candidate): the rival's rank without comparing every field of every candidate above it.
        rival_at, rival = next(((i, r) for i, (r, k) in enumerate(zip(ranked[:position], keys[:position]))
                                if r.tco_3y_usd is not None and _tier(k) == _tier(key)), (0, None))
        if rival is None or rival.tco_3y_usd is None:
            continue
        where = f"#{rival_at + 1} ({rival.count} x {rival.gpu_name}, ${rival.tco_3y_usd:,.0f})"
        reason = c.rank_reason or ""
        if c.unpriced_items == ["GPU"]:
            price = break_even_price_usd(c.tco.known_part_usd, c.bought, dollar_multiplier, rival.tco_3y_usd)
            c.break_even_price_usd = price
            c.rank_reason = (
                _("{reason}; a quote below ${price_usd:,.0f} per GPU would put it above {where}").format(
                    reason=reason, price_usd=price, where=where) if price is not None
                else _("{reason}; even at $0 per GPU its other costs exceed {where}").format(reason=reason, where=where))
        else:
            # Host price unknown, GPU price known: the same linear TCO, solved for the host quote per server.
            price = break_even_price_usd(c.tco.known_part_usd, c.servers, dollar_multiplier, rival.tco_3y_usd)
            c.break_even_host_price_usd = price
            c.rank_reason = (
                _("{reason}; a quote below ${price_usd:,.0f} per {server} host would put it above {where}").format(
                    reason=reason, price_usd=price, server=c.server_name, where=where) if price is not None
                else _("{reason}; even at $0 per {server} host its other costs exceed {where}").format(
                    reason=reason, server=c.server_name, where=where))
        c.break_even_rank = rival_at + 1

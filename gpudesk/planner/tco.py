"""Three-year total cost of ownership of one candidate, with every default visible, editable and sourced.

Model (catalog.md 5.1, consistent with public build-vs-rent models):
  TCO = GPUs + host share + network/installation - residual
        + years x (IT energy + cooling/facility overhead + operations labour + support)
        + opportunity cost of finishing after the deadline.
IT energy = average IT power (GPU TDP x utilisation + host power) x 8760 h x price. The PUE overhead
(PUE - 1) x IT energy is shown as "cooling" (catalog.md 5.1: cooling as the (PUE-1) share), plus an optional
per-GPU cooling charge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

from gpudesk.i18n import _, ngettext
from gpudesk.planner.errors import PlanInputError

HOURS_PER_YEAR = 8760

# Host (chassis + CPUs + RAM + NVMe) price by server kind when the catalog has none (USD), for commodity PCIe
# hosts only. An 8-GPU baseboard system (HGX / OAM UBB / NVL72 rack) has no class price: its host is bought with
# its GPUs and differs by platform, so without a sourced ``host_price_usd`` it is "price unknown" (issue 12:
# never invent a price) rather than the HGX H100 figure copied onto A100, MI300X or NVL72 systems.
DEFAULT_HOST_PRICE_USD: dict[str, float] = {"workstation": 6000.0, "pcie-2u": 20000.0, "pcie-4u": 35000.0}


@dataclass
class TcoAssumptions:
    """Editable TCO inputs. ``SOURCES`` gives the origin of each default.

    Attributes (units in names):
        years: horizon of the TCO.
        electricity_usd_per_kwh: energy price.
        pue: power usage effectiveness of the room (total facility power / IT power).
        utilisation: average share of TDP drawn over the years (0-1).
        cooling_usd_per_gpu_year: extra cooling charge per GPU per year on top of PUE (e.g. liquid loop).
        ops_hours_per_server_month: operations labour (driver upgrades, faults, alerting) per server.
        ops_usd_per_hour: loaded hourly rate of that labour.
        support_fraction_per_year: support/maintenance contracts as a share of hardware price per year.
        network_install_fraction: network, cabling, transceivers, installation as a share of hardware price.
        residual_fraction: resale value at the end of the horizon as a share of hardware price.
        delay_cost_usd_per_day: opportunity cost of each day the result arrives after the deadline.
        gpu_price_overrides_usd: gpu_id -> price, replacing the catalog's price.
        host_price_overrides_usd: server_id -> host price, replacing the catalog's or the default.
    """

    years: float = 3.0
    electricity_usd_per_kwh: float = 0.12
    pue: float = 1.5
    utilisation: float = 0.7
    cooling_usd_per_gpu_year: float = 0.0
    ops_hours_per_server_month: float = 4.0
    ops_usd_per_hour: float = 120.0
    support_fraction_per_year: float = 0.10
    network_install_fraction: float = 0.10
    residual_fraction: float = 0.0
    delay_cost_usd_per_day: float = 5238.0
    gpu_price_overrides_usd: dict[str, float] = field(default_factory=dict)
    host_price_overrides_usd: dict[str, float] = field(default_factory=dict)

    SOURCES = {
        "years": "the method's 3-year TCO; catalog.md 5.2 (3-year life with residual, 5-year sensitivity)",
        "electricity_usd_per_kwh": "the article's TCO example ($0.12/kWh); EIA 2023 US commercial average 12.7 c/kWh",
        "pue": "Uptime Institute 2023 industry average 1.58; 1.5 for an enterprise room (catalog.md 5.2)",
        "utilisation": "catalog.md 5.3 worked example (70 % load); the article assumes 24x7 full load (1.0)",
        "cooling_usd_per_gpu_year": "0 beyond PUE; the article charges $800/card/year for liquid cooling",
        "ops_hours_per_server_month": "the article: 0.5 person-day per month (4 h)",
        "ops_usd_per_hour": "the article: senior engineer at $120/h",
        "support_fraction_per_year": "about 10 %/yr of hardware (catalog.md 5.2, weak source)",
        "network_install_fraction": "network, cabling, ToR, installation +10-15 % of CapEx (catalog.md 5.2, weak)",
        "residual_fraction": "0 (conservative); 25-35 % after 36 months for H100-class is reported (weak)",
        "delay_cost_usd_per_day": "the article: a 6-week delay cost a $220k renewal, about $5,238/day",
        "gpu_price_overrides_usd": "user prices (the store's price overrides)",
        "host_price_overrides_usd": "user prices for hosts",
    }

    def validate(self) -> TcoAssumptions:
        """Check every value; raises PlanInputError naming ``tco.<field>``."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, dict):
                for key, price in value.items():
                    if not isinstance(price, (int, float)) or isinstance(price, bool) or not math.isfinite(price) or price <= 0:
                        raise PlanInputError(f"tco.{f.name}", _("price for {key!r} must be a positive number of USD, got {price!r}.").format(
                            key=key, price=price))
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise PlanInputError(f"tco.{f.name}", _("must be a finite number >= 0, got {value!r}.").format(value=value))
        if self.years <= 0 or self.years > 15:
            raise PlanInputError("tco.years", _("must be between 0 and 15 years, got {years:g}.").format(years=self.years))
        if self.pue < 1 or self.pue > 3:
            raise PlanInputError("tco.pue", _("PUE is total/IT power, between 1.0 and 3.0; got {pue:g}.").format(pue=self.pue))
        for name in ("utilisation", "residual_fraction", "support_fraction_per_year", "network_install_fraction"):
            if getattr(self, name) > 1:
                raise PlanInputError(f"tco.{name}", _("must be a fraction between 0 and 1, got {value:g}.").format(
                    value=getattr(self, name)))
        if self.electricity_usd_per_kwh > 5:
            raise PlanInputError("tco.electricity_usd_per_kwh", _("{usd_per_kwh:g} $/kWh is implausible; use dollars, not "
                                                                  "cents.").format(usd_per_kwh=self.electricity_usd_per_kwh))
        return self


TCO_LINES = ("gpus", "hosts", "network_install", "residual", "energy", "cooling", "operations", "support", "opportunity")


@dataclass(frozen=True)
class Tco:
    """A candidate's TCO: ``total_usd`` (None when a price is unknown) and ``breakdown_usd`` per TCO_LINES.

    ``missing`` lists what had no price (e.g. "GPU price of a100-80-sxm4"); ``assumptions`` are
    (assumption, source) pairs.
    """

    total_usd: float | None
    breakdown_usd: dict[str, float | None]
    missing: tuple[str, ...] = ()
    assumptions: tuple[tuple[str, str], ...] = ()
    known_part_usd: float = 0.0

    @property
    def gpu_price_missing(self) -> bool:
        """True when the GPU price (not only a host price) is what is unknown."""
        return any(item.startswith("GPU price") for item in self.missing)


def gpu_dollar_multiplier(a: TcoAssumptions) -> float:
    """USD of TCO per USD of GPU purchase price: 1 + network/installation + support over the years - residual
    (every TCO line proportional to the hardware price; see :func:`compute_tco`)."""
    return 1.0 + a.network_install_fraction + a.support_fraction_per_year * a.years - a.residual_fraction


def compute_tco(*, gpu_id: str, gpu_price_usd: float | None, gpu_tdp_w: float, count: int, server_id: str,
                server_kind: str, servers: int, host_price_usd: float | None, server_power_w: float | None,
                server_max_gpus: int, delay_days: float, a: TcoAssumptions, existing_host: bool = False) -> Tco:
    """TCO over ``a.years`` for ``count`` GPUs in ``servers`` hosts (USD, per :data:`TCO_LINES`).

    ``gpu_price_usd`` is the price per GPU the planner resolved (gpudesk.planner.prices: the profile's override,
    the user's price, or the catalog's); ``a.gpu_price_overrides_usd`` still wins when it names ``gpu_id``.
    ``existing_host``: the user's own server, so no host is bought (its power and labour still count).
    ``known_part_usd`` of the result is the sum of the lines that could be priced (the total without the GPUs
    when their price is unknown), so a break-even price can be computed.
    """
    missing: list[str] = []
    notes: list[tuple[str, str]] = []
    price = a.gpu_price_overrides_usd.get(gpu_id, gpu_price_usd)
    if price is None:
        missing.append(f"GPU price of {gpu_id}")
    host = a.host_price_overrides_usd.get(server_id, host_price_usd)
    if existing_host:
        # The user's own server: nothing to buy for the chassis (issue 12: the TCO used to charge a new host).
        host = 0.0
        notes.append((_("host {server} is the existing server: no host purchase").format(server=server_id),
                      "requirement: operations.existing_server"))
    elif host is None:
        host = DEFAULT_HOST_PRICE_USD.get(server_kind)
        if host is not None:
            notes.append((_("host price of {server} assumed ${price_usd:,.0f} (catalog has none)").format(
                server=server_id, price_usd=host),
                          "gpudesk default per commodity PCIe server kind (class estimate, not a quote)"))
        else:
            missing.append(f"host price of {server_id}")
    gpus_usd = price * count if price is not None else None
    hosts_usd = host * servers if host is not None else None
    hardware = (gpus_usd or 0.0) + (hosts_usd or 0.0)
    network = hardware * a.network_install_fraction
    residual = -hardware * a.residual_fraction
    # Host power: the chassis maximum minus its GPUs' TDP (DGX A100: 6.5 kW - 8 x 400 W); else 0.8 x GPU TDP
    # (DGX H100 node ~1.8x its GPUs' TDP, catalog.md 5.2).
    if server_power_w and server_power_w >= server_max_gpus * gpu_tdp_w:
        host_w_each = server_power_w - server_max_gpus * gpu_tdp_w
    else:
        host_w_each = 0.8 * gpu_tdp_w * min(count, server_max_gpus)
    it_kw = (count * gpu_tdp_w + servers * host_w_each) * a.utilisation / 1000
    energy = it_kw * HOURS_PER_YEAR * a.years * a.electricity_usd_per_kwh
    cooling = energy * (a.pue - 1) + a.cooling_usd_per_gpu_year * count * a.years
    operations = a.ops_hours_per_server_month * 12 * a.years * a.ops_usd_per_hour * servers
    support = hardware * a.support_fraction_per_year * a.years
    opportunity = max(0.0, delay_days) * a.delay_cost_usd_per_day
    breakdown = {"gpus": gpus_usd, "hosts": hosts_usd, "network_install": network, "residual": residual,
                 "energy": energy, "cooling": cooling, "operations": operations, "support": support,
                 "opportunity": opportunity}
    known = sum(v for v in breakdown.values() if v is not None)
    total = None if missing else known
    return Tco(total_usd=total, breakdown_usd=breakdown, missing=tuple(missing), assumptions=tuple(notes),
               known_part_usd=known)


@dataclass(frozen=True)
class CloudRate:
    """A sourced cloud rate for one GPU type (USD per GPU-hour), from the catalog's ``prices`` table."""

    usd_per_gpu_hour: float
    kind: str
    provider: str | None
    date: str
    source_url: str


@dataclass(frozen=True)
class RentVsBuy:
    """Renting the same GPUs instead of buying them.

    ``job_rent_usd``: the rate x GPUs x the job's time to result (training; None for a service).
    ``horizon_rent_usd``: the rate x GPUs x hours over the TCO horizon at the expected utilisation (renting only
    the hours the GPUs would be busy). ``break_even_utilisation``: the utilisation above which owning costs less
    than renting at this rate (catalog.md 5.1: u* = annual owned cost / (N x 8760 x rate)); None when the TCO is
    unknown. ``break_even_gpu_hours_per_year``: the same threshold as work, u* x N x 8760 GPU-hours a year.
    ``job_gpu_hours``: this job's GPU-hours (N x time to result; None for a service).
    ``basis``: the work the verdict weighs: "job" (a training job: the GPUs' known work is this job, once, over the
    horizon; the TCO's utilisation is an assumption, not work the user has) or "service" (a service or a mixed
    share runs all the time, so the expected utilisation is the work).
    ``verdict``: "buy", "rent" or None when it cannot be decided.
    """

    rate: CloudRate
    job_rent_usd: float | None
    horizon_rent_usd: float
    owned_usd: float | None
    break_even_utilisation: float | None
    verdict: str | None
    break_even_gpu_hours_per_year: float | None = None
    job_gpu_hours: float | None = None
    basis: str = "service"
    years: float = 3.0
    utilisation: float = 0.7

    def describe(self, count: int) -> str:
        """One sentence for the rationale and the sheet."""
        rate = self.rate
        values = dict(count=count, rate_usd=rate.usd_per_gpu_hour, kind=rate.kind.replace("cloud-", ""),
                      provider=rate.provider or _("provider not named"), date=rate.date, job_usd=self.job_rent_usd,
                      job_hours=self.job_gpu_hours, horizon_usd=self.horizon_rent_usd, years=self.years,
                      utilisation=self.utilisation)
        if self.job_rent_usd is not None and self.job_gpu_hours is not None:
            text = ngettext("renting {count} GPU at ${rate_usd:.2f}/GPU-hour ({kind}, {provider}, {date}), costs "
                            "${job_usd:,.0f} for this job ({job_hours:,.0f} GPU-hours), ${horizon_usd:,.0f} over "
                            "{years:g} years at {utilisation:.0%} utilisation",
                            "renting {count} GPUs at ${rate_usd:.2f}/GPU-hour ({kind}, {provider}, {date}), costs "
                            "${job_usd:,.0f} for this job ({job_hours:,.0f} GPU-hours), ${horizon_usd:,.0f} over "
                            "{years:g} years at {utilisation:.0%} utilisation", count).format(**values)
        elif self.job_rent_usd is not None:
            text = ngettext("renting {count} GPU at ${rate_usd:.2f}/GPU-hour ({kind}, {provider}, {date}), costs "
                            "${job_usd:,.0f} for this job, ${horizon_usd:,.0f} over {years:g} years at "
                            "{utilisation:.0%} utilisation",
                            "renting {count} GPUs at ${rate_usd:.2f}/GPU-hour ({kind}, {provider}, {date}), costs "
                            "${job_usd:,.0f} for this job, ${horizon_usd:,.0f} over {years:g} years at "
                            "{utilisation:.0%} utilisation", count).format(**values)
        else:
            text = ngettext("renting {count} GPU at ${rate_usd:.2f}/GPU-hour ({kind}, {provider}, {date}), "
                            "${horizon_usd:,.0f} over {years:g} years at {utilisation:.0%} utilisation",
                            "renting {count} GPUs at ${rate_usd:.2f}/GPU-hour ({kind}, {provider}, {date}), "
                            "${horizon_usd:,.0f} over {years:g} years at {utilisation:.0%} utilisation",
                            count).format(**values)
        if self.owned_usd is None or self.break_even_utilisation is None or self.break_even_gpu_hours_per_year is None:
            return text
        values.update(owned_usd=self.owned_usd, break_even=self.break_even_utilisation,
                      break_even_hours=self.break_even_gpu_hours_per_year)
        text = _("{text}, against ${owned_usd:,.0f} to own; owning wins above {break_even:.0%} utilisation, that is "
                 "{break_even_hours:,.0f} GPU-hours of work a year").format(text=text, **values)
        if self.basis == "job" and self.job_gpu_hours is not None:
            if self.verdict == "rent":
                return _("{text}. This job is {job_hours:,.0f} GPU-hours once, so rent: buy only if you have "
                         "{break_even_hours:,.0f} GPU-hours of work a year for {years:g} years").format(text=text, **values)
            return _("{text}. This job alone keeps the GPUs busy enough ({job_hours:,.0f} GPU-hours), so buy").format(
                text=text, **values)
        if self.verdict == "buy":
            return _("{text}; a service at {utilisation:.0%} utilisation, so buy").format(text=text, **values)
        return _("{text}; a service at {utilisation:.0%} utilisation, so rent").format(text=text, **values)


def rent_vs_buy(rate: CloudRate, *, count: int, job_hours: float | None, tco_total_usd: float | None,
                a: TcoAssumptions, ongoing: bool = False) -> RentVsBuy:
    """Compare renting ``count`` GPUs at ``rate`` with the candidate's TCO (catalog.md 5.1 break-even).

    The verdict weighs the work the user has: for a training job (``job_hours`` given, not ``ongoing``) that is the
    job, so owning wins only when renting this job costs more than owning (the job's utilisation over the horizon
    reaches u*); for a service or a mixed share (``ongoing``, or no job length) it is the expected utilisation.
    """
    hourly = rate.usd_per_gpu_hour * count
    job = hourly * job_hours if job_hours is not None else None
    horizon = hourly * HOURS_PER_YEAR * a.years * a.utilisation
    break_even = None
    hours_per_year = None
    verdict = None
    basis = "job" if job_hours is not None and not ongoing else "service"
    if tco_total_usd is not None and hourly > 0:
        break_even = tco_total_usd / (hourly * HOURS_PER_YEAR * a.years)
        hours_per_year = break_even * count * HOURS_PER_YEAR
        if basis == "job" and job is not None:
            verdict = "buy" if job >= tco_total_usd else "rent"
        else:
            verdict = "buy" if a.utilisation > break_even else "rent"
    return RentVsBuy(rate=rate, job_rent_usd=job, horizon_rent_usd=horizon, owned_usd=tco_total_usd,
                     break_even_utilisation=break_even, verdict=verdict, break_even_gpu_hours_per_year=hours_per_year,
                     job_gpu_hours=count * job_hours if job_hours is not None else None, basis=basis, years=a.years,
                     utilisation=a.utilisation)

"""TCO arithmetic against the article's own A100 example, and the workload classification rules."""

import pytest

from gpudesk.planner import PlanInputError, Requirement, TcoAssumptions
from gpudesk.planner.classify import INFERENCE, LARGE, MID, MULTIMODAL, SMALL, classify
from gpudesk.planner.tco import compute_tco
from gpudesk.sizing import spec_from_params


def _tco(a, **kw):
    args = dict(gpu_id="a100-40-pcie", gpu_price_usd=12000.0, gpu_tdp_w=250.0, count=1, server_id="pcie-2u-gen4",
                server_kind="pcie-2u", servers=1, host_price_usd=0.0, server_power_w=None, server_max_gpus=1,
                delay_days=0.0, a=a)
    args.update(kw)
    return compute_tco(**args)


def test_article_a100_energy_and_ops_figures():
    # Article 2.3: "A100 at 250 W, $0.12/kWh, 24x7 for 3 years: about $2,365". 250 W for 26,280 h is $788; the
    # article's figure matches 0.75 kW, so it cannot be the card alone. Operations: 0.5 person-day/month at
    # $120/h for 3 years, "about $18,000" (exactly $17,280).
    a = TcoAssumptions(utilisation=1.0, pue=1.0, support_fraction_per_year=0.0, network_install_fraction=0.0)
    t = _tco(a, server_power_w=250.0)  # host power 0: compare the GPU alone
    assert t.breakdown_usd["energy"] == pytest.approx(0.25 * 8760 * 3 * 0.12)
    assert round(t.breakdown_usd["energy"] * 3) == 2365  # the article's figure is three times the card's energy
    assert t.breakdown_usd["operations"] == 17280
    assert t.breakdown_usd["cooling"] == 0


def test_pue_cooling_opportunity_and_missing_price():
    a = TcoAssumptions(pue=1.5, utilisation=1.0, delay_cost_usd_per_day=1000.0)
    t = _tco(a, server_power_w=250.0, delay_days=3.5)
    assert t.breakdown_usd["cooling"] == pytest.approx(t.breakdown_usd["energy"] * 0.5)
    assert t.breakdown_usd["opportunity"] == 3500
    assert t.total_usd == pytest.approx(sum(v for v in t.breakdown_usd.values()))
    unknown = _tco(a, gpu_price_usd=None)
    assert unknown.total_usd is None and unknown.breakdown_usd["gpus"] is None and unknown.missing
    overridden = _tco(TcoAssumptions(gpu_price_overrides_usd={"a100-40-pcie": 9000.0}), gpu_price_usd=None)
    assert overridden.breakdown_usd["gpus"] == 9000.0


def test_tco_assumptions_validate():
    with pytest.raises(PlanInputError) as info:
        TcoAssumptions(utilisation=1.4).validate()
    assert info.value.field == "tco.utilisation"
    with pytest.raises(PlanInputError) as info:
        TcoAssumptions(gpu_price_overrides_usd={"h100-sxm5": -1}).validate()
    assert info.value.field == "tco.gpu_price_overrides_usd"
    assert set(TcoAssumptions.SOURCES) >= {"pue", "electricity_usd_per_kwh", "ops_usd_per_hour", "delay_cost_usd_per_day"}


@pytest.mark.parametrize("params,mode,modality,seq,qps,kind", [
    (13e9, "train", "image-text", 512, None, LARGE),
    (6.7e9, "train", "text", 2048, None, MID),
    (70e9, "lora", "text", 2048, None, MID),
    (0.1e9, "train", "image", 512, None, SMALL),
    (0.03e9, "train", "3d-volume", 512, None, MULTIMODAL),
    (8e9, "train", "text", 131072, None, MULTIMODAL),
    (0.23e9, "inference", "tabular", 512, 40.0, INFERENCE),
])
def test_classification(params, mode, modality, seq, qps, kind):
    req = Requirement()
    req.model.params, req.model.mode, req.model.seq_len_tokens = int(params), mode, seq
    req.data.modality = modality
    req.workload.target_qps = qps
    got, why = classify(req, spec_from_params(params))
    assert got == kind and why and why[0][1]

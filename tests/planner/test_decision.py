"""The binding constraint of a chosen option (gpudesk.planner.decision): the limit it comes closest to."""

from gpudesk.planner.decision import binding_constraint, constraint_ratios
from gpudesk.planner.document import PlanOption
from gpudesk.planner.requirement import Operations, Requirement, WorkloadMix

GIB = 2**30


def test_the_tightest_limit_is_named_with_its_share_used():
    option = PlanOption("l20", "NVIDIA L20", 1, per_gpu_memory_bytes=int(35.1 * GIB), safe_line_bytes=int(37.9 * GIB),
                        time_to_result_s=1.4 * 86400, tco_3y_usd=26108.0,
                        tco_breakdown_usd={"gpus": 4650.0, "hosts": 6000.0, "network_install": 1000.0})
    req = Requirement(workload=WorkloadMix(deadline_s=7 * 86400), operations=Operations(budget_usd=60000))
    assert len(constraint_ratios(option, req)) == 3
    assert binding_constraint(option, req) == "memory: 35.1 GiB per GPU of the 37.9 GiB safe line (93 % used)"
    req.workload.deadline_s = 1.5 * 86400  # now the deadline is tighter than memory
    assert binding_constraint(option, req).startswith("deadline: 1.4 days of the 1.5 days allowed (93 % used)")


def test_a_service_is_bound_by_its_qps_or_latency_target():
    option = PlanOption("h100-sxm5", "NVIDIA H100", 8, qps_capacity=23.0, tpot_s=0.0288)
    assert binding_constraint(option, Requirement(workload=WorkloadMix(target_qps=20))).startswith(
        "QPS: the target 20 req/s")
    assert binding_constraint(option, Requirement(workload=WorkloadMix(target_qps=20, tpot_target_s=0.03))).startswith(
        "TPOT: 29 ms")
    assert binding_constraint(PlanOption("x", "x", 1), Requirement()) is None
    assert binding_constraint(PlanOption("x", "x", 1), None) is None

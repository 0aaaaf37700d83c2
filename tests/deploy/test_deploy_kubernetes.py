"""deploy/k8s against the Kubernetes schemas and against the server's own config and image.

Issue 6: "Kubernetes manifests (Deployment, Service, ConfigMap, Secret for the database URL and admin
token, readiness/liveness probes using gRPC health, resource requests) ... validate what can be validated
in CI (the manifests against the Kubernetes schemas, e.g. with the kubernetes-validate package)".
"""

from __future__ import annotations

import copy
import re
import tomllib

import kubernetes_validate
import pytest
from deploy_support import DEPLOY, image_config, manifests, port_of

from server.ops.config_file import load_config, parse_config

KUBERNETES = "1.30.0"
"""The oldest Kubernetes minor still in upstream support when this was written; gRPC probes are GA."""


@pytest.mark.parametrize(
    "kind",
    ["StatefulSet", "Service", "ConfigMap", "Secret", "PodDisruptionBudget", "HorizontalPodAutoscaler"],
)
def test_each_manifest_matches_the_kubernetes_schema(kind):
    """The schemas ship inside the kubernetes-validate package: no cluster and no network needed."""
    kubernetes_validate.validate(manifests()[kind], KUBERNETES, strict=True)


def test_the_schema_check_catches_a_misspelt_field():
    """The validator is strict: a typo in the StatefulSet would be reported, not ignored."""
    replicas = copy.deepcopy(manifests()["StatefulSet"])
    container = replicas["spec"]["template"]["spec"]["containers"][0]
    container["readinesProbe"] = container.pop("readinessProbe")
    with pytest.raises(kubernetes_validate.ValidationError, match="readinesProbe"):
        kubernetes_validate.validate(replicas, KUBERNETES, strict=True)


def _container() -> dict:
    return manifests()["StatefulSet"]["spec"]["template"]["spec"]["containers"][0]


def test_probes_ask_grpc_health_and_outlast_the_drain():
    """Issue 6: "readiness/liveness probes using gRPC health"; "SIGTERM drains ... within a configurable
    grace time": readiness drops a draining pod at once, liveness must not restart it mid-drain, and the
    kubelet must not kill it before the grace time is over."""
    config = image_config()
    container = _container()
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {
        "grpc": port_of(config.address),
        "relay": int(_env()["CONQUEST_SERVER_RELAY_PORT"]),
        "metrics": config.metrics_port,
        "dashboard": config.dashboard_port,
    }
    readiness, liveness = container["readinessProbe"], container["livenessProbe"]
    assert readiness["grpc"]["port"] == liveness["grpc"]["port"] == ports["grpc"]
    assert readiness["failureThreshold"] == 1
    assert liveness["periodSeconds"] * liveness["failureThreshold"] * 1000 > config.shutdown_grace_ms
    pod = manifests()["StatefulSet"]["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] * 1000 > config.shutdown_grace_ms


def test_resources_are_requested_and_the_pod_runs_as_the_images_user():
    """Issue 6: "resource requests"; "a multi-stage Dockerfile running as a non-root user"."""
    container = _container()
    assert {"cpu", "memory"} <= set(container["resources"]["requests"])
    assert {"memory"} <= set(container["resources"]["limits"])
    pod = manifests()["StatefulSet"]["spec"]["template"]["spec"]
    user = re.search(r"^USER (\d+):(\d+)$", (DEPLOY / "Dockerfile").read_text(), flags=re.MULTILINE)
    assert user is not None
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert (pod["securityContext"]["runAsUser"], pod["securityContext"]["runAsGroup"]) == (
        int(user.group(1)),
        int(user.group(2)),
    )
    assert container["securityContext"]["allowPrivilegeEscalation"] is False


def test_the_configmap_carries_the_image_config_where_the_entrypoint_reads_it():
    """One config file: the ConfigMap holds deploy/conquest.toml verbatim, mounted at the path the
    image's entrypoint passes to --config; the replay volume is mounted at server.replay_dir."""
    objects = manifests()
    text = objects["ConfigMap"]["data"]["conquest.toml"]
    assert text == (DEPLOY / "conquest.toml").read_text(), "deploy/k8s/configmap.yaml is out of date"
    assert parse_config(tomllib.loads(text)) == image_config()
    entrypoint = re.search(r"^ENTRYPOINT \[(.*)\]$", (DEPLOY / "Dockerfile").read_text(), flags=re.MULTILINE)
    assert entrypoint is not None
    config_path = entrypoint.group(1).split(", ")[-1].strip('"')
    pod = objects["StatefulSet"]["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in _container()["volumeMounts"]}
    config_volume = volumes[mounts[config_path.rsplit("/", 1)[0]]]
    assert config_volume["configMap"]["name"] == objects["ConfigMap"]["metadata"]["name"]
    assert config_path.rsplit("/", 1)[1] in objects["ConfigMap"]["data"]
    assert mounts[str(image_config().replay_dir)] not in volumes, "the replay volume is the pod's own claim"
    [claim] = objects["StatefulSet"]["spec"]["volumeClaimTemplates"]
    assert claim["metadata"]["name"] == mounts[str(image_config().replay_dir)]


def test_the_secret_holds_the_database_url_and_admin_token_for_the_pod():
    """Issue 6: "Secret for the database URL and admin token"."""
    objects = manifests()
    secret = objects["Secret"]
    assert set(secret["stringData"]) == {
        "CONQUEST_DATABASE_URL",
        "CONQUEST_ADMIN_TOKEN",
        "CONQUEST_SERVER_CLUSTER_TOKEN",
    }
    assert secret["stringData"]["CONQUEST_DATABASE_URL"].startswith("postgresql+psycopg://")
    sources = _container()["envFrom"]
    assert [s["secretRef"]["name"] for s in sources] == [secret["metadata"]["name"]]
    config = load_config(DEPLOY / "conquest.toml", secret["stringData"])  # names the server really reads
    assert (config.database_url, config.admin_token) == (
        secret["stringData"]["CONQUEST_DATABASE_URL"],
        secret["stringData"]["CONQUEST_ADMIN_TOKEN"],
    )


def test_the_service_selects_the_pods_and_exposes_grpc_metrics_and_the_dashboard():
    """The Service publishes every container port (gRPC, /metrics, the web dashboard of issue 8) on the
    port the server config gives it."""
    objects = manifests()
    service = objects["Service"]["spec"]
    labels = objects["StatefulSet"]["spec"]["template"]["metadata"]["labels"]
    assert service["selector"].items() <= labels.items()
    assert objects["StatefulSet"]["spec"]["selector"]["matchLabels"].items() <= labels.items()
    container_ports = {p["name"] for p in _container()["ports"]} - {"relay"}  # replica to replica only
    assert {p["targetPort"] for p in service["ports"]} == container_ports
    by_name = {p["name"]: p["containerPort"] for p in _container()["ports"] if p["name"] != "relay"}
    assert {p["targetPort"]: p["port"] for p in service["ports"]} == by_name


def _env() -> dict[str, str]:
    """The container's plain environment values (the pod IP's reference shown as ``<status.podIP>``)."""
    values = {}
    for variable in _container()["env"]:
        source = variable.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
        values[variable["name"]] = f"<{source}>" if source else variable["value"]
    return values


def test_the_replicas_run_in_cluster_mode_and_advertise_their_relay():
    """Issue 20: "`deploy/k8s` runs several replicas with rolling updates": every pod is a replica of one
    cluster on the Secret's PostgreSQL, reachable by the others at its own IP on the relay port."""
    objects = manifests()
    spec = objects["StatefulSet"]["spec"]
    assert spec["replicas"] >= 3 and spec["updateStrategy"]["type"] == "RollingUpdate"
    environment = _env() | objects["Secret"]["stringData"]
    config = load_config(DEPLOY / "conquest.toml", environment)  # names the server really reads
    assert config.cluster and config.database_url.startswith("postgresql")
    assert config.cluster_token == environment["CONQUEST_SERVER_CLUSTER_TOKEN"]
    assert environment["CONQUEST_SERVER_ADVERTISE_HOST"] == "<status.podIP>"
    assert config.relay_port == int(environment["CONQUEST_SERVER_RELAY_PORT"])


def test_disruptions_take_one_replica_at_a_time_and_cpu_scales_them():
    """Issue 20: "a PodDisruptionBudget and an autoscaler on CPU", both aimed at the replicas' pods."""
    objects = manifests()
    replicas = objects["StatefulSet"]
    labels = replicas["spec"]["template"]["metadata"]["labels"]
    budget = objects["PodDisruptionBudget"]["spec"]
    assert budget["selector"]["matchLabels"].items() <= labels.items()
    assert budget["maxUnavailable"] == 1
    scaler = objects["HorizontalPodAutoscaler"]["spec"]
    target = scaler["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("StatefulSet", replicas["metadata"]["name"])
    assert scaler["minReplicas"] == replicas["spec"]["replicas"] < scaler["maxReplicas"]
    assert budget["maxUnavailable"] < scaler["minReplicas"], "a disruption leaves replicas to hand games to"
    [metric] = scaler["metrics"]
    assert metric["resource"]["name"] == "cpu"
    assert "cpu" in _container()["resources"]["requests"], "CPU utilisation is a share of the request"

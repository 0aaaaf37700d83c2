"""deploy/docker-compose.yml, the Prometheus scrape config and the Grafana provisioning, read as data.

Issue 6: "a compose file with the server, PostgreSQL, Prometheus (scrape config included) and Grafana
(provisioned datasource and a dashboard JSON showing the metrics above) ... validate ... the compose
file and dashboard as data; a test that every metric the dashboard queries is exported by the server".
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

from deploy_support import DEPLOY, ROOT, image_config, port_of, yaml_file

from server.ops.config_file import load_config
from server.ops.metrics import Metrics

COMPOSE = yaml_file("docker-compose.yml")
SERVICES = COMPOSE["services"]
DASHBOARD = json.loads((DEPLOY / "grafana" / "dashboards" / "conquest.json").read_text())


def _mounts(service: str) -> dict[str, str]:
    """A service's volumes: container path -> source (a named volume or a path relative to deploy/)."""
    mounts = {}
    for volume in SERVICES[service].get("volumes", []):
        source, target, *_ = volume.split(":")
        mounts[target] = source
    return mounts


def test_compose_runs_the_server_with_postgresql_prometheus_and_grafana():
    assert set(SERVICES) == {"conquest", "gateway", "postgres", "prometheus", "grafana"}
    for name, service in SERVICES.items():
        assert "image" in service, f"{name} names its image"
        assert set(service) <= {
            "build", "image", "command", "environment", "ports", "volumes", "depends_on", "healthcheck",
            "restart", "stop_grace_period", "deploy",
        }, f"{name} uses a key this test does not know"  # fmt: skip
    build = SERVICES["conquest"]["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"


def test_compose_ports_volumes_and_files_line_up():
    """Every bind-mounted file exists, every named volume is declared, published ports match the config."""
    config = image_config()
    declared = set(COMPOSE["volumes"])
    for name in SERVICES:
        for source in _mounts(name).values():
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name} mounts missing {source}"
            else:
                assert source in declared, f"{name} uses undeclared volume {source}"
    server = _mounts("conquest")
    assert server["/etc/conquest/conquest.toml"] == "./conquest.toml"
    assert str(config.replay_dir) in server
    assert "ports" not in SERVICES["conquest"], "replicas are reached through the gateway"
    published = SERVICES["gateway"]["ports"]
    assert f"{port_of(config.address)}:{port_of(config.address)}" in published
    assert f"{config.dashboard_port}:{config.dashboard_port}" in published  # issue 8: the web dashboard
    assert _mounts("prometheus")["/etc/prometheus/prometheus.yml"] == "./prometheus/prometheus.yml"


def test_the_server_gets_its_database_and_time_to_drain():
    """The database URL points at the compose PostgreSQL; SIGKILL comes only after the drain's grace time."""
    server = SERVICES["conquest"]
    database = urlsplit(server["environment"]["CONQUEST_DATABASE_URL"])
    assert database.scheme == "postgresql+psycopg" and database.hostname == "postgres"
    postgres = SERVICES["postgres"]["environment"]
    assert (database.username, database.path) == (postgres["POSTGRES_USER"], "/" + postgres["POSTGRES_DB"])
    assert server["depends_on"]["postgres"]["condition"] == "service_healthy"
    environment = {k: re.sub(r"\$\{(\w+)[^}]*\}", r"<\1>", v) for k, v in server["environment"].items()}
    config = load_config(DEPLOY / "conquest.toml", environment)  # names the server really reads
    assert config.database_url == environment["CONQUEST_DATABASE_URL"]
    assert config.admin_token == "<CONQUEST_ADMIN_TOKEN>"
    grace = re.fullmatch(r"(\d+)s", server["stop_grace_period"])
    assert grace and int(grace.group(1)) * 1000 > image_config().shutdown_grace_ms


def test_prometheus_scrapes_the_servers_metrics_port():
    """Issue 6: "Prometheus (scrape config included)"; issue 20: "Metrics ... see the whole cluster": every
    replica of the compose service is found by its DNS name and scraped on server.metrics_port."""
    scrape = yaml_file("prometheus/prometheus.yml")["scrape_configs"]
    [job] = [j for j in scrape if j["job_name"] == "conquest"]
    assert job.get("metrics_path", "/metrics") == "/metrics"
    [lookup] = job["dns_sd_configs"]
    assert (lookup["names"], lookup["type"], lookup["port"]) == (
        ["conquest"],
        "A",
        image_config().metrics_port,
    )


def test_several_replicas_run_in_cluster_mode_behind_the_gateway():
    """Issue 20: "compose can run several": the replicas share PostgreSQL in cluster mode, and the gateway
    forwards the bots' gRPC (HTTP/2, no timeout on their long streams) and the dashboard to all of them."""
    server = SERVICES["conquest"]
    assert int(re.sub(r"\$\{\w+:-(\d+)\}", r"\1", str(server["deploy"]["replicas"]))) >= 2
    environment = {k: re.sub(r"\$\{(\w+)[^}]*\}", r"<\1>", v) for k, v in server["environment"].items()}
    config = load_config(DEPLOY / "conquest.toml", environment)
    assert config.cluster and config.relay_port == int(environment["CONQUEST_SERVER_RELAY_PORT"])
    assert config.cluster_token == "<CONQUEST_CLUSTER_TOKEN>"
    envoy = yaml_file("envoy/envoy.yaml")["static_resources"]
    assert _mounts("gateway")["/etc/envoy/envoy.yaml"] == "./envoy/envoy.yaml"
    clusters = {c["name"]: c for c in envoy["clusters"]}
    routes = {}
    for listener in envoy["listeners"]:
        [chain] = listener["filter_chains"]
        [manager] = chain["filters"]
        [host] = manager["typed_config"]["route_config"]["virtual_hosts"]
        [route] = host["routes"]
        assert route["route"]["timeout"] == manager["typed_config"]["stream_idle_timeout"] == "0s"
        upstream = clusters[route["route"]["cluster"]]
        assert upstream["type"] == "STRICT_DNS", "follows --scale without a restart"
        [endpoints] = upstream["load_assignment"]["endpoints"]
        [endpoint] = endpoints["lb_endpoints"]
        address = endpoint["endpoint"]["address"]["socket_address"]
        routes[listener["address"]["socket_address"]["port_value"]] = (
            address["address"],
            address["port_value"],
        )
    config = image_config()
    assert routes == {
        port_of(config.address): ("conquest", port_of(config.address)),
        config.dashboard_port: ("conquest", config.dashboard_port),
    }
    grpc_options = clusters["conquest_grpc"]["typed_extension_protocol_options"]
    [http] = grpc_options.values()
    assert "http2_protocol_options" in http["explicit_http_config"]


def test_grafana_is_provisioned_with_the_datasource_and_dashboard_it_uses():
    [source] = yaml_file("grafana/provisioning/datasources/prometheus.yml")["datasources"]
    assert urlsplit(source["url"]).hostname == "prometheus" and source["type"] == "prometheus"
    used = {p["datasource"]["uid"] for p in DASHBOARD["panels"] if "datasource" in p}
    used |= {t["datasource"]["uid"] for p in DASHBOARD["panels"] for t in p.get("targets", [])}
    assert used == {source["uid"]}
    [provider] = yaml_file("grafana/provisioning/dashboards/conquest.yml")["providers"]
    mounts = _mounts("grafana")
    assert mounts[provider["options"]["path"]] == "./grafana/dashboards"
    assert mounts["/etc/grafana/provisioning"] == "./grafana/provisioning"


def _queried_metrics() -> set[str]:
    """Every conquest_ metric in the dashboard's PromQL, histogram series suffixes stripped."""
    expressions = [t["expr"] for p in DASHBOARD["panels"] for t in p.get("targets", [])]
    expressions += [v["definition"] for v in DASHBOARD["templating"]["list"]]
    names = {n for e in expressions for n in re.findall(r"\bconquest_[a-z_]+", e)}
    return {re.sub(r"_(bucket|sum|count)$", "", n) for n in names}


def test_every_metric_the_dashboard_queries_is_exported_by_the_server():
    """Issue 6: "a test that every metric the dashboard queries is exported by the server"."""
    exported = set(Metrics().names())
    assert _queried_metrics() <= exported, f"not exported: {_queried_metrics() - exported}"


def test_the_dashboard_shows_every_documented_metric():
    """Issue 6: "a dashboard JSON showing the metrics above" (all of docs/metrics.md)."""
    documented = set(
        re.findall(r"^\| `(conquest_[a-z_]+)`", (ROOT / "docs" / "metrics.md").read_text(), re.M)
    )
    assert documented == set(Metrics().names())
    assert documented <= _queried_metrics(), f"not on the dashboard: {documented - _queried_metrics()}"


def test_the_dashboard_is_well_formed():
    """Unique panel ids, no overlapping panels, and histograms read only through their buckets, sums
    and counts."""
    ids = [p["id"] for p in DASHBOARD["panels"]]
    assert len(ids) == len(set(ids))
    cells = set()
    for panel in DASHBOARD["panels"]:
        box = panel["gridPos"]
        area = {(box["x"] + dx, box["y"] + dy) for dx in range(box["w"]) for dy in range(box["h"])}
        assert box["x"] + box["w"] <= 24 and not area & cells, f"panel {panel['title']!r} overlaps"
        cells |= area
    histograms = {f.name for f in Metrics().registry.collect() if f.type == "histogram"}
    for panel in DASHBOARD["panels"]:
        for target in panel.get("targets", []):
            for name in re.findall(r"\bconquest_[a-z_]+", target["expr"]):
                assert name not in histograms, f"{panel['title']!r} reads histogram {name} directly"

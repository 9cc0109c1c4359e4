"""The deployment files, checked offline: the Kubernetes manifests (deploy/kubernetes/) and the podman play kube
file (deploy/podman/) with ``kubernetes-validate --strict``, their custom resources (Gateway API, Traefik)
against their CRDs' schemas (tests/crd_schemas/), compose.yaml with ``docker-compose config``, the HAProxy
configurations with ``haproxy -c``, and what the issue asks of each (replicas, probes, security context,
session cookie, secrets, what is published). tests/test_containers.py runs the images themselves.

docker-compose and haproxy are Debian packages (.ci/run installs them): their checks are skipped when they are
missing, except in CI (CI=true), where that is a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
KUBERNETES = ROOT / "deploy" / "kubernetes"
PLAY_KUBE = ROOT / "deploy" / "podman" / "residual-lab.yaml"
CONTAINER = ROOT / "deploy" / "container"
CRD_SCHEMAS = Path(__file__).resolve().parent / "crd_schemas"
KUBERNETES_VALIDATE = Path(sys.executable).with_name("kubernetes-validate")
MANIFESTS = sorted(p for p in KUBERNETES.glob("*.yaml") if p.name != "kustomization.yaml") + [PLAY_KUBE]
# kinds kubernetes-validate has no schema for; each is validated against tests/crd_schemas/ below
CUSTOM_KINDS = {
    ("gateway.networking.k8s.io/v1", "Gateway"),
    ("gateway.networking.k8s.io/v1", "HTTPRoute"),
    ("traefik.io/v1alpha1", "IngressRoute"),
}
HEALTH = "/_stcore/health"


def documents(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def all_documents() -> list[tuple[Path, dict]]:
    return [(path, doc) for path in MANIFESTS for doc in documents(path)]


def find(kind: str, name: str, path: Path | None = None) -> dict:
    matches = [d for p, d in all_documents() if d["kind"] == kind and d["metadata"]["name"] == name]
    if path is not None:
        matches = [d for d in documents(path) if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(matches) == 1, (kind, name, len(matches))
    return matches[0]


def need(tool: str) -> str:
    found = shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/usr/bin:/sbin")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{tool} is not installed (.ci/run installs it)", pytrace=False)
        pytest.skip(f"{tool} is not installed")
    return found


# --- kubernetes-validate --strict ------------------------------------------------------------------------------


def kubernetes_validate(*paths: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(KUBERNETES_VALIDATE), "--strict", *map(str, paths)], capture_output=True, text=True, timeout=120
    )


def test_every_manifest_passes_kubernetes_validate_strict():
    result = kubernetes_validate(*MANIFESTS)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    # it skips a kind it has no schema for with a warning and exit status 0: only the custom kinds may be skipped
    # (a misspelt apiVersion of a built-in kind would be skipped the same way)
    skipped = set(re.findall(r"Couldn't find schema for kind (\S+) with api version (\S+)", output))
    assert {(api, kind) for kind, api in skipped} == CUSTOM_KINDS
    passed = re.findall(r"passed for resource (\S+)", output)
    built_in = [d for _p, d in all_documents() if (d["apiVersion"], d["kind"]) not in CUSTOM_KINDS]
    assert len(passed) == len(built_in) >= 9
    print(f"kubernetes-validate --strict: {len(passed)} resources passed, custom kinds skipped: {sorted(skipped)}")


def test_kubernetes_validate_strict_refuses_an_unknown_field(tmp_path):
    deployment = find("Deployment", "residual-lab", KUBERNETES / "app.yaml")
    deployment["spec"]["template"]["spec"]["containers"][0]["livenessprobe"] = {"exec": {"command": ["true"]}}
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump(deployment))
    result = kubernetes_validate(broken)
    assert result.returncode != 0
    assert "livenessprobe" in result.stdout + result.stderr


# --- the custom resources against their CRDs' schemas -----------------------------------------------------------


def strict(schema):
    """The CRD's schema as the API server applies it: an object with listed properties takes no others."""
    if isinstance(schema, list):
        return [strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: strict(v) for k, v in schema.items()}
    if "properties" in schema and "additionalProperties" not in schema:
        if not schema.get("x-kubernetes-preserve-unknown-fields"):
            out["additionalProperties"] = False
    return out


def crd_validator(api_version: str, kind: str) -> jsonschema.Draft7Validator:
    group, version = api_version.split("/")
    schema = json.loads((CRD_SCHEMAS / f"{group}-{version}-{kind}.json").read_text())
    return jsonschema.Draft7Validator(strict(schema))


def custom_resources() -> list[tuple[Path, dict]]:
    return [(p, d) for p, d in all_documents() if (d["apiVersion"], d["kind"]) in CUSTOM_KINDS]


def test_custom_resources_match_their_crd_schemas():
    checked = []
    for path, doc in custom_resources():
        errors = [
            f"{'.'.join(map(str, e.path))}: {e.message}"
            for e in crd_validator(doc["apiVersion"], doc["kind"]).iter_errors(doc)
        ]
        assert errors == [], (path.name, doc["kind"], errors)
        checked.append(doc["kind"])
    assert sorted(checked) == ["Gateway", "HTTPRoute", "IngressRoute"]


def first_rule(route: dict) -> dict:
    return route["spec"]["rules"][0]


@pytest.mark.parametrize(
    "kind, mistake",
    [
        ("HTTPRoute", lambda d: first_rule(d).update(sessionPersistance=first_rule(d)["sessionPersistence"])),
        ("HTTPRoute", lambda d: first_rule(d)["sessionPersistence"].update(type="Cookies")),
        ("HTTPRoute", lambda d: first_rule(d)["timeouts"].update(request="4 hours")),
        ("IngressRoute", lambda d: d["spec"]["routes"][0]["services"][0]["sticky"]["cookie"].update(samesite="lax")),
    ],
)
def test_crd_schemas_refuse_a_mistake(kind, mistake):
    doc = next(d for _p, d in custom_resources() if d["kind"] == kind)
    mistake(doc)
    assert list(crd_validator(doc["apiVersion"], doc["kind"]).iter_errors(doc))


# --- what the issue asks of the manifests ----------------------------------------------------------------------


def test_app_deployment_replicas_probes_resources_and_security():
    deployment = find("Deployment", "residual-lab", KUBERNETES / "app.yaml")
    assert deployment["spec"]["replicas"] >= 2
    pod = deployment["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] >= 10
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == 10001
    (app,) = pod["containers"]
    for probe in ("startupProbe", "livenessProbe"):
        assert app[probe]["httpGet"]["path"] == HEALTH, probe
    assert app["readinessProbe"]["httpGet"]["path"] == "/_ready"  # the class database answers
    assert app["resources"]["requests"]["cpu"] and app["resources"]["limits"]["memory"]
    security = app["securityContext"]
    assert security["allowPrivilegeEscalation"] is False and security["capabilities"]["drop"] == ["ALL"]
    assert security["readOnlyRootFilesystem"] is True
    env = {e["name"]: e.get("valueFrom", {}).get("secretKeyRef") for e in app["env"]}
    assert env["STREAMLIT_SERVER_COOKIE_SECRET"] == {"name": "residual-lab", "key": "cookie-secret"}
    assert env["RESIDUAL_LAB_DATABASE_URL"] == {"name": "residual-lab", "key": "database-url"}
    service = find("Service", "residual-lab", KUBERNETES / "app.yaml")
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]


def test_every_secret_key_a_manifest_reads_is_in_the_secret():
    secret = find("Secret", "residual-lab", KUBERNETES / "secret.yaml")
    refs = set()
    for path in KUBERNETES.glob("*.yaml"):
        refs |= set(re.findall(r"secretKeyRef: \{name: (\S+), key: (\S+)\}", path.read_text()))
    assert refs == {("residual-lab", key) for key in secret["stringData"]}
    # the placeholders are refused by the image's entry point (deploy/container/start.py)
    assert all("REPLACE-ME" in value for value in secret["stringData"].values())


def test_edge_routes_keep_a_browser_on_one_replica_by_cookie():
    route = find("HTTPRoute", "residual-lab")
    (rule,) = route["spec"]["rules"]
    assert rule["sessionPersistence"]["type"] == "Cookie" and rule["sessionPersistence"]["sessionName"]
    assert rule["timeouts"]["request"] == "0s"  # no limit on a WebSocket's lifetime
    assert rule["backendRefs"] == [{"name": "residual-lab", "port": 8501}]
    ingress = find("IngressRoute", "residual-lab")
    (service,) = ingress["spec"]["routes"][0]["services"]
    assert service["name"] == "residual-lab" and service["sticky"]["cookie"]["name"]


def test_postgres_statefulset_has_a_volume_claim_and_its_service():
    statefulset = find("StatefulSet", "residual-lab-postgres", KUBERNETES / "postgres.yaml")
    (claim,) = statefulset["spec"]["volumeClaimTemplates"]
    mounts = statefulset["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
    assert {"name": claim["metadata"]["name"], "mountPath": "/var/lib/postgresql/data"} in mounts
    service = find("Service", statefulset["spec"]["serviceName"], KUBERNETES / "postgres.yaml")
    assert service["spec"]["clusterIP"] == "None"
    secret = find("Secret", "residual-lab", KUBERNETES / "secret.yaml")
    assert "@residual-lab-postgres:5432/" in secret["stringData"]["database-url"]


def test_kustomization_lists_existing_manifests():
    kustomization = yaml.safe_load((KUBERNETES / "kustomization.yaml").read_text())
    listed = kustomization["resources"]
    assert all((KUBERNETES / name).is_file() for name in listed)
    assert "secret.yaml" not in listed  # made by hand with real values, never applied with the placeholders


def test_play_kube_file_is_what_podman_runs():
    kinds = [d["kind"] for d in documents(PLAY_KUBE)]
    # podman play kube ignores Services and StatefulSets, and a Secret in the same file breaks secretKeyRef
    assert kinds == ["Deployment", "Deployment", "Deployment"]
    published = []
    for doc in documents(PLAY_KUBE):
        for container in doc["spec"]["template"]["spec"]["containers"]:
            for port in container.get("ports", []):
                published.append((doc["metadata"]["name"], port.get("hostIP"), port.get("hostPort")))
    # a containerPort without hostPort would be published on every address: only the proxy, on loopback
    assert published == [("residual-lab-proxy", "127.0.0.1", 8501)]
    app = find("Deployment", "residual-lab", PLAY_KUBE)
    assert app["spec"]["replicas"] == 2
    # the proxy finds the replicas by their pod names, NAME-pod-0 and NAME-pod-1
    config = (CONTAINER / "haproxy-pods.cfg").read_text()
    assert "residual-lab-pod-0:8501" in config and "residual-lab-pod-1:8501" in config
    probe = app["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["exec"]["command"]
    assert probe == ["python", "/app/deploy/container/healthcheck.py"]  # podman splits exec probes on spaces


# --- HAProxy and Compose -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["haproxy-pods.cfg", "haproxy-compose.cfg"])
def test_haproxy_configs_are_valid_and_keep_the_proxy_rules(name):
    haproxy = need("haproxy")
    path = CONTAINER / name
    result = subprocess.run([haproxy, "-c", "-f", str(path)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [line.split("#")[0].strip() for line in path.read_text().splitlines()]
    assert "retry-on conn-failure empty-response response-timeout" in lines
    assert lines.index("http-request del-header X-Forwarded-For") > 0 and "option forwardfor" in lines
    assert any(line.startswith("cookie RLSERVER insert indirect nocache httponly") for line in lines)
    assert "timeout tunnel 4h" in lines and "option redispatch" in lines


def test_compose_file_parses_with_docker_compose():
    compose = need("docker-compose")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RESIDUAL_LAB_")}  # the file's defaults
    result = subprocess.run(
        [compose, "-f", str(ROOT / "compose.yaml"), "config"], capture_output=True, text=True, timeout=60, env=env
    )
    assert result.returncode == 0, result.stderr
    config = yaml.safe_load(result.stdout)
    services = config["services"]
    assert set(services) == {"app", "postgres", "haproxy"}
    assert services["app"]["deploy"]["replicas"] >= 2
    assert set(services["app"]["secrets"][i]["source"] for i in range(2)) == {"cookie-secret", "database-url"}
    assert "ports" not in services["app"] and "ports" not in services["postgres"]
    (port,) = services["haproxy"]["ports"]
    if isinstance(port, str):  # docker-compose 1.x writes the short form
        port = dict(zip(("host_ip", "published", "target"), port.split(":")))
    target = str(port["target"]).removesuffix("/tcp")
    assert (port["host_ip"], str(port["published"]), target) == ("127.0.0.1", "8501", "8080")
    assert services["postgres"]["healthcheck"]["test"][1] == "pg_isready"


# --- one server secret for every replica (docs/deployment.md) -------------------------------------------------------


def _app_env(path: Path) -> dict:
    app = find("Deployment", "residual-lab", path)["spec"]["template"]["spec"]["containers"][0]
    return {e["name"]: e.get("valueFrom", {}).get("secretKeyRef", e.get("value")) for e in app["env"]}


def test_every_deployment_file_gives_the_replicas_one_server_secret(tmp_path):
    shared = {"name": "residual-lab", "key": "lab-secret"}
    assert _app_env(KUBERNETES / "app.yaml")["RESIDUAL_LAB_SECRET"] == shared
    assert _app_env(PLAY_KUBE)["RESIDUAL_LAB_SECRET"] == shared
    assert "lab-secret" in find("Secret", "residual-lab", KUBERNETES / "secret.yaml")["stringData"]
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    app = compose["services"]["app"]
    assert app["environment"]["RESIDUAL_LAB_SECRET_FILE"] == "/run/secrets/lab-secret"
    assert "lab-secret" in app["secrets"] and compose["secrets"]["lab-secret"]["file"].endswith("/lab-secret")
    # make-secrets generates it (random, 64 hex characters) and puts it into podman's secret too
    subprocess.run([str(CONTAINER / "make-secrets"), str(tmp_path / "s")], check=True, capture_output=True)
    made = (tmp_path / "s" / "lab-secret").read_text().strip()
    assert re.fullmatch(r"[0-9a-f]{64}", made) and made != (tmp_path / "s" / "cookie-secret").read_text().strip()
    podman_secret = json.loads((tmp_path / "s" / "podman-secret.json").read_text())
    import base64

    assert base64.b64decode(podman_secret["lab-secret"]).decode() == made
    # the image's entry point reads it from its file, and refuses the manifests' placeholder
    placeholder = tmp_path / "placeholder"
    placeholder.write_text("REPLACE-ME-with-64-random-hex-characters\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RESIDUAL_LAB_", "STREAMLIT_"))}
    refused = subprocess.run(
        [sys.executable, str(CONTAINER / "start.py")],
        env={**env, "RESIDUAL_LAB_SECRET_FILE": str(placeholder)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert refused.returncode == 2 and "RESIDUAL_LAB_SECRET still holds the placeholder" in refused.stderr


def test_readiness_probes_ask_the_database_and_liveness_stays_health():
    app = find("Deployment", "residual-lab", PLAY_KUBE)["spec"]["template"]["spec"]["containers"][0]
    assert app["readinessProbe"]["exec"]["command"] == ["python", "/app/deploy/container/healthcheck.py", "ready"]
    assert app["livenessProbe"]["exec"]["command"] == ["python", "/app/deploy/container/healthcheck.py"]
    k8s = find("Deployment", "residual-lab", KUBERNETES / "app.yaml")["spec"]["template"]["spec"]["containers"][0]
    assert (k8s["readinessProbe"]["httpGet"]["path"], k8s["livenessProbe"]["httpGet"]["path"]) == ("/_ready", HEALTH)

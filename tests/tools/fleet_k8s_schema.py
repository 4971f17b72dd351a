"""fleet_k8s_schema.py - checks a Kubernetes manifest against the API models of the Kubernetes
Python client (Debian's python3-kubernetes), for `make test-fleet` (tests/e2e/fleet_slurm.sh).

Usage: fleet_k8s_schema.py MANIFEST
The client's model classes are generated from the Kubernetes OpenAPI schema: each lists its
fields (attribute_map: the JSON names) and their types (openapi_types). Every object of the
manifest is walked against them from its kind (batch/v1 Job -> V1Job): an unknown field, a value
of the wrong type or an unknown enum-like kind fails. Then the client deserializes the manifest
into its models, whose setters refuse a missing required field (e.g. a container's name).
Prints what it checked and exits 1 on the first problem.
"""
import re
import sys

import kubernetes.client as k8s
import yaml

PRIMITIVE = {"str": str, "int": int, "bool": bool, "float": (int, float), "object": object,
             "datetime": str, "date": str}


def walk(value, typ, path):
    m = re.match(r"list\[(.*)\]$", typ)
    if m:
        if not isinstance(value, list):
            raise ValueError(f"{path}: want a list ({typ})")
        for i, v in enumerate(value):
            walk(v, m.group(1), f"{path}[{i}]")
        return
    m = re.match(r"dict\(str, (.*)\)$", typ)
    if m:
        if not isinstance(value, dict):
            raise ValueError(f"{path}: want a mapping ({typ})")
        for k, v in value.items():
            walk(v, m.group(1), f"{path}.{k}")
        return
    if typ in PRIMITIVE:
        if not isinstance(value, PRIMITIVE[typ]) or (typ == "int" and isinstance(value, bool)):
            raise ValueError(f"{path}: want {typ}, not {type(value).__name__} {value!r}")
        return
    cls = getattr(k8s, typ)
    if not isinstance(value, dict):
        raise ValueError(f"{path}: want an object ({typ})")
    fields = {json: attr for attr, json in cls.attribute_map.items()}
    for key, v in value.items():
        if key not in fields:
            raise ValueError(f"{path}: unknown field '{key}' of {typ}")
        walk(v, cls.openapi_types[fields[key]], f"{path}.{key}")


def main():
    docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d is not None]
    api = k8s.ApiClient()
    for d in docs:
        group_version, kind = d.get("apiVersion", ""), d.get("kind", "")
        version = group_version.split("/")[-1]
        typ = version[0].upper() + version[1:] + kind
        if not hasattr(k8s, typ):
            print(f"{sys.argv[1]}: no model {typ} for {group_version} {kind}")
            return 1
        try:
            walk(d, typ, kind)
            obj = api._ApiClient__deserialize(d, typ)
        except (ValueError, TypeError) as e:
            print(f"{sys.argv[1]}: {e}")
            return 1
        spec = obj.spec
        print(f"{kind} {obj.metadata.name}: every field known to {typ} (python3-kubernetes "
              f"{k8s.__version__ if hasattr(k8s, '__version__') else ''}); completionMode "
              f"{spec.completion_mode}, completions {spec.completions}, parallelism "
              f"{spec.parallelism}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

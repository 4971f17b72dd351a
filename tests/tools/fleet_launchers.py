"""fleet_launchers.py - checks of the fleet launchers of docs/fleet/ (run by tests/e2e/e2e_fleet.sh):
the GitHub Actions matrix workflow, the Slurm job-array script and the Kubernetes Indexed Job.

Usage: fleet_launchers.py DOCS_DIR FLEET_MD ALLOCAB
Parses each with PyYAML (the script's #SBATCH lines as they are), checks that it uses its
scheduler's own mechanisms as docs/fleet.md says (a matrix whose legs upload one artifact each
and a merge job that downloads them with pattern and merge-multiple; --array and --exclusive;
completionMode Indexed with one pod per node), dry-parses every allocab command line against
that command's --help (tests/tools/ci_workflow.py), and checks that docs/fleet.md quotes each file
verbatim. The manifest is checked for its structure here; `make test-fleet` checks it against
the Kubernetes API models of python3-kubernetes (tests/tools/fleet_k8s_schema.py). Prints one "ok -
..." or "not ok - ..." line per check.
"""
import os
import re
import shlex
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ci_workflow import allocab_commands, options_of  # noqa: E402

failed = False


def check(cond, name, detail=""):
    global failed
    if cond:
        print(f"ok - fleet launchers: {name}")
    else:
        failed = True
        print(f"not ok - fleet launchers: {name}: {detail}")


def dry_parse(allocab, where, script, helps, subs):
    """Every allocab command line of script names a command and only options of its --help."""
    n = 0
    for sub, args in allocab_commands(script):
        n += 1
        check(sub in subs, f"{where}: allocab {sub} exists", f"commands: {sorted(subs)}")
        if sub not in subs:
            continue
        if sub not in helps:
            helps[sub] = options_of(allocab, sub)
        for a in args:
            if a.startswith("-") and a != "-":
                name = a.split("=", 1)[0]
                check(name in helps[sub], f"{where}: allocab {sub} knows {name}",
                      f"not in `allocab {sub} --help`")
    return n


def quoted(md, text, lang):
    blocks = [b for _, b in re.findall(r"(`{3,})" + lang + r"\n(.*?)^\1$", md, re.S | re.M)]
    return text in blocks


def check_workflow(path, md, allocab, helps, subs):
    text = open(path).read()
    wf = yaml.safe_load(text)
    jobs = wf.get("jobs", {})
    bench, merge = jobs.get("bench", {}), jobs.get("merge", {})
    check(set(jobs) == {"bench", "merge"}, "workflow: a bench job and a merge job", str(list(jobs)))
    matrix = bench.get("strategy", {}).get("matrix", {})
    check(isinstance(matrix.get("runner"), list) and len(matrix["runner"]) >= 2
          and bench.get("runs-on") == "${{ matrix.runner }}",
          "workflow: the bench job is a matrix over runners, one leg per runner", str(matrix))
    check(bench.get("strategy", {}).get("fail-fast") is False,
          "workflow: one failed leg does not cancel the others")
    env = bench.get("env", {})
    check("matrix.runner" in str(env.get("ALLOCAB_LABEL")) and "job-index" in str(env.get("ALLOCAB_SHARD")),
          "workflow: each leg's label and shard come from the matrix", str(env))
    ups = [s for s in bench.get("steps", []) if str(s.get("uses", "")).startswith("actions/upload-artifact@v4")]
    check(len(ups) == 1 and "matrix.runner" in str(ups[0].get("with", {}).get("name"))
          and str(ups[0].get("if")) == "always()",
          "workflow: each leg uploads its results as an artifact of its own (upload-artifact@v4)",
          str(ups))
    check(merge.get("needs") == "bench" and str(merge.get("if")) == "always()",
          "workflow: the merge job waits for every leg and runs when some failed",
          f"needs={merge.get('needs')} if={merge.get('if')}")
    downs = [s for s in merge.get("steps", []) if str(s.get("uses", "")).startswith("actions/download-artifact@v4")]
    w = downs[0].get("with", {}) if downs else {}
    check(downs and w.get("pattern") == "allocab-*" and w.get("merge-multiple") is True,
          "workflow: the merge job downloads every leg's artifact (pattern, merge-multiple)", str(w))
    runs = {}
    for job_name, job in jobs.items():
        for s in job.get("steps", []):
            if "run" in s:
                runs[f"{job_name}/{s.get('name', '')}"] = s["run"]
    n = sum(dry_parse(allocab, f"workflow {k}", v, helps, subs) for k, v in runs.items())
    merged = " ".join(runs.values())
    check("allocab merge" in merged and "allocab gate" in merged and "--on pooled" in merged
          and "--on each-machine" in merged,
          f"workflow: merges and gates the fleet, pooled and per machine ({n} command lines)")
    verdict = merge.get("steps", [])[-1] if merge.get("steps") else {}
    check(str(verdict.get("if")) == "always()" and "POOLED" in str(verdict.get("env", {})),
          "workflow: the last step turns the gates' exit codes into the job's result")
    check(quoted(md, text, "yaml"), "workflow: docs/fleet.md quotes it verbatim")


def check_sbatch(path, md, allocab, helps, subs):
    text = open(path).read()
    directives = dict(re.findall(r"^#SBATCH\s+(--[a-z-]+)(?:=(\S+))?", text, re.M))
    check(text.startswith("#!/bin/bash\n"), "slurm: a bash batch script")
    check("--array" in directives and re.match(r"^\d+-\d+", directives["--array"] or ""),
          "slurm: a job array (#SBATCH --array)", str(directives))
    check("--exclusive" in directives, "slurm: every task has its node to itself (--exclusive)")
    syntax = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
    check(syntax.returncode == 0, "slurm: bash -n accepts it", syntax.stderr.strip())
    check("SLURM_ARRAY_TASK_ID" in text and "SLURMD_NODENAME" in text,
          "slurm: the task's index and node come from Slurm's environment")
    body = text.replace("$ALLOCAB_BENCH_ARGS", shlex.join(["-a", "system,mimalloc", "--budget", "600"]))
    body = body.replace('"$ALLOCAB"', "allocab")
    n = dry_parse(allocab, "slurm", body.replace("exec allocab", "allocab"), helps, subs)
    check(n >= 1, f"slurm: runs allocab bench ({n} command lines)")
    check(quoted(md, text, "bash"), "slurm: docs/fleet.md quotes it verbatim")


def check_manifest(path, md, allocab, helps, subs):
    text = open(path).read()
    docs = [d for d in yaml.safe_load_all(text) if d is not None]
    check(len(docs) == 1 and docs[0].get("apiVersion") == "batch/v1" and docs[0].get("kind") == "Job",
          "kubernetes: one batch/v1 Job")
    job = docs[0] if docs else {}
    spec = job.get("spec", {})
    check(spec.get("completionMode") == "Indexed", "kubernetes: completionMode Indexed")
    check(isinstance(spec.get("completions"), int) and spec.get("completions") >= 2
          and isinstance(spec.get("parallelism"), int) and spec.get("parallelism") <= spec.get("completions"),
          "kubernetes: completions and parallelism are counts, parallelism <= completions",
          f"{spec.get('completions')} {spec.get('parallelism')}")
    pod = spec.get("template", {}).get("spec", {})
    check(pod.get("restartPolicy") in ("Never", "OnFailure"), "kubernetes: a Job's restartPolicy")
    anti = pod.get("affinity", {}).get("podAntiAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution", [])
    labels = spec.get("template", {}).get("metadata", {}).get("labels", {})
    check(anti and anti[0].get("topologyKey") == "kubernetes.io/hostname"
          and anti[0].get("labelSelector", {}).get("matchLabels") == labels,
          "kubernetes: one pod per node (required anti-affinity on its own labels, per hostname)")
    containers = pod.get("containers", [])
    c = containers[0] if containers else {}
    env = {e.get("name"): e for e in c.get("env", [])}
    check(env.get("ALLOCAB_LABEL", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName",
          "kubernetes: the label is the node's name (downward API)")
    check("JOB_COMPLETION_INDEX" not in env,
          "kubernetes: JOB_COMPLETION_INDEX is left to the Job controller")
    mounts = {m.get("name") for m in c.get("volumeMounts", [])}
    vols = {v.get("name") for v in pod.get("volumes", [])}
    check(mounts and mounts <= vols, "kubernetes: every volume mounted is declared", f"{mounts} {vols}")
    script = " ".join(c.get("command", [])[2:] + c.get("args", []))
    n = dry_parse(allocab, "kubernetes", script.replace("exec allocab", "allocab"), helps, subs)
    check(n >= 1, f"kubernetes: runs allocab bench ({n} command lines)")
    check(quoted(md, text, "yaml"), "kubernetes: docs/fleet.md quotes it verbatim")


def main():
    d, md_path, allocab = sys.argv[1:4]
    md = open(md_path).read()
    subs_text = subprocess.run([allocab, "--help"], capture_output=True, text=True).stdout
    subs = set(re.findall(r"^  ([a-z]+) ", subs_text, re.M))
    helps = {}
    check_workflow(os.path.join(d, "allocab-fleet.yml"), md, allocab, helps, subs)
    check_sbatch(os.path.join(d, "allocab-array.sbatch"), md, allocab, helps, subs)
    check_manifest(os.path.join(d, "allocab-indexed-job.yaml"), md, allocab, helps, subs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

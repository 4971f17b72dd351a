"""ci_workflow.py - checks of the CI workflow docs/ci/allocab.yml (run by tests/e2e_ci.sh).

Usage: ci_workflow.py WORKFLOW CI_MD ALLOCAB GATES_OUT
Parses the workflow with PyYAML, checks its shape (triggers, jobs, the steps docs/ci.md promises)
and that every allocab command line it runs names an existing subcommand and only options that
subcommand's --help lists (a dry parse), checks that docs/ci.md quotes the workflow verbatim, and
writes the gate commands as bash arrays to GATES_OUT for the behaviour checks. Prints one
"ok - ..." or "not ok - ..." line per check (tests/run.sh counts them).
"""
import re
import shlex
import subprocess
import sys

import yaml

failed = False


def check(cond, name, detail=""):
    global failed
    if cond:
        print(f"ok - workflow: {name}")
    else:
        failed = True
        print(f"not ok - workflow: {name}: {detail}")


def steps_of(job):
    return job.get("steps") or []


def allocab_commands(script):
    """The allocab invocations of a run script: (subcommand, [args]) up to a shell operator."""
    script = script.replace("\\\n", " ")
    out = []
    for line in script.splitlines():
        try:
            tokens = shlex.split(line, comments=True)
        except ValueError:
            continue
        for i, t in enumerate(tokens):
            if t.split("/")[-1] != "allocab" or i + 1 >= len(tokens):
                continue
            args = []
            for a in tokens[i + 2:]:
                if a in ("|", "||", "&&", ";", ">", ">>", "<", "2>", "2>&1"):
                    break
                args.append(a)
            out.append((tokens[i + 1], args))
    return out


def options_of(allocab, sub):
    text = subprocess.run([allocab, sub, "--help"], capture_output=True, text=True).stdout
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)", text))


def main():
    wf_path, md_path, allocab, gates_out = sys.argv[1:5]
    text = open(wf_path).read()
    wf = yaml.safe_load(text)
    check(isinstance(wf, dict), "parses as a YAML mapping")
    on = wf.get("on", wf.get(True, {}))
    check("pull_request" in on and "push" in on, "runs on pull requests and on pushes", str(on))
    jobs = wf.get("jobs", {})
    check({"allocators", "program"} <= set(jobs), "has the allocators and program jobs", str(list(jobs)))
    alljobs = list(jobs.values())
    uses = [s.get("uses", "") for j in alljobs for s in steps_of(j)]
    runs = {(name, s.get("name", "")): s.get("run", "") for name, j in jobs.items() for s in steps_of(j)}
    check(any(u.startswith("actions/cache/restore@") for u in uses) and
          any(u.startswith("actions/cache/save@") for u in uses),
          "main's baseline is saved on main and restored for pull requests")
    check(any(u.startswith("marocchino/sticky-pull-request-comment@") for u in uses),
          "a sticky pull request comment")
    perms = jobs.get("allocators", {}).get("permissions", {})
    check(perms.get("pull-requests") == "write", "the commenting job may write pull requests", str(perms))
    summary = [r for r in runs.values() if "GITHUB_STEP_SUMMARY" in r]
    check(summary and all("--no-telemetry" in r for r in summary if "allocab compare" in r),
          "step summaries leave telemetry out")

    subs_text = subprocess.run([allocab, "--help"], capture_output=True, text=True).stdout
    subs = set(re.findall(r"^  ([a-z]+) ", subs_text, re.M))
    helps = {}
    gates = []
    ncmd = 0
    cmd_jobs = set()
    for (job, step), script in runs.items():
        for sub, args in allocab_commands(script):
            ncmd += 1
            check(sub in subs, f"{job}/{step}: allocab {sub} exists", f"commands: {sorted(subs)}")
            if sub not in subs:
                continue
            current = sub
            for a in args:
                if a == "--gate" and current == "bench":
                    current = "gate"
                    continue
                if not a.startswith("-") or a == "-":
                    continue
                name = a.split("=", 1)[0]
                if current not in helps:
                    helps[current] = options_of(allocab, current)
                check(name in helps[current], f"{job}/{step}: allocab {sub} knows {name}",
                      f"not in `allocab {current} --help`")
            if sub == "bench" and "--cmd" in args:
                cmd_jobs.add(job)
            if sub == "gate":
                gates.append((job, args))
    check(ncmd >= 6, f"runs allocab bench, gate and compare ({ncmd} command lines)")
    check("program" in cmd_jobs, "the program job benches your commands (--cmd)")
    check(any("--against" in a for _, a in gates), "a gate against main's baseline (--against)")
    check(any("--on" in a and "geomean" in a for _, a in gates), "a gate on the geometric mean")

    md = open(md_path).read()
    blocks = [b for _, b in re.findall(r"(`{3,})yaml\n(.*?)^\1$", md, re.S | re.M)]
    check(text in blocks, "docs/ci.md quotes docs/ci/allocab.yml verbatim")

    with open(gates_out, "w") as f:
        for i, (job, args) in enumerate(gates):
            f.write(f"gate_job[{i}]={shlex.quote(job)}\n")
            f.write(f"gate_{i}=({' '.join(shlex.quote(a) for a in args)})\n")
        f.write(f"ngates={len(gates)}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""ci_workflow.py - checks of the CI workflow docs/ci/allocab.yml (run by tests/e2e/e2e_ci.sh); it is
run end to end by tests/e2e/e2e_ci_user.sh.

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
            at_command = i == 0 or tokens[i - 1] in ("|", "||", "&&", ";", "then", "do", "else", "!")
            if t.split("/")[-1] != "allocab" or i + 1 >= len(tokens) or not at_command:
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
    check("allocab" in jobs, "has the allocab job", str(list(jobs)))
    job = jobs.get("allocab", {})
    steps = steps_of(job)
    uses = [s.get("uses", "") for s in steps]
    runs = {("allocab", s.get("name", "")): s.get("run", "") for s in steps}
    pinned = [u for u in uses if u and re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u)
              and re.search(re.escape(u) + r" # v\d", text)]
    check(pinned and len(pinned) == len([u for u in uses if u]),
          "every action is pinned by a full commit, its tag in a comment",
          str([u for u in uses if u and u not in pinned]))
    check(any(u.startswith("actions/cache@") for u in uses),
          "allocab is cached between runs (actions/cache)")
    install = [r for r in runs.values() if "make" in r and "install" in r and "ALLOCAB_REF" in r]
    check(install and re.search(r"deps\.sh\"? --runtime", install[0]),
          "an install step builds the pinned allocab on a cache miss and installs its runtime "
          "libraries every time")
    comment = [s for s in steps if "comment" in s.get("uses", "")]
    check(comment and "head.repo.full_name == github.repository" in str(comment[0].get("if", ""))
          and comment[0].get("continue-on-error") is True,
          "the pull request comment is skipped for forks and can never fail the job",
          str(comment[0] if comment else "no comment step"))
    perms = job.get("permissions", {})
    check(perms.get("pull-requests") == "write", "the job may write pull requests", str(perms))
    summary = [r for r in runs.values() if "GITHUB_STEP_SUMMARY" in r]
    check(summary and all("--no-telemetry" in r for r in summary if "allocab compare" in r)
          or any("--no-telemetry" in r for r in runs.values()),
          "the summary leaves telemetry out")
    verdict = [s for s in steps if "CODE" in str(s.get("env", {}))]
    check(verdict and verdict[-1] is steps[-1] and str(verdict[-1].get("if")) == "always()",
          "the last step turns the gate's exit code into the job's result, whatever ran before")

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
            if sub == "bench" and ("--program" in args or ("--cmd" in args and "--expect" in args)):
                cmd_jobs.add(job)
            if sub == "gate":
                gates.append((job, args))
    check(ncmd >= 3, f"runs allocab bench, gate and compare ({ncmd} command lines)")
    check("allocab" in cmd_jobs, "the job benches your program with proof (--program, or --cmd with --expect)")
    check(len(gates) >= 1, f"gates the result ({len(gates)} gates)")

    env = wf.get("env") or {}
    ref = str(env.get("ALLOCAB_REF", ""))
    check(re.fullmatch(r"[0-9a-f]{40}", ref) is not None,
          "ALLOCAB_REF pins a commit (the repository has no tags)", ref)
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if root.returncode == 0:
        known = subprocess.run(["git", "cat-file", "-e", ref + "^{commit}"], capture_output=True)
        shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"],
                                 capture_output=True, text=True).stdout.strip() == "true"
        check(known.returncode == 0 or shallow, "ALLOCAB_REF is a commit of this repository", ref)
    for name in ("PHASE", "WORKLOAD", "ALLOCAB_TIME", "ALLOCAB_ONE_CPU", "ALLOCAB_REPO", "ALLOCAB_BUDGET"):
        check(name in env, f"the workflow has the {name} setting", str(sorted(env)))
    benches = [(st, a) for (j, st), sc in runs.items() for sub, a in allocab_commands(sc) if sub == "bench"]
    check(benches and all("--quiet" not in a and "-q" not in a for _, a in benches),
          "the bench step prints its progress (no --quiet)", str(benches))
    check(benches and all("-w" in a or "--workload" in a for _, a in benches),
          "the bench names the workload WORKLOAD", str(benches))
    check(str(env.get("ALLOCAB_ONE_CPU", "x")) == "" and benches
          and all("${ALLOCAB_ONE_CPU:+--one-cpu}" in runs[("allocab", st)] for st, _ in benches),
          "the bench runs solo by default; ALLOCAB_ONE_CPU: yes opts in to --one-cpu",
          str(env.get("ALLOCAB_ONE_CPU")))
    gate_steps = [s for s in steps if s.get("id") == "gate"]
    gate_run = gate_steps[0].get("run", "") if gate_steps else ""
    check("--regime steady" in gate_run and '"$PHASE"' in gate_run,
          "the gate judges PHASE's steady state when PHASE is set", gate_run)
    bench_gate = [a[a.index("--gate") + 1:] for _, a in benches if "--gate" in a]
    gate_args = [a for j, a in gates if j == "allocab"]
    check(bench_gate and gate_args and bench_gate[0] == gate_args[0][1:]
          and '"${phase[@]}"' in str([runs[("allocab", st)] for st, _ in benches]),
          "the bench stops on the gate step's own question (--gate with the same options and PHASE)",
          f"bench --gate {bench_gate}, gate {gate_args}")
    verdict_run = str(verdict[-1].get("run", "")) if verdict else ""
    for st in ("Install allocab", "Build your program", "Bench it"):
        check(st in verdict_run, f"the verdict names the step '{st}' when it failed", verdict_run)

    md = open(md_path).read()
    blocks = [b for _, b in re.findall(r"(`{3,})yaml\n(.*?)^\1$", md, re.S | re.M)]
    check(text in blocks, "docs/ci.md quotes docs/ci/allocab.yml verbatim")
    for gone in ("benches once and gates twice", "promise's bound", "regression gate's 10%"):
        check(gone not in md, f"docs/ci.md describes only the shipped file (no \"{gone}\")")

    with open(gates_out, "w") as f:
        for i, (job, args) in enumerate(gates):
            f.write(f"gate_job[{i}]={shlex.quote(job)}\n")
            f.write(f"gate_{i}=({' '.join(shlex.quote(a) for a in args)})\n")
        f.write(f"ngates={len(gates)}\n")
        f.write(f"gate_step={shlex.quote(gate_run)}\n")
        for k, v in env.items():
            f.write(f"wf_{k}={shlex.quote(str(v))}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

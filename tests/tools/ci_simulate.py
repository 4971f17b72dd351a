"""ci_simulate.py - runs one job of a GitHub Actions workflow on this machine, step by step, the
way a runner would, for tests/e2e/e2e_ci_user.sh (docs/ci.md, "Tested here").

Usage: ci_simulate.py WORKFLOW JOB WORKSPACE STATE [--event pull_request|push] [--fork]
                      [--set NAME=VALUE]... [--no-apt]

Runs the job's steps in order in WORKSPACE with the workflow's and the job's env (each --set
replaces one, as a user edits the file), GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and
GITHUB_STEP_SUMMARY files, and the step's shell (bash -eo pipefail for `shell: bash`, else
sh -e). Each step's `if:` is evaluated by a small evaluator of the expressions GitHub Actions
defines (always(), success(), failure(), ==, !=, &&, ||, !, strings, github.*, steps.*.outputs.*,
steps.*.outcome (success, failure, or skipped for a step whose if: was false), env.*, runner.*,
hashFiles()); an expression it cannot read stops the simulation with exit 2, so
a workflow never passes on a condition the simulator misread. `uses:` steps are simulated:
actions/checkout (the workspace is the checkout), actions/cache (STATE/cache holds the saved
paths by key: restored before, saved after a successful job when the key missed),
actions/upload-artifact (recorded), a pull request comment (recorded, never sent). With --no-apt
a step whose command starts with apt-get is recorded as skipped (the machine has the tools).

Prints one line per step: "step N NAME: ran (exit E)", "skipped (if: ...)" or "simulated: ...",
and at the end "job: success" or "job: failure"; exits 0 for a successful job, 1 for a failed one.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml


class Unreadable(Exception):
    pass


TOKEN = re.compile(r"\s*(\|\||&&|==|!=|!|\(|\)|,|'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_.\-]*)")


def tokens(expr):
    out, i = [], 0
    expr = expr.strip()
    while i < len(expr):
        m = TOKEN.match(expr, i)
        if not m or m.end() == i:
            raise Unreadable(f"cannot read {expr[i:]!r} in {expr!r}")
        out.append(m.group(1))
        i = m.end()
    return out


class Evaluator:
    def __init__(self, ctx, status, workspace):
        self.ctx, self.status, self.workspace = ctx, status, workspace

    def value(self, name):
        node = self.ctx
        for part in name.split("."):
            if not isinstance(node, dict):
                return ""
            node = node.get(part, "")
        return node if node is not None else ""

    def call(self, name, args):
        if name == "always":
            return True
        if name == "success":
            return self.status == "success"
        if name == "failure":
            return self.status == "failure"
        if name == "cancelled":
            return False
        if name == "hashFiles":
            found = any(os.path.isfile(os.path.join(self.workspace, a)) for a in args)
            return "hash" if found else ""
        raise Unreadable(f"unknown function {name}()")

    def parse(self, expr):
        self.toks, self.i = tokens(expr), 0
        v = self.or_()
        if self.i != len(self.toks):
            raise Unreadable(f"trailing {self.toks[self.i:]} in {expr!r}")
        return v

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def or_(self):
        v = self.and_()
        while self.peek() == "||":
            self.take()
            r = self.and_()
            v = v or r
        return v

    def and_(self):
        v = self.cmp()
        while self.peek() == "&&":
            self.take()
            r = self.cmp()
            v = v and r
        return v

    def cmp(self):
        v = self.unary()
        if self.peek() in ("==", "!="):
            op = self.take()
            r = self.unary()
            return (str(v) == str(r)) if op == "==" else (str(v) != str(r))
        return v

    def unary(self):
        if self.peek() == "!":
            self.take()
            return not self.unary()
        return self.atom()

    def atom(self):
        t = self.take()
        if t is None:
            raise Unreadable("expression ends early")
        if t == "(":
            v = self.or_()
            if self.take() != ")":
                raise Unreadable("missing )")
            return v
        if t.startswith("'"):
            return t[1:-1].replace("''", "'")
        if t in ("true", "false"):
            return t == "true"
        if self.peek() == "(":
            self.take()
            args = []
            while self.peek() != ")":
                args.append(self.or_())
                if self.peek() == ",":
                    self.take()
                elif self.peek() != ")":
                    raise Unreadable(f"bad arguments of {t}()")
            self.take()
            return self.call(t, args)
        return self.value(t)


def substitute(text, ev):
    """The value of a string with ${{ ... }} expressions in it."""
    if not isinstance(text, str):
        return text

    def one(m):
        v = ev.parse(m.group(1))
        return "" if v is None else ("true" if v is True else "false" if v is False else str(v))

    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def read_kv(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                out[k] = v
    return out


def main():
    args = sys.argv[1:]
    if len(args) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    wf_path, job_id, workspace, state = args[:4]
    event, fork, sets, no_apt = "pull_request", False, {}, False
    rest = args[4:]
    while rest:
        a = rest.pop(0)
        if a == "--event":
            event = rest.pop(0)
        elif a == "--fork":
            fork = True
        elif a == "--set":
            k, v = rest.pop(0).split("=", 1)
            sets[k] = v
        elif a == "--no-apt":
            no_apt = True
        else:
            print(f"ci_simulate: unknown argument {a}", file=sys.stderr)
            return 2
    wf = yaml.safe_load(open(wf_path))
    job = wf["jobs"][job_id]
    os.makedirs(os.path.join(state, "cache"), exist_ok=True)
    files = {n: os.path.join(state, n) for n in ("output", "env", "path", "summary")}
    for f in files.values():
        open(f, "w").close()
    ctx = {
        "github": {
            "event_name": event,
            "repository": "team/model",
            "ref": "refs/pull/7/merge" if event == "pull_request" else "refs/heads/main",
            "event": {"pull_request": {"head": {"repo": {
                "full_name": "someone/model" if fork else "team/model"}}}},
        },
        "runner": {"os": "Linux", "arch": "X64"},
        "env": {},
        "steps": {},
    }
    status = "success"
    ev = Evaluator(ctx, status, workspace)
    env = {}
    for k, v in list((wf.get("env") or {}).items()) + list((job.get("env") or {}).items()):
        ctx["env"] = env
        env[k] = str(substitute(v, ev))
    env.update(sets)
    ctx["env"] = env
    extra_path = []
    saves = []
    for n, step in enumerate(job.get("steps") or [], 1):
        name = step.get("name") or step.get("uses") or f"step {n}"
        ev.status = status
        cond = step.get("if", "success()")
        cond = cond[3:-2] if isinstance(cond, str) and cond.startswith("${{") else cond
        try:
            run_it = bool(ev.parse(str(cond)))
        except Unreadable as e:
            print(f"ci_simulate: step {n} {name}: if: {e}", file=sys.stderr)
            return 2
        if not run_it:
            print(f"step {n} {name}: skipped (if: {cond})")
            if "id" in step:
                ctx["steps"][step["id"]] = {"outputs": {}, "outcome": "skipped"}
            continue
        outputs = {}
        uses = step.get("uses", "")
        try:
            with_ = {k: substitute(v, ev) for k, v in (step.get("with") or {}).items()}
            step_env = {k: substitute(v, ev) for k, v in (step.get("env") or {}).items()}
        except Unreadable as e:
            print(f"ci_simulate: step {n} {name}: {e}", file=sys.stderr)
            return 2
        rc = 0
        if uses.startswith("actions/checkout@"):
            print(f"step {n} {name}: simulated: the workspace is the checkout")
        elif uses.startswith("actions/cache@"):
            key = with_["key"]
            path = with_["path"]
            saved = os.path.join(state, "cache", re.sub(r"[^A-Za-z0-9_.-]", "_", key))
            if os.path.isdir(saved):
                if os.path.exists(path):
                    shutil.rmtree(path)
                shutil.copytree(saved, path, symlinks=True)
                outputs["cache-hit"] = "true"
                print(f"step {n} {name}: simulated: cache hit for {key}")
            else:
                outputs["cache-hit"] = "false"
                saves.append((path, saved))
                print(f"step {n} {name}: simulated: cache miss for {key}")
        elif uses.startswith("actions/upload-artifact@"):
            print(f"step {n} {name}: simulated: artifact {with_.get('name')} of {with_.get('path')}")
        elif "comment" in uses:
            print(f"step {n} {name}: simulated: would comment with {with_.get('path')}")
        elif uses:
            print(f"ci_simulate: step {n} {name}: no simulation of {uses}", file=sys.stderr)
            return 2
        else:
            script = step["run"]
            if no_apt and script.lstrip().startswith("apt-get"):
                print(f"step {n} {name}: skipped (apt: the machine has the tools)")
                continue
            shell = step.get("shell", "sh")
            with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False, dir=state) as f:
                f.write(substitute(script, ev))
            cmd = ["bash", "--noprofile", "--norc", "-eo", "pipefail", f.name] if shell == "bash" \
                else ["sh", "-e", f.name]
            penv = {k: v for k, v in os.environ.items()
                    if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")}
            penv.update(env)
            penv.update(step_env)
            penv.update({"GITHUB_OUTPUT": files["output"], "GITHUB_ENV": files["env"],
                         "GITHUB_PATH": files["path"], "GITHUB_STEP_SUMMARY": files["summary"],
                         "GITHUB_EVENT_NAME": event, "GITHUB_WORKSPACE": workspace, "CI": "true"})
            penv.update(read_kv(files["env"]))
            if extra_path:
                penv["PATH"] = ":".join(extra_path) + ":" + penv.get("PATH", "")
            open(files["output"], "w").close()
            rc = subprocess.run(cmd, cwd=workspace, env=penv).returncode
            outputs = read_kv(files["output"])
            extra_path = [p.strip() for p in reversed(open(files["path"]).read().splitlines()) if p.strip()]
            print(f"step {n} {name}: ran (exit {rc})")
            os.unlink(f.name)
        if "id" in step:
            ctx["steps"][step["id"]] = {"outputs": outputs,
                                        "outcome": "success" if rc == 0 else "failure"}
        if rc != 0 and not step.get("continue-on-error"):
            status = "failure"
    if status == "success":
        for path, saved in saves:
            if os.path.isdir(path):
                shutil.copytree(path, saved, symlinks=True)
                print(f"post: cache saved: {os.path.basename(saved)}")
    print(f"job: {status}")
    return 0 if status == "success" else 1


if __name__ == "__main__":
    sys.exit(main())

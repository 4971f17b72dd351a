#!/usr/bin/env bash
# fleet_slurm.sh - `make test-fleet` (not part of `make test`): the launchers of docs/fleet/ run
# where this machine can run them. (1) The Slurm job-array script, submitted as it is to a
# one-node Slurm started here (Debian's slurm-wlm: slurmctld and slurmd on localhost, munge for
# authentication, all in a scratch directory and stopped at the end): every task benches with
# its own shard and label, --exclusive keeps them one after another, and allocab merge reads what
# they wrote. (2) The Kubernetes manifest against the API models of python3-kubernetes
# (tests/tools/fleet_k8s_schema.py). Installs slurm-wlm, munge and python3-kubernetes when they are
# missing and it may; a part that cannot run here is skipped with a message. Prints "ok - ...",
# "not ok - ..." and "SKIP - part: reason" lines and exits 1 when a check failed.
set -u
BUILD=${BUILD:-build}
A=$(cd "$BUILD" && pwd)/allocab
J=$BUILD/tests/jget
PY=/usr/bin/python3
ROOT=$(pwd)
fail=0
ok() { printf 'ok - test-fleet: %s\n' "$1"; }
notok() { printf 'not ok - test-fleet: %s: %s\n' "$1" "$2"; fail=1; }
skip() { printf 'SKIP - test-fleet: %s: %s\n' "$1" "$2"; }

# install PKG... : the Debian packages, with apt-get as root or sudo without a password.
install() {
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y -qq "$@" >/dev/null 2>&1
	elif sudo -n true 2>/dev/null; then
		sudo -n apt-get install -y -qq "$@" >/dev/null 2>&1
	else
		return 1
	fi
}

W=$(mktemp -d "${TMPDIR:-/tmp}/allocab-test-fleet.XXXXXX")
pids=()
stop_daemons() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	pids=()
}
trap 'stop_daemons; rm -rf "$W"' EXIT

# --- Slurm ---------------------------------------------------------------------------------------
slurm() {
	local jid n state
	if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
		install slurm-wlm munge || { skip "Slurm job array" "slurm-wlm and munge are not installed and cannot be (run as root)"; return; }
	fi
	if [ "$(id -u)" != 0 ]; then
		skip "Slurm job array" "a one-node Slurm needs root to start slurmd"
		return
	fi
	mkdir -p "$W/etc" "$W/state" "$W/spool" "$W/run" "$W/results"
	dd if=/dev/urandom of="$W/munge.key" bs=1024 count=1 status=none
	chmod 600 "$W/munge.key"
	munged -F --force -S "$W/munge.socket" --key-file="$W/munge.key" --pid-file="$W/run/munged.pid" \
		--log-file="$W/munged.log" --seed-file="$W/munge.seed" >/dev/null 2>&1 &
	pids+=($!)
	cat >"$W/etc/slurm.conf" <<-EOF
		ClusterName=allocabfleet
		SlurmctldHost=localhost
		SlurmUser=root
		SlurmdUser=root
		AuthType=auth/munge
		AuthInfo=socket=$W/munge.socket
		CredType=cred/munge
		StateSaveLocation=$W/state
		SlurmdSpoolDir=$W/spool
		SlurmctldPidFile=$W/run/slurmctld.pid
		SlurmdPidFile=$W/run/slurmd.pid
		SlurmctldLogFile=$W/slurmctld.log
		SlurmdLogFile=$W/slurmd.log
		SlurmctldPort=${ALLOCAB_TEST_SLURM_PORT:-6917}
		SlurmdPort=$((${ALLOCAB_TEST_SLURM_PORT:-6917} + 1))
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/none
		JobAcctGatherType=jobacct_gather/none
		AccountingStorageType=accounting_storage/none
		SchedulerType=sched/backfill
		SelectType=select/cons_tres
		SelectTypeParameters=CR_Core
		ReturnToService=2
		MpiDefault=none
		NodeName=localhost CPUs=$(nproc) State=UNKNOWN
		PartitionName=fleet Nodes=localhost Default=YES MaxTime=INFINITE State=UP
	EOF
	export SLURM_CONF=$W/etc/slurm.conf
	sleep 1
	slurmctld -D -i -f "$SLURM_CONF" >/dev/null 2>&1 &
	pids+=($!)
	slurmd -D -N localhost -f "$SLURM_CONF" >/dev/null 2>&1 &
	pids+=($!)
	for _ in $(seq 1 60); do
		state=$(scontrol show node localhost 2>/dev/null | grep -o 'State=[A-Z]*' | head -1)
		[ "$state" = State=IDLE ] && break
		sleep 1
	done
	if [ "$state" != State=IDLE ]; then
		skip "Slurm job array" "the one-node Slurm did not come up here (node ${state:-unknown}; $(tail -1 "$W/slurmd.log" 2>/dev/null))"
		return
	fi
	ok "a one-node Slurm is up (slurmctld and slurmd on localhost, munge)"
	jid=$(cd "$W" && ALLOCAB="$A" ALLOCAB_RESULTS="$W/results" \
		ALLOCAB_BENCH_ARGS="-a system,mimalloc -w checkpoint_write --scale small --reps 1 --rounds 6" \
		sbatch --parsable --array=0-2 --export=ALL "$ROOT/docs/fleet/allocab-array.sbatch" 2>&1)
	[[ $jid =~ ^[0-9]+$ ]] && ok "sbatch takes docs/fleet/allocab-array.sbatch as it is (job $jid)" ||
		{ notok "sbatch takes the script" "$jid"; return; }
	for _ in $(seq 1 600); do
		[ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] && break
		sleep 1
	done
	n=$(ls "$W/results"/allocab-*.json 2>/dev/null | wc -l)
	[ "$n" = 3 ] && ok "the three tasks of the array each wrote their results" ||
		{ notok "three results files" "$n: $(ls "$W/results") $(cat "$W"/allocab-fleet-*.out 2>/dev/null | head -5)"; return; }
	local shards="" labels="" prev=""
	for t in 0 1 2; do
		f="$W/results/allocab-localhost-$t.json"
		shards+="$("$J" "$f" task.shard)/$("$J" "$f" task.shard_from) "
		labels+="$("$J" "$f" task.label) "
	done
	[ "$shards" = "0/SLURM_ARRAY_TASK_ID 1/SLURM_ARRAY_TASK_ID 2/SLURM_ARRAY_TASK_ID " ] &&
		ok "each task's shard came from SLURM_ARRAY_TASK_ID" || notok "shards" "$shards"
	[ "$labels" = "localhost-0 localhost-1 localhost-2 " ] &&
		ok "each task's label names its node and index" || notok "labels" "$labels"
	local overlap=0
	for t in 0 1 2; do
		f="$W/results/allocab-localhost-$t.json"
		echo "$("$J" "$f" created_utc) $("$J" "$f" updated_utc)"
	done | sort >"$W/spans"
	while read -r c u; do
		[ -n "$prev" ] && [[ $c < $prev ]] && overlap=1
		prev=$u
	done <"$W/spans"
	[ "$overlap" = 0 ] && ok "--exclusive ran the tasks on the one node one after another" ||
		notok "tasks overlapped" "$(cat "$W/spans")"
	"$A" merge "$W"/results/allocab-*.json -o "$W/merge.txt" 2>/dev/null
	[ $? = 0 ] && grep -q "^allocab merge: 3 machines" "$W/merge.txt" &&
		ok "allocab merge reads the array's results" || notok "merge" "$(head -5 "$W/merge.txt")"
	grep -q "ran on one machine" "$W/merge.txt" &&
		ok "merge says the three tasks ran on one machine (one boot id)" || notok "merge: one machine" "$(grep -i warning "$W/merge.txt")"
	stop_daemons
}

# --- Kubernetes ------------------------------------------------------------------------------------
kubernetes() {
	if ! "$PY" -c 'import kubernetes' 2>/dev/null; then
		install python3-kubernetes || { skip "Kubernetes manifest against the API models" "python3-kubernetes is not installed and cannot be"; return; }
	fi
	if "$PY" tests/tools/fleet_k8s_schema.py docs/fleet/allocab-indexed-job.yaml >"$W/k8s" 2>&1; then
		sed 's/^/# /' "$W/k8s"
		ok "the Indexed Job validates against the Kubernetes API models of python3-kubernetes"
	else
		notok "the Indexed Job against the Kubernetes API models" "$(tail -3 "$W/k8s")"
	fi
}

slurm
kubernetes
exit $fail

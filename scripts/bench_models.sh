#!/usr/bin/env bash
# bench_models.sh - `make bench-models` (docs/models.md): the training examples of examples/ under
# every allocator, each process proven, in both regimes of the phases they mark; each recorded
# once and its allocation stream replayed in every driver; docs/claims/models.json checked; a
# table of it all in OUT/models.md. Usage: scripts/bench_models.sh [OUT]
# Environment: BUILD (build directory), MODELS ("dqn ppo tft mamba2 rust"), MODELS_ROUNDS
# (measured rounds per bench; default: the bench's own rule), MODELS_ARGS_<model> (arguments of
# a model's program, e.g. MODELS_ARGS_dqn='--epochs 4'), MODELS_REPLAY (0: no record and
# replay), MODELS_ONE_CPU (0, the default: the arms of a round one after the other, as the
# programs run; 1: at once on one CPU, `bench --one-cpu`, with its solo anchor rounds, which
# decide where the shared rounds disagree: docs/methodology.md, "Solo anchor rounds"; the
# replays run one after the other), MODELS_PRIMARY
# (epoch: the rows of the question, `bench --primary`), CARGO (Debian's /usr/bin/cargo).
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
A=$BUILD/allocab
out=${1:-results/models-$(date -u +%Y%m%dT%H%M%SZ)}
known="dqn ppo tft mamba2 rust"
models=${MODELS:-$known}
# a model's name selects MODELS_ARGS_<name> by indirect expansion, which would evaluate an array
# subscript in it (a command substitution): only the known names pass
for m in $models; do
	case " $known " in
	*" $m "*) ;;
	*)
		printf 'bench-models: MODELS: unknown model %q (known: %s)\n' "$m" "$known" >&2
		exit 2
		;;
	esac
done
rounds=()
[ -n "${MODELS_ROUNDS:-}" ] && rounds=(--rounds "$MODELS_ROUNDS")
together=()
[ "${MODELS_ONE_CPU:-0}" = 0 ] || together=(--one-cpu)
# the question of a training job: its steady epoch (compare's primary family)
together+=(--primary "${MODELS_PRIMARY:-epoch}")
CARGO=${CARGO:-/usr/bin/cargo}
py=/usr/bin/python3
mkdir -p "$out" || exit 1

say() { printf 'bench-models: %s\n' "$*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# The Rust job built twice with Debian's cargo and rustc, offline: the allocator is a feature.
build_rust() {
	local f
	for f in system mimalloc; do
		RUSTC=/usr/bin/rustc "$CARGO" build --release --offline --quiet \
			--manifest-path examples/rust-train/Cargo.toml \
			--target-dir "$BUILD/rust-train/$f" $([ $f = mimalloc ] && echo --features mimalloc) ||
			return 1
		cp "$BUILD/rust-train/$f/release/allocab-rust-train" "$BUILD/rust-train/allocab-rust-train-$f" ||
			return 1
	done
}

command_of() {
	local m=$1 v="MODELS_ARGS_$1"
	case $m in
	rust) echo "$BUILD/rust-train/allocab-rust-train-system ${!v:-}" ;;
	*) echo "$py examples/models/$m.py ${!v:-}" ;;
	esac
}

bench_model() {
	local m=$1 v="MODELS_ARGS_$1"
	if [ "$m" = rust ]; then
		"$A" bench -w rust "${rounds[@]}" "${together[@]}" -o "$out/rust.json" \
			--cmd system="$BUILD/rust-train/allocab-rust-train-system ${!v:-}" \
			--cmd mimalloc="$BUILD/rust-train/allocab-rust-train-mimalloc ${!v:-}" \
			--expect system=system --expect mimalloc=mimalloc
	else
		"$A" bench -w "$m" "${rounds[@]}" "${together[@]}" -o "$out/$m.json" \
			--program "$(command_of "$m")"
	fi
}

if [[ " $models " == *" rust "* ]]; then
	build_rust || { say "cannot build examples/rust-train with $CARGO"; exit 1; }
fi
say "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); load at start: $(load)"
echo "start $(date -u +%FT%TZ) load $(load)" >"$out/load.txt"
rc=0
for m in $models; do
	say "$m: bench under every allocator (load $(load))"
	bench_model "$m" || rc=1
	if [ "${MODELS_REPLAY:-1}" = 0 ]; then
		echo "$m $(date -u +%FT%TZ) load $(load)" >>"$out/load.txt"
		continue
	fi
	say "$m: record once, then replay in every driver (load $(load))"
	# shellcheck disable=SC2046 # the command's words are its arguments
	if "$A" record -o "$out/$m.trace" -- $(command_of "$m") >/dev/null; then
		"$A" bench -w replay --param trace="$out/$m.trace" "${rounds[@]}" -q \
			-o "$out/$m-replay.json" || rc=1
	else
		rc=1
	fi
	echo "$m $(date -u +%FT%TZ) load $(load)" >>"$out/load.txt"
done
for m in $models; do
	[ -f "$out/$m.json" ] || continue
	"$A" compare "$out/$m.json" --claims docs/claims/models.json
	"$A" compare "$out/$m.json" --format json --claims docs/claims/models.json -o "$out/$m.compare.json"
	[ -f "$out/$m-replay.json" ] &&
		"$A" compare "$out/$m-replay.json" --format json -o "$out/$m-replay.compare.json"
done
"$py" scripts/models_table.py "$out" $models | tee "$out/models.md"
say "results in $out"
exit $rc

# e2e_models.sh - the training examples of examples/ (docs/models.md), run small: each Python
# model under --program on glibc and mimalloc, proven, with its phases marked and the same
# checksum on both; the Rust job built twice with cargo (the allocator a feature) and measured
# with --cmd and --expect. Skipped, with a message, where PyTorch or cargo is not installed:
# `make bench-models` installs them, `make test` never needs them.
. tests/e2e/lib.sh
A=$BUILD/allocab
J=$BUILD/tests/jget

if /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
	for m in dqn ppo tft mamba2; do
		"$A" bench --program "/usr/bin/python3 examples/models/$m.py --epochs 2 --steps 2 >>$TMP/$m.out" \
			-w "$m" -a system,mimalloc --rounds 1 --warmup 0 -q -o "$TMP/$m.json" >"$TMP/err" 2>&1
		st="$("$J" "$TMP/$m.json" rounds.0.runs.0.status) $("$J" "$TMP/$m.json" rounds.0.runs.1.status)"
		names=$("$J" "$TMP/$m.json" rounds.0.runs.0.phase_marks.phases 2>&1 | grep -o '"name":"[a-z]*"' | tr '\n' ' ')
		sums=$(sort -u "$TMP/$m.out" 2>/dev/null)
		if [ "$st" = "ok ok" ] && [ "$names" = '"name":"import" "name":"setup" "name":"epoch" ' ] &&
			[ "$(wc -l <"$TMP/$m.out")" = 2 ] && [ "$(printf '%s\n' "$sums" | wc -l)" = 1 ] &&
			[[ $sums == checksum* ]]; then
			ok "$m: ok and proven on glibc and mimalloc, phases import, setup, epoch, one checksum"
		else
			notok "$m" "statuses '$st', phases '$names', checksums '$sums': $(head -c 300 "$TMP/err")"
		fi
	done
else
	skip "training examples" "PyTorch is not installed (apt-get install python3-torch, or make bench-models)"
fi

cargo=$(command -v /usr/bin/cargo || command -v cargo || true)
if [ -n "$cargo" ]; then
	rustc=/usr/bin/rustc
	[ "$cargo" = /usr/bin/cargo ] && [ -x "$rustc" ] || rustc=rustc
	for f in system mimalloc; do
		RUSTC=$rustc "$cargo" build --release --offline --quiet --manifest-path examples/rust-train/Cargo.toml \
			--target-dir "$TMP/rust-$f" $([ $f = mimalloc ] && echo --features mimalloc) >"$TMP/cargo.err" 2>&1 ||
			notok "cargo build ($f)" "$(tail -c 400 "$TMP/cargo.err")"
	done
	R=$TMP/rust-system/release/allocab-rust-train
	M=$TMP/rust-mimalloc/release/allocab-rust-train
	if [ -x "$R" ] && [ -x "$M" ] && [ "$("$R" 2 3)" = "$("$M" 2 3)" ]; then
		ok "rust: both builds run and print the same checksum"
	else
		notok "rust: builds" "$("$R" 2 3 2>&1) / $("$M" 2 3 2>&1)"
	fi
	expect_status "rust: --cmd with --expect, both builds proven" 0 "$A" bench -w rust \
		--cmd system="$R 2 3" --cmd mimalloc="$M 2 3" --expect system=system --expect mimalloc=mimalloc \
		--rounds 1 --warmup 0 -q -o "$TMP/rust.json"
	if grep -q '"name":	*"epoch"' "$TMP/rust.json" || grep -q '"name": "epoch"' "$TMP/rust.json"; then
		ok "rust: the job marks its epochs"
	else
		notok "rust: marks" "no epoch phase in $TMP/rust.json"
	fi
	if python3 -c 'import json, benchfile, sys
d = benchfile.load(sys.argv[1])
ph = [p for r in d["rounds"][0]["runs"] for p in (r.get("phase_marks") or {}).get("phases", []) if p["name"] == "epoch"]
sys.exit(0 if ph and all(isinstance(p.get("cpu_ns"), list) for p in ph) else 1)' "$TMP/rust.json"; then
		ok "rust: its epoch marks carry the process's CPU time"
	else
		notok "rust: CPU marks" "no cpu_ns in its epochs"
	fi
	expect_status "rust: the system build expected on mimalloc is refused" 1 "$A" bench \
		--cmd system="$R 1 1" --cmd mimalloc="$R 1 1" --expect system=system --expect mimalloc=mimalloc \
		--rounds 1 --warmup 0 -q -o "$TMP/rust2.json"
	if grep -q 'other allocator serves malloc: libc.so.6' "$TMP/err"; then
		ok "rust: ... because libc.so.6 serves its malloc"
	else
		notok "rust: refusal" "$(head -c 400 "$TMP/err")"
	fi
else
	skip "rust example" "cargo is not installed (apt-get install cargo, or make bench-models)"
fi

# make bench-models: a model's name selects MODELS_ARGS_<name> by indirect expansion, so only the
# known names pass; a subscript in MODELS never runs
expect_status "bench_models.sh: MODELS with a command in a subscript: exit 2" 2 env \
	MODELS="dqn x[\$(touch $TMP/ran)]" BUILD="$BUILD" bash scripts/bench_models.sh "$TMP/bm"
expect_err "... one line naming it" "^bench-models: MODELS: unknown model .*\(known: dqn ppo tft mamba2 rust\)$"
[ ! -e "$TMP/ran" ] && [ ! -e "$TMP/bm" ] && ok "... nothing ran, nothing written" ||
	notok "bench_models.sh ran the subscript" "$(ls "$TMP")"
grep -q 'MODELS_ONE_CPU:-0}" = 0 ] || together=(--one-cpu)' scripts/bench_models.sh &&
	ok "bench_models.sh runs the arms one after the other unless MODELS_ONE_CPU=1" ||
	notok "bench_models.sh default" "not solo by default"
exit $t_fail

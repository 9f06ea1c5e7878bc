#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make stress: the long runs of the reliability suite, on the debug kernel
# (KASAN, lockdep, kmemleak, fault injection, hung-task detector) and on its
# KCSAN variant, then the bad link's GiB transfers, and stress-report.json
# with what they did and found:
#
#   syscalls          calls the syscall fuzzer made
#   netlink_messages  messages the netlink fuzzer sent
#   faults_injected   allocation failures injected, plus device removals,
#                     link flaps and host kills
#   bytes_checked     bytes that arrived and were checked against the sender
#   corrupted_bytes   bytes that arrived wrong
#   kernel_reports    KASAN, KCSAN (races in AF_EXS), lockdep, kmemleak,
#                     hung task, WARN, BUG lines
#   kcsan_elsewhere   KCSAN's reports of races outside AF_EXS (not ours)
#   kcsan_known       KCSAN's reports of the one known race of AF_EXS's:
#                     the merge's switch of file->private_data against
#                     the socket layer's lookup (exs-vm-finish, fallback.c)
#   hangs             hosts that did not finish, and hung-task reports
#   passed, failed    the TAP results of every suite
#   seconds           how long each boot took
#   ran               the commit and time each boot ran at
#   sources           the key of the sources the boots ran (resume, below)
#
# Results: build/stress/ (override with EXS_STRESS_OUT).  The sizes can be
# scaled down for a quick look: EXS_FUZZ_CALLS, EXS_FUZZ_MSGS,
# EXS_NETEM_BYTES, EXS_NETEM_GIB_BYTES, EXS_LOAD_CONNS, EXS_LOAD_REQS,
# EXS_LOAD_CONN_ROUNDS,
# EXS_UNLOAD_ROUNDS, EXS_NOMEM_ROUNDS (EXS_NOMEM_TASKS=0 leaves out
# exs_nomem.sh's part 3).  EXS_STRESS_BOOTS picks boots (default "local
# kcsan pair netem-gib"; "netem-gib" is a boot per case, named like
# netem-gib-1pct-loss); EXS_NETEM_GIB_KERNEL runs the GiB boots on another
# kernel than the debug one (6.1: 20 to 38 minutes for all six here; on
# the debug kernel 20-44 minutes a case, four hours or more for the six:
# pick cases with EXS_NETEM_ONLY, exs_netem.sh, or resume).
# EXS_STRESS_RESUME=1 reuses the boots that passed at the same sources
# (below).  redis-benchmark makes EXS_LOAD_REQS (40)
# requests per client: the debug kernel serves ~30 a second, and 200 per
# client (make check's) at 64 clients outran the test's 300 s.
set -u
top=$(readlink -f "$(dirname "$0")/..")
cd "$top" || exit 2
out=${EXS_STRESS_OUT:-$top/build/stress}
rm -rf "$out"
mkdir -p "$out"

if [ "${EXS_NO_SETUP:-0}" != 1 ]; then
	./scripts/setup.sh || exit 2
fi
boots=" ${EXS_STRESS_BOOTS:-local kcsan pair netem-gib} "
# want BOOT: asked for by its name, or a GiB case by the group's
want() {
	[[ $boots == *" $1 "* ]] ||
		[[ $1 == netem-gib-* && $boots == *" netem-gib "* ]]
}
# any GiB case at all
want_gib() { [[ $boots == *" netem-gib"[\ -]* ]]; }

# only the kernels the boots asked for: each debug kernel is a 15-20
# minute build on a fresh machine
dk= dkk= kernels=()
if want local || want pair ||
   { want_gib && [ -z "${EXS_NETEM_GIB_KERNEL:-}" ]; }; then
	dk=$(./scripts/debug-kernel.sh) ||
		{ echo "stress: no debug kernel"; exit 2; }
	kernels+=("$dk")
fi
if want kcsan; then
	dkk=$(./scripts/debug-kernel.sh kcsan) ||
		{ echo "stress: no KCSAN debug kernel"; exit 2; }
	kernels+=("$dkk")
fi
gibk=${EXS_NETEM_GIB_KERNEL:-$dk}
want_gib && [ "$gibk" != "$dk" ] && kernels+=("$gibk")
./scripts/build-modules.sh "${kernels[@]}" > "$out/build.log" 2>&1 &&
	make -s tools >> "$out/build.log" 2>&1 ||
	{ cat "$out/build.log"; exit 2; }

# The bad link moves 16 MiB each way per case in the pair boot, and the
# full GiB (EXS_NETEM_GIB_BYTES) in a boot of its own once the others are
# done: alone, it has the machine to itself.
export EXS_FUZZ_CALLS=${EXS_FUZZ_CALLS:-1000000} \
	EXS_FUZZ_MSGS=${EXS_FUZZ_MSGS:-100000} \
	EXS_NETEM_BYTES=${EXS_NETEM_BYTES:-$((16 << 20))} \
	EXS_LOAD_CONNS=${EXS_LOAD_CONNS:-1000} \
	EXS_LOAD_CONN_ROUNDS=${EXS_LOAD_CONN_ROUNDS:-2} \
	EXS_LOAD_REQS=${EXS_LOAD_REQS:-40} \
	EXS_UNLOAD_ROUNDS=${EXS_UNLOAD_ROUNDS:-100} \
	EXS_NOMEM_ROUNDS=${EXS_NOMEM_ROUNDS:-40} \
	EXS_NOMEM_TASKS=${EXS_NOMEM_TASKS:-1}
# the guests get the same sizes
env="export $(for v in EXS_FUZZ_CALLS EXS_FUZZ_MSGS EXS_NETEM_BYTES \
	EXS_LOAD_CONNS EXS_LOAD_CONN_ROUNDS EXS_LOAD_REQS EXS_UNLOAD_ROUNDS EXS_NOMEM_ROUNDS \
	EXS_NOMEM_TASKS; do
	printf '%s=%s ' $v "${!v}"; done)"

# Every boot that ends is kept under ~/.cache/af-exs/stress/, keyed by
# what decides its outcome: the sources the guests run (all but the
# documentation and this script, whose part is the boot's commands), the
# kernel, the boot's shape and its commands.  EXS_STRESS_RESUME=1 takes a
# boot that passed under the same key from there instead of booting it
# again: a run longer than one sitting is finished later, at the same
# sources, and the report names the commit and day each boot ran.
keep=${EXS_CACHE:-$HOME/.cache/af-exs}/stress
src_key=$(git ls-files -z -- . ':!Documentation' ':!README.md' \
	':!scripts/stress.sh' ':!.ci' | xargs -0 sha256sum | sha256sum | cut -c1-16)

# passed DIR NAME: the boot exited 0 and no test failed
passed() {
	[ "$(cat "$1/$2.exit" 2>/dev/null)" = 0 ] &&
		! cat "$1/$2"/*.log | tr '\r' '\n' | grep -q '^not ok '
}

# run NAME KERNEL HOSTS CPUS TIMEOUT CMD [CMD]: one boot, if asked for
run() {
	local name=$1 k=$2 hosts=$3 cpus=$4 t=$5 t0 rc key
	shift 5
	want "$name" || return 0
	echo "# $name"
	key=$(printf '%s\n' "$src_key" "$name" "$(basename "$k")" "$hosts" \
		"$cpus" "$t" "${append:-}" "$@" | sha256sum | cut -c1-16)
	if [ "${EXS_STRESS_RESUME:-0}" = 1 ] && passed "$keep/$key" "$name"; then
		cp -a "$keep/$key/." "$out/"
		echo "# $name: passed at $(cat "$out/$name.ran"), kept in $keep/$key"
		return 0
	fi
	echo "$k" > "$out/$name.kernel"
	echo "$(git rev-parse --short HEAD) $(date -u +%FT%TZ)" > "$out/$name.ran"
	t0=$(date +%s)
	./selftests/vm/exs-vm --kernel "$k" --hosts "$hosts" --cpus "$cpus" \
		--memory 2G --timeout "$t" --out "$out/$name" \
		${append:+--append "$append"} -- "$@" \
		> "$out/$name.log" 2>&1
	rc=$?
	echo "$rc" > "$out/$name.exit"
	echo $(($(date +%s) - t0)) > "$out/$name.seconds"
	rm -rf "${keep:?}/$key"
	mkdir -p "$keep/$key"
	cp -a "$out/$name"* "$keep/$key/"
	echo "# $name: exit $rc after $(cat "$out/$name.seconds") s"
}

# Three boots: two hosts (pair) for the whole run, beside one host
# (local), then KCSAN's variant (kcsan) once local is done; they share
# nothing.  Run one after the other, pair and kcsan took over two and a
# half hours here.
#
# local: hostile input, allocation failures, unload and load.
local_boots() {
	run local "$dk" 1 1 10800 "$env; selftests/exs_fuzz.sh;
		selftests/exs_badpeer.sh; selftests/exs_nomem.sh;
		selftests/exs_local.sh"
	# kcsan, with two CPUs (races need two): KUnit, the single-host
	# suite, the fuzzers, the malicious peer and the data path over a
	# looped-back RDMA device.  A race with AF_EXS in an access's stack
	# (exs-vm-finish) counts as a kernel report; races elsewhere are kept
	# in kcsan/a.kcsan-elsewhere.
	# It watches one access in 400 (its default, 4000, saw nothing of
	# AF_EXS in a run of these suites); its counters at the end show
	# what it did.
	run kcsan "$dkk" 1 2 10800 "$env;
		echo 400 > /sys/module/kcsan/parameters/skip_watch;
		selftests/kunit.sh; EXS_UNLOAD_ROUNDS=10 selftests/exs_local.sh;
		EXS_FUZZ_CALLS=200000 EXS_FUZZ_MSGS=20000 selftests/exs_fuzz.sh;
		selftests/exs_badpeer.sh; EXS_PAIR_SCALE=8 selftests/exs_rdma_loop.sh;
		sed 's/^/# kcsan: /' /sys/kernel/debug/kcsan"
}
local_boots &
# pair: the pair suite (an eighth of its bytes: 128 MiB each way took
# 300 s here), the in-kernel socket users (a test module, NBD), map and
# netlink, load, a bad link, failed queue pairs
# (rxe's packet allocations among them: slub_debug marks their cache for
# failslab), then the faults (the last kills host b)
pair="$env; EXS_PAIR_SCALE=8 selftests/exs_pair.sh; exs-vm-barrier pair;
	selftests/exs_kern.sh; selftests/exs_nbd.sh; exs-vm-barrier kern;
	selftests/exs_control.sh; exs-vm-barrier control; selftests/exs_load.sh;
	selftests/exs_netem.sh; selftests/exs_resume.sh; selftests/exs_fault.sh"
append="slub_debug=A,kmalloc-8k" run pair "$dk" 2 1 10800 "$pair" "$pair" &
wait
# the bad link's GiB, alone (beside other boots rxe once failed to
# allocate packets): a boot a case, each kept on its own, so that
# EXS_STRESS_RESUME can finish the four hours in parts.  The cases are
# exs_netem.sh's own (its table's names); EXS_NETEM_ONLY picks some.
gib="EXS_NETEM_BYTES=${EXS_NETEM_GIB_BYTES:-$((1 << 30))} selftests/exs_netem.sh"
mapfile -t cases < <(sed -n '/^done <<EOF$/,/^EOF$/p' selftests/exs_netem.sh |
	cut -s -f1)
for what in "${cases[@]}"; do
	[[ "$what" == *"${EXS_NETEM_ONLY:-}"* ]] || continue
	c="EXS_NETEM_ONLY='$what' $gib"
	run "netem-gib-$(echo "$what" | sed 's/%/pct/; s/ /-/g')" \
		"$gibk" 2 1 21600 "$c" "$c"
done

python3 - "$out" "$src_key" <<'EOF'
import glob, json, os, re, subprocess, sys

out = sys.argv[1]
r = dict(syscalls=0, netlink_messages=0, faults_injected=0,
         bytes_checked=0, corrupted_bytes=0, kernel_reports=0, hangs=0,
         kcsan_elsewhere=0, kcsan_known=0, passed=0, failed=0)
tally = {"syscalls": "syscalls", "netlink": "netlink_messages",
         "faults": "faults_injected", "checked": "bytes_checked",
         "corrupt": "corrupted_bytes"}
for f in glob.glob(f"{out}/*/*.tally"):
    for line in open(f):
        k, _, n = line.partition(" ")
        if k in tally and n.strip().isdigit():
            r[tally[k]] += int(n)
for f in glob.glob(f"{out}/*/*.dmesg"):
    lines = [l for l in open(f, errors="replace") if l.strip()]
    r["kernel_reports"] += len(lines)
    r["hangs"] += sum("blocked for more than" in l or "hung_task" in l
                      for l in lines)
for kind in ("elsewhere", "known"):
    for f in glob.glob(f"{out}/*/*.kcsan-{kind}"):
        r[f"kcsan_{kind}"] += open(f, errors="replace").read().count("BUG: KCSAN")
for d in glob.glob(f"{out}/*/"):
    hosts = [h for h in ("a", "b") if os.path.exists(f"{d}{h}.log")]
    for h in hosts:
        if not os.path.exists(f"{d}{h}.rc"):
            r["hangs"] += 1
        log = open(f"{d}{h}.log", errors="replace").read().replace("\r", "\n")
        r["passed"] += len(re.findall(r"^ok \d+ (?!.*# SKIP)", log, re.M))
        r["failed"] += len(re.findall(r"^not ok \d+ ", log, re.M))
r["settings"] = {k: os.environ[k] for k in sorted(os.environ)
                 if k.startswith("EXS_") and k != "EXS_NO_SETUP"}
# the kernel each boot ran (run() notes it; the GiB boot's may be stock)
r["boots"] = {os.path.basename(f)[:-len(".kernel")]:
              os.path.basename(open(f).read().strip().rstrip("/"))
              for f in glob.glob(f"{out}/*.kernel")}
# how long each boot took: what planning the next run needs
r["seconds"] = {os.path.basename(f)[:-len(".seconds")]:
                int(open(f).read().strip() or 0)
                for f in glob.glob(f"{out}/*.seconds")}
# the commit and day each boot ran (EXS_STRESS_RESUME takes some from
# earlier runs at the same sources)
r["ran"] = {os.path.basename(f)[:-len(".ran")]: open(f).read().strip()
            for f in glob.glob(f"{out}/*.ran")}
r["sources"] = sys.argv[2]
r["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
json.dump(r, open(f"{out}/stress-report.json", "w"), indent=2)
print(json.dumps(r, indent=2))
EOF
ok=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]));
print(int(not (r["failed"] or r["kernel_reports"] or r["hangs"] or
	       r["corrupted_bytes"])))' "$out/stress-report.json")
echo "# report: $out/stress-report.json"
[ "$ok" = 1 ]

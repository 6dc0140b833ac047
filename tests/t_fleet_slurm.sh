#!/usr/bin/env bash
# The fleet's map as a Slurm job array, for real: a one-node cluster this test starts from
# Debian's slurm-wlm and munge (munged, slurmctld, slurmd; slurm.conf, the munge key, sockets,
# state and logs in $T, SLURM_CONF pointing there; nothing in /etc, no systemd; the controller on
# the loopback address and free ports), docs/fleet.md's array script and sbatch command as the
# page writes them over a list of dumps with one that is not a dump; then the page's ingest:
# the failed task's dump named, the others ingested and reported as the generator recorded.
# The daemons are stopped by their pids at the end, also on failure.  Skips, with the reason,
# when a package is missing or the daemons do not start here.
. "$SRC/tests/lib.sh"
. "$SRC/tests/fleet/lib_fleet.sh"
for tool in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd sbatch sinfo parallel; do
  command -v "$tool" >/dev/null || { skip fleet_slurm "$tool is not installed (tools/deps.sh --test: slurm-wlm, munge)"; exit 0; }
done

C=$T/cluster
mkdir -p "$C/munge" "$C/state" "$C/spool" && chmod 700 "$C/munge"
head -c 1024 /dev/urandom > "$C/munge/munge.key" && chmod 400 "$C/munge/munge.key"
pids=()
stop_daemons() {   # the newest first: slurmd, slurmctld, munged
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null; done
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do wait "${pids[i]}" 2>/dev/null; done
  pids=()
}
trap stop_daemons EXIT
trap 'stop_daemons; exit 1' INT TERM

/usr/sbin/munged --foreground --force --socket="$C/munge/socket" --key-file="$C/munge/munge.key" \
  --log-file="$C/munge/munged.log" --pid-file="$C/munge/munged.pid" --seed-file="$C/munge/munged.seed" 2>"$C/munged.err" &
pids+=($!)
# one node with 20 CPUs and 40 GB as the config says (config_overrides: whatever this machine
# has), so the page's 4-CPU, 8 GB tasks run five at a time; no cgroups (linuxproc, task/none)
node=hkfleet
read -r ctld_port slurmd_port < <(free_ports 2)
cat > "$C/slurm.conf" <<CONF
ClusterName=hkfleet
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$C/munge/socket
CredType=cred/munge
StateSaveLocation=$C/state
SlurmdSpoolDir=$C/spool
SlurmctldPidFile=$C/slurmctld.pid
SlurmdPidFile=$C/slurmd.pid
SlurmctldLogFile=$C/slurmctld.log
SlurmdLogFile=$C/slurmd.log
PlugStackConfig=$C/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$C/jobcomp.txt
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$(hostname -s) CPUs=20 RealMemory=40960 State=UNKNOWN
PartitionName=fleet Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
: > "$C/plugstack.conf"
export SLURM_CONF=$C/slurm.conf
/usr/sbin/slurmctld -D -c -f "$SLURM_CONF" >"$C/slurmctld.out" 2>&1 &
pids+=($!)
/usr/sbin/slurmd -D -N "$node" -f "$SLURM_CONF" >"$C/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 300); do   # up to 30 s
  [ "$(sinfo -h -n "$node" -o %t 2>/dev/null)" = idle ] && { up=1; break; }
  sleep 0.1
done
if [ "$up" != 1 ]; then
  skip fleet_slurm "the test's cluster did not start: $(tail -c 300 "$C/slurmctld.log" "$C/slurmd.log" "$C/munged.err" 2>/dev/null | tr '\n' ' ')"
  exit 0
fi
pass fleet_slurm_cluster_up
fleet_path

# the page's array script and its sbatch command, over a list of 4 dumps and one that is not,
# one task per dump (TASKS = the list's length: task k triages line k, task 0 the last)
script=$(doc_block '`triage-array.sh`:')
submit=$(doc_cmd "sbatch")
ingest=$(doc_cmd "hprofkit fleet-ingest fleet.db --dumps")
[ -n "$script" ] && [ -n "$submit" ] && [ -n "$ingest" ] && pass fleet_slurm_doc_commands ||
  fail fleet_slurm_doc_commands "docs/fleet.md lacks the array script, the sbatch command or the ingest"
fleet_dumps 4
ls dumps/*.hprof > dumps.txt
echo "$script" > triage-array.sh
TASKS=$(wc -l < dumps.txt)
eval "timeout 90 $submit" > sbatch.out 2>&1
eq fleet_slurm_sbatch_exit "$?" 1   # the task with bad.hprof failed
# dumps.txt: bad.hprof, d0 ... d3: task 1 had bad.hprof
eq fleet_slurm_tasks "$(sed -n 's/.*JobState=\([A-Z]*\) .*ArrayTaskId=\([0-9]*\) .*/\2 \1/p' "$C/jobcomp.txt" | sort | tr '\n' ' ')" \
  "0 COMPLETED 1 FAILED 2 COMPLETED 3 COMPLETED 4 COMPLETED "
eq fleet_slurm_one_dump_per_task "$(cat map-*.log | grep -c 'hprofkit triage'):$(ls map-*.log | wc -l)" "5:5"
eq fleet_slurm_facts "$(ls dumps/*.json | tr '\n' ' ')" "dumps/d0.json dumps/d1.json dumps/d2.json dumps/d3.json "

# the page's ingest, with each task's joblog
logs=$(for k in $(seq 0 $((TASKS - 1))); do printf -- '--joblog map-%d.log ' "$k"; done)
eval "${ingest/--joblog map.log/$logs}" --json -o ingest.json 2>ingest.err
eq fleet_slurm_ingest "$(jq -c '[.ingested, .failed_dumps]' ingest.json)" \
  '[4,[{"dump":"dumps/bad.hprof","why":"no facts (its job on this machine: exit 1)"}]]'
"$HK" fleet-report fleet.db --by route --json -o report.json
if out=$(python3 "$SRC/tests/fleet_check.py" report.json expect/*.json --by route --facts-dir dumps 2>&1); then pass fleet_slurm_report
else fail fleet_slurm_report "$(echo "$out" | head -3)"; fi

stop_daemons
alive=0
for f in "$C/slurmctld.pid" "$C/slurmd.pid" "$C/munge/munged.pid"; do
  [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && alive=$((alive + 1))
done
eq fleet_slurm_stopped "$alive" 0

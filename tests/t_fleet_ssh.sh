#!/usr/bin/env bash
# The fleet's map across hosts, for real: an OpenSSH server this test starts on the loopback
# address (a free port, a host key, its pid file and authorized keys in $T, the same account, a
# throwaway client key; stopped by its pid at the end, also on failure) is the remote host of
# docs/fleet.md's `parallel --sshloginfile ... --transferfile {} --return {.}.json` command, run
# as the page writes it; then the page's ingest, whose report must equal what the generator
# injected.  A second run adds a host nobody answers on: its dumps are reported by dump (host,
# exit 255) and the dumps that did finish are ingested.
. "$SRC/tests/lib.sh"
. "$SRC/tests/fleet/lib_fleet.sh"
SSHD=/usr/sbin/sshd
for tool in "$SSHD" ssh ssh-keygen rsync parallel; do
  command -v "$tool" >/dev/null || { skip fleet_ssh "$tool is not installed (tools/deps.sh --test)"; exit 0; }
done

# sshd wants its privilege separation folder /run/sshd: in a mount namespace of its own, /run is
# a folder of $T (nothing made outside it); where namespaces are not allowed, the system's
# /run/sshd if there is one
mkdir -p "$T/run/sshd" && chmod 755 "$T/run/sshd"
if unshare --mount --propagation private true 2>/dev/null; then
  launch=(unshare --mount --propagation private sh -c 'mount --bind "$0" /run && exec "$@"' "$T/run")
elif [ -d /run/sshd ]; then
  launch=()
else
  skip fleet_ssh "sshd needs /run/sshd, and this machine allows no mount namespace to give it one in \$T"; exit 0
fi

read -r port down_port < <(free_ports 2)
ssh-keygen -q -t ed25519 -N '' -C fleet-host -f "$T/host_key"
ssh-keygen -q -t ed25519 -N '' -C fleet-client -f "$T/client_key"
cp "$T/client_key.pub" "$T/authorized_keys"
cat > "$T/sshd_config" <<CONF
ListenAddress 127.0.0.1
Port $port
HostKey $T/host_key
PidFile $T/sshd.pid
AuthorizedKeysFile $T/authorized_keys
AllowUsers $(id -un)
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
SetEnv PATH=$T/bin:/usr/bin:/bin
CONF
sshd_pid=
stop_sshd() {   # the client's shared connection first (ControlMaster below), then the server
  [ -f "$T/ssh_config" ] && ssh -F "$T/ssh_config" -O exit fleet-a 2>/dev/null
  [ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null
  wait "$sshd_pid" 2>/dev/null
  sshd_pid=
}
trap stop_sshd EXIT
trap 'stop_sshd; exit 1' INT TERM
"${launch[@]}" "$SSHD" -D -f "$T/sshd_config" -E "$T/sshd.log" &
sshd_pid=$!

# the client side: a config file naming the test's host and one nobody answers on
cat > "$T/ssh_config" <<CONF
Host fleet-a
  HostName 127.0.0.1
  Port $port
Host fleet-down
  HostName 127.0.0.1
  Port $down_port
Host *
  User $(id -un)
  IdentityFile $T/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $T/known_hosts
  StrictHostKeyChecking accept-new
  BatchMode yes
  ConnectTimeout 5
  ControlMaster auto
  ControlPath $T/ssh-%C
  ControlPersist 60
CONF
export PARALLEL_SSH="ssh -F $T/ssh_config"
up=0
for _ in $(seq 50); do
  ssh -F "$T/ssh_config" fleet-a true 2>/dev/null && { up=1; break; }
  kill -0 "$sshd_pid" 2>/dev/null || break
  sleep 0.1
done
if [ "$up" != 1 ]; then skip fleet_ssh "the test's sshd did not start: $(head -c 300 "$T/sshd.log")"; exit 0; fi
pass fleet_ssh_server_up
fleet_path
eq fleet_ssh_remote_path "$(ssh -F "$T/ssh_config" fleet-a 'command -v hprofkit')" "$T/bin/hprofkit"

# the page's commands, with the hosts in hosts.txt and the remote scratch folder in $REMOTE
map=$(doc_cmd "parallel --sshloginfile")
list=$(doc_cmd "ls dumps/")
ingest=$(doc_cmd "hprofkit fleet-ingest fleet.db --dumps")
[ -n "$map" ] && [ -n "$list" ] && [ -n "$ingest" ] && pass fleet_ssh_doc_commands ||
  fail fleet_ssh_doc_commands "docs/fleet.md lacks the map, list or ingest command"
REMOTE=$T/remote
run_map() {   # DIR N HOSTS...: N dumps and bad.hprof, the page's list, map and ingest in DIR
  mkdir -p "$1" && cd "$1" || return
  fleet_dumps "$2"
  shift 2
  printf '%s\n' "$@" > hosts.txt
  eval "$list"
  eval "$map" > map.out 2> map.err
  echo $? > map.rc
  eval "$ingest" --json -o ingest.json 2> ingest.err
  cd "$T" || return
}

run_map "$T/one" 5 2/fleet-a
eq fleet_ssh_map_exit "$(cat one/map.rc)" 1   # parallel: one job failed (bad.hprof)
eq fleet_ssh_facts_back "$(cd one && ls dumps/*.json | tr '\n' ' ')" \
  "dumps/d0.json dumps/d1.json dumps/d2.json dumps/d3.json dumps/d4.json "
eq fleet_ssh_cleanup "$(find "$REMOTE" -type f 2>/dev/null | wc -l)" 0
eq fleet_ssh_ran_remote "$(awk -F'\t' 'NR > 1 { print $2 }' one/map.log | sort -u)" fleet-a
"$HK" triage one/dumps/d3.hprof --json -o local-d3.json
if cmp -s local-d3.json one/dumps/d3.json; then pass fleet_ssh_same_facts
else fail fleet_ssh_same_facts "the facts made over ssh differ from a local triage's"; fi
eq fleet_ssh_ingest "$(jq -c '[.ingested, .skipped, .failed_dumps]' one/ingest.json)" \
  '[5,0,[{"dump":"dumps/bad.hprof","why":"no facts (its job on fleet-a: exit 1)"}]]'
(cd one && "$HK" fleet-report fleet.db --json -o report.json)
if out=$(cd one && python3 "$SRC/tests/fleet_check.py" report.json expect/*.json 2>&1); then pass fleet_ssh_report
else fail fleet_ssh_report "$(echo "$out" | head -3)"; fi

# a host nobody answers on beside the good one: each of its dumps named with the host and
# ssh's 255, the others ingested
run_map "$T/two" 3 1/fleet-a 1/fleet-down
nfacts=$(cd two && ls dumps/*.json 2>/dev/null | wc -l)
got=$(jq -r '.failed_dumps[] | "\(.dump) \(.why)"' two/ingest.json | sort)
want=$(cd two && awk -F'\t' 'NR > 1 && $7 != 0 { split($9, w, " "); print w[3] " no facts (its job on " $2 ": exit " $7 ($7 == 255 ? ", ssh'"'"'s status when it cannot reach or log in to the host" : "") ")" }' map.log | sort)
eq fleet_ssh_down_reported "$got" "$want"
eq fleet_ssh_down_counts "$(jq -c '[.ingested, .failed, .dumps_in_database]' two/ingest.json)" "[$nfacts,$((4 - nfacts)),$nfacts]"
if grep -q 'fleet-down' two/map.log && grep -q 'fleet-a' two/map.log; then pass fleet_ssh_down_both_hosts_used
else skip fleet_ssh_down_both_hosts_used "parallel sent every job to one host: $(cut -f2 two/map.log | sort | uniq -c | tr '\n' ' ')"; fi

stop_sshd
if [ -s "$T/sshd.pid" ] && kill -0 "$(cat "$T/sshd.pid")" 2>/dev/null; then fail fleet_ssh_stopped "sshd still runs"
else pass fleet_ssh_stopped; fi

# Helpers for the fleet's distributed tests (t_fleet_ssh.sh, t_fleet_slurm.sh): the commands
# come from docs/fleet.md itself, so the page shows what the tests run.
FLEET_DOC="$SRC/docs/fleet.md"

# doc_cmd PREFIX: the first command of docs/fleet.md's indented code that starts with PREFIX,
# its continuation lines joined
doc_cmd() {
  awk -v p="    $1" 'found && !/\\$/ { print substr($0, 5); exit }
                      found { printf "%s\n", substr($0, 5); next }
                      index($0, p) == 1 { found = 1; if ($0 !~ /\\$/) { print substr($0, 5); exit } printf "%s\n", substr($0, 5) }' "$FLEET_DOC"
}

# doc_block MARKER: the indented code block that follows the line MARKER, less its indent
doc_block() {
  awk -v m="$1" 'in_block && /^    / { print substr($0, 5); next }
                 in_block && NF { exit }
                 $0 == m { in_block = 1 }' "$FLEET_DOC"
}

# free_ports N: N distinct TCP ports nothing listens on now, on the loopback address
free_ports() {
  python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

# fleet_dumps N: N generated fleet dumps in dumps/ with their --expect records in expect/, and a
# file that is not a dump (dumps/bad.hprof)
fleet_dumps() {
  mkdir -p dumps expect
  for i in $(seq 0 $(($1 - 1))); do
    "$GEN" --scenario fleet --index "$i" -o "dumps/d$i.hprof" --expect "expect/d$i.json" >/dev/null 2>&1
  done
  echo "not a heap dump" > dumps/bad.hprof
}

# the hprofkit under test as `hprofkit` on PATH, here and for the sessions of the test's sshd
fleet_path() {
  mkdir -p "$T/bin"
  ln -sf "$HK" "$T/bin/hprofkit"
  export PATH="$T/bin:$PATH"
}

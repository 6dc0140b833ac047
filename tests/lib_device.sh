# Helpers for the tests that run real processes: a JVM with the JDWP agent, the test device
# daemon (tests/adbd/) and the real adb server (t_jdwp.sh, t_fetch.sh, t_device.sh).
# Source after tests/lib.sh. Everything started is registered in PIDS / SERVERS and ended on exit.
ADBD="$BUILD/core/device/hk-adbd"

PIDS=()
SERVERS=()
dev_cleanup() {
  for p in "${SERVERS[@]}"; do timeout 5 adb -P "$p" kill-server >/dev/null 2>&1; done
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
}
trap dev_cleanup EXIT

# free_port: a TCP port on 127.0.0.1 that nothing listens on.
free_port() { "$ADBD" --free-port; }

# wait_for FILE: up to 10 s for a file to be non-empty.
wait_for() { for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }

# compile_java DIR FILE... : javac into DIR; errors in $T/javac.err.
compile_java() {
  local dir=$1; shift
  mkdir -p "$dir"
  javac -d "$dir" "$@" 2>"$T/javac.err"
}

# jdwp_java PORT LOG JAVA-ARGS... : starts a JVM in the background with the JDWP agent listening
# on 127.0.0.1:PORT (JAVA_OPTS: more JVM options), output to LOG; sets JVM_PID.
jdwp_java() {
  local port=$1 log=$2; shift 2
  java ${JAVA_OPTS:-} -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:$port \
    "$@" >"$log" 2>&1 &
  JVM_PID=$!
  PIDS+=("$JVM_PID")
}

# start_jvm_app NAME MAIN ARGS... : runs class MAIN from $CLS (an app of tests/java/ that writes
# DIR/ready when up and ticks DIR/heartbeat) with ARGS and its dir $T/NAME last, on a fresh JDWP
# port, and waits for it. Sets APP_DIR, APP_PORT, APP_PID.
start_jvm_app() {
  local name=$1 main=$2; shift 2
  APP_PORT=$(free_port); APP_DIR="$T/$name"
  mkdir -p "$APP_DIR"
  jdwp_java "$APP_PORT" "$APP_DIR.log" -cp "$CLS" "$main" "$@" "$APP_DIR"
  APP_PID=$JVM_PID
  for _ in $(seq 150); do [ -f "$APP_DIR/ready" ] && return 0; sleep 0.1; done
  echo "app $name did not start: $(head -c 300 "$APP_DIR.log")" >&2
  return 1
}

# running DIR: the app's looper still ticks (it was not left suspended).
running() {
  local a b
  a=$(cat "$1/heartbeat" 2>/dev/null || echo 0); sleep 0.5
  b=$(cat "$1/heartbeat" 2>/dev/null || echo 0)
  [ "$b" -gt "$a" ] 2>/dev/null
}

# adb_env: a private adb world: no inherited server socket or SDK, keys under $T/home.
adb_env() {
  unset ADB_SERVER_SOCKET ANDROID_HOME ANDROID_SDK_ROOT
  export HOME="$T/home" HK_ADB_TIMEOUT=10
  mkdir -p "$HOME"
}

# start_daemon NAME ARGS... : a test device daemon scripted by $CFG; its port in $T/NAME.port,
# its serial in DAEMON_SERIAL.
start_daemon() {
  local name=$1; shift
  "$ADBD" -c "$CFG" -P "$T/$name.port" "$@" 2>>"$T/adbd.err" &
  PIDS+=($!)
  wait_for "$T/$name.port"
  DAEMON_SERIAL=127.0.0.1:$(cat "$T/$name.port")
}

# start_adb_server: the real adb server on a free port, exported as ANDROID_ADB_SERVER_PORT and
# kept in APORT. Fails when it does not start.
start_adb_server() {
  APORT=$(free_port)
  SERVERS+=($APORT)
  export ANDROID_ADB_SERVER_PORT=$APORT
  timeout 30 adb -P "$APORT" start-server >/dev/null 2>&1
}

# adb_connect SERIAL: has the server connect to a daemon.
adb_connect() { timeout 10 adb -P "$APORT" connect "$1" >/dev/null 2>&1; }

# adb_wait SERIAL STATE: up to 10 s for the server to list SERIAL as STATE (device, offline, ...).
adb_wait() {
  for _ in $(seq 50); do
    adb -P "$APORT" devices 2>/dev/null | grep -q "^$1[[:space:]]*$2" && return 0; sleep 0.2
  done
  return 1
}

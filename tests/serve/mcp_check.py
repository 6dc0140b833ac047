#!/usr/bin/env python3
"""A scripted MCP client: starts `hprofkit mcp DUMP`, speaks JSON-RPC 2.0 over its stdio one line
a message, and holds tools/call to the CLI's --json.  Prints PASS/FAIL lines.
Usage: mcp_check.py HK DUMP"""
import json
import subprocess
import sys

hk, dump = sys.argv[1], sys.argv[2]


def check(name, cond, why=""):
    print(("PASS " if cond else "FAIL ") + name + ("" if cond else ": " + str(why)[:300]), flush=True)


def cli(*args):
    return json.loads(subprocess.run([hk] + list(args) + ["--json"], capture_output=True, check=True).stdout)


p = subprocess.Popen([hk, "mcp", dump], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
next_id = [0]


def send(method, params=None, notify=False):
    msg = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    if not notify:
        next_id[0] += 1
        msg["id"] = next_id[0]
    p.stdin.write(json.dumps(msg) + "\n")
    p.stdin.flush()
    if notify:
        return None
    line = p.stdout.readline()
    r = json.loads(line)
    if r.get("id") != msg["id"]:
        raise SystemExit("FAIL mcp-ids: reply id %r for request %r" % (r.get("id"), msg["id"]))
    return r


r = send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
res = r.get("result", {})
check("initialize", res.get("protocolVersion") == "2025-06-18" and "tools" in res.get("capabilities", {}) and
      res.get("serverInfo", {}).get("name") == "hprofkit", r)
send("notifications/initialized", notify=True)
r = send("tools/list")
tools = {t["name"]: t for t in r["result"]["tools"]}
every = set(x["name"] for x in json.loads(subprocess.run([hk, "queries", "--json"], capture_output=True).stdout))
device_or_files = {"devices", "processes", "dump", "watch", "fetch-bitmaps", "convert", "fleet-ingest", "fleet-report",
                   "meminfo", "smaps", "plugins", "diff", "native", "native-diff", "profile-native", "exits"}  # files they name, devices
check("tools-list-every-query", set(tools) == every - device_or_files,
      "extra %s missing %s" % (set(tools) - every, every - device_or_files - set(tools)))
h = tools.get("histogram", {}).get("inputSchema", {})
check("tool-schema-from-declaration", h.get("properties", {}).get("n", {}).get("type") == "integer" and
      h["properties"].get("heap", {}).get("type") == "string", h)
o = tools.get("object", {}).get("inputSchema", {})
check("tool-schema-required-positional", o.get("required") == ["id"], o)


def call(name, args):
    r = send("tools/call", {"name": name, "arguments": args})
    res = r["result"]
    return res.get("isError"), res["content"][0]["text"]


e, text = call("histogram", {"n": 10})
check("call-histogram-equals-cli", not e and json.loads(text) == cli("histogram", dump, "-n", "10"), text)
e, text = call("histogram", {"n": 5, "heap": "app", "sort": "count"})
check("call-options-equal-cli", not e and json.loads(text) == cli("histogram", dump, "-n", "5", "--heap", "app", "--sort", "count"), text)
top = cli("top", dump, "-n", "2")
for t in top:
    e, text = call("path", {"id": t["id"]})
    check("call-path-equals-cli " + t["id"], not e and json.loads(text) == cli("path", dump, t["id"]), text)
e, text = call("top", {"n": 2, "all": True})
check("call-boolean-equals-cli", not e and json.loads(text) == cli("top", dump, "-n", "2", "--all"), text)
e, text = call("object", {"id": "0x1"})
check("call-error-is-tool-error", e is True and "no object with id 0x1" in text and "\n" not in text, text)
e, text = call("bitmaps", {"export": "/tmp/hk-mcp-should-not-exist"})
check("call-export-refused", e is True and "not offered" in text, text)
e, text = call("bitmaps", {"export=/tmp/hk-mcp-should-not-exist": "x"})
check("call-smuggled-option-refused", e is True and "not an argument name" in text, text)
e, text = call("devices", {})
check("call-device-command-refused", e is True, text)
r = send("no/such/method")
check("unknown-method", r.get("error", {}).get("code") == -32601, r)
p.stdin.write("this is not json\n")
p.stdin.flush()
r = json.loads(p.stdout.readline())
check("parse-error", r.get("error", {}).get("code") == -32700 and r.get("id") is None, r)
r = send("ping")
check("ping-after-errors", r.get("result") == {}, r)
p.stdin.close()
rc = p.wait(timeout=60)
check("eof-exit-0", rc == 0, rc)

#!/usr/bin/env python3
"""A runner for Baton's transport A written from seed 003 (the Delta CI runner protocol) and
docs/protocol.md alone: Python 3's standard library only, NATS's text protocol over a plain
socket for the queue, urllib for the orchestrator. It is the proof that a runner in any language
can speak transport A; Baton's own Java runner is `baton runner up --transport nats`.

    seed_runner.py --server http://127.0.0.1:7700 --runner gpu-box-1 --key-file KEY \
                   --nats 127.0.0.1:4222 --spec x86-small [--jobs N]

It pulls LeaseGranted from the spec's work queue (JetStream pull: a request on
$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>), sends AckLease, acks the broker message (+ACK)
once it holds the lease (-NAK lets another runner have it, +TERM drops a stale offer), runs
job_spec.steps with sh, heartbeats, obeys CancelRequested (control subject and HeartbeatAck) with
CancelAck, stops on StaleLease without saying more, and ends with Complete. Only seed 003's
fields are sent: no Baton extensions.

It keeps pulling: a pull is over when it brings an offer or a status (408 expired, 404, 409, 503
no responders), or when its expiry has passed without either. JetStream answers nothing at all
to a pull on a consumer or stream that does not exist (yet: the server creates them on its lease
pump's first round after the spec exists; again: a broker that lost its state), and a pull in
flight is lost when the connection to the broker drops, so a runner that waited for an answer
would wait for ever.
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone

STREAM = "BATON_LEASES"


def now():
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def log(*parts):
    print("seed-runner:", *parts, file=sys.stderr, flush=True)


class Nats:
    """The bits of NATS's client protocol a pull runner needs: CONNECT, SUB, PUB, MSG/HMSG, PING/PONG."""

    def __init__(self, host, port, name):
        self.sock = socket.create_connection((host, port), timeout=10)
        self.buf = b""
        self.sid = 0
        self.handlers = {}
        info = self._line()
        if not info.startswith(b"INFO "):
            raise IOError("not a NATS server: %r" % info[:40])
        self._send(b"CONNECT " + json.dumps({"verbose": False, "pedantic": False, "headers": True, "no_responders": True,
                                               "name": name, "lang": "python-seed", "version": "1", "protocol": 1}).encode() + b"\r\n")
        self._send(b"PING\r\n")
        while True:  # the first PONG confirms the CONNECT
            line = self._line()
            if line == b"PONG":
                break
            if line.startswith(b"-ERR"):
                raise IOError(line.decode())

    def _send(self, data):
        self.sock.sendall(data)

    def _fill(self, timeout):
        self.sock.settimeout(timeout)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            return False
        if not chunk:
            raise IOError("NATS connection closed")
        self.buf += chunk
        return True

    def _line(self, timeout=10):
        while b"\r\n" not in self.buf:
            if not self._fill(timeout):
                return None
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _bytes(self, n):
        while len(self.buf) < n + 2:
            self._fill(10)
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def subscribe(self, subject, handler):
        self.sid += 1
        self.handlers[str(self.sid)] = handler
        self._send(("SUB %s %d\r\n" % (subject, self.sid)).encode())

    def publish(self, subject, payload, reply=None):
        data = payload.encode() if isinstance(payload, str) else payload
        head = "PUB %s %s%d\r\n" % (subject, (reply + " ") if reply else "", len(data))
        self._send(head.encode() + data + b"\r\n")

    def poll(self, timeout):
        """Reads what has arrived within `timeout` seconds and hands each message to its subscription."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if b"\r\n" not in self.buf and (left <= 0 or not self._fill(max(left, 0.01))):
                return
            line = self._line()
            if line is None:
                return
            if line == b"PING":
                self._send(b"PONG\r\n")
            elif line.startswith(b"MSG ") or line.startswith(b"HMSG "):
                parts = line.decode().split(" ")
                if parts[0] == "MSG":
                    subject, sid = parts[1], parts[2]
                    reply = parts[3] if len(parts) == 5 else None
                    data = self._bytes(int(parts[-1]))
                    headers = b""
                else:
                    subject, sid = parts[1], parts[2]
                    reply = parts[3] if len(parts) == 6 else None
                    header_len, total = int(parts[-2]), int(parts[-1])
                    raw = self._bytes(total)
                    headers, data = raw[:header_len], raw[header_len:]
                handler = self.handlers.get(sid)
                if handler:
                    handler(subject, reply, headers, data)
            elif line.startswith(b"-ERR"):
                log("NATS error:", line.decode())


class Orchestrator:
    """AckLease, Heartbeat, Complete and CancelAck over HTTP with the runner key."""

    def __init__(self, server, runner, key):
        self.base = server.rstrip("/") + "/v0/runners/" + runner + "/leases/"
        self.key = key

    def get(self, what):
        request = urllib.request.Request(self.base + what, headers={"Authorization": "Bearer " + self.key})
        with urllib.request.urlopen(request, timeout=30) as r:
            return json.loads(r.read())

    def post(self, what, message):
        request = urllib.request.Request(self.base + what, data=json.dumps(message).encode(), method="POST",
                                         headers={"Authorization": "Bearer " + self.key, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")


class Runner:
    def __init__(self, args, key):
        self.args = args
        self.api = Orchestrator(args.server, args.runner, key)
        host, port = args.nats.rsplit(":", 1)
        self.nats = Nats(host, int(port), "seed-runner-" + args.runner)
        # Replies (pulled offers) come below the inbox prefix the server names: the runner's NATS user may read only there.
        try:
            prefix = self.api.get("subjects").get("inbox_prefix") or "_INBOX"
        except (urllib.error.URLError, OSError, ValueError) as e:
            log("cannot ask the server for the inbox prefix, using _INBOX:", e)
            prefix = "_INBOX"
        self.inbox = "%s.seed-%d" % (prefix, os.getpid())
        self.offers = []
        self.pulls = 0
        self.pulling = None  # the reply subject of the pull in flight, None when none is
        self.pull_over_at = 0.0  # when the pull in flight counts as unanswered (time.monotonic())
        self.unanswered = False  # the last pull got no answer (logged once until one is answered)
        self.cancel = None  # a CancelRequested for the job being run
        self.done = 0
        self.stopping = False
        self.nats.subscribe(self.inbox + ".*", self.on_offer)
        self.nats.subscribe("baton.control." + args.runner, self.on_control)

    def on_offer(self, subject, reply, headers, data):
        status = headers.startswith(b"NATS/1.0 ") and headers[9:10].isdigit()
        if subject == self.pulling:
            self.pulling = None
            self.unanswered = False
        if status or not data:
            return  # 404 No Messages, 408 Request Timeout, 409, 503 No Responders: the pull ended empty
        # An offer is taken even when it answers an earlier pull given up on: the broker delivered it.
        self.offers.append((reply, json.loads(data)))

    def on_control(self, subject, reply, headers, data):
        message = json.loads(data)
        if message.get("type") == "CancelRequested":
            self.cancel = message

    PULL_EXPIRES = 2.0
    # How long past its expiry a pull's 408 may take to arrive before the pull counts as unanswered.
    PULL_GRACE = 1.0

    def pull(self):
        """One JetStream pull request for one message, expiring after 2 s; again when the last one
        ended, or went unanswered past its expiry (each pull has its own reply subject, so a late
        answer to an abandoned pull does not end the current one)."""
        consumer = "baton-" + self.args.spec
        if self.pulling is not None:
            if time.monotonic() < self.pull_over_at:
                return
            if not self.unanswered:
                log("pull from consumer", consumer, "got no answer (no such consumer or stream yet, or the broker lost it):",
                    "pulling again")
                self.unanswered = True
        self.pulls += 1
        self.pulling = "%s.%d" % (self.inbox, self.pulls)
        self.pull_over_at = time.monotonic() + self.PULL_EXPIRES + self.PULL_GRACE
        self.nats.publish("$JS.API.CONSUMER.MSG.NEXT.%s.%s" % (STREAM, consumer),
                          json.dumps({"batch": 1, "expires": int(self.PULL_EXPIRES * 1e9)}), reply=self.pulling)

    def serve(self):
        while not self.stopping and (self.args.jobs == 0 or self.done < self.args.jobs):
            self.pull()
            self.nats.poll(0.5)
            while self.offers:
                reply, offer = self.offers.pop(0)
                self.take(reply, offer)

    def take(self, reply, lease):
        status, answer = self.api.post("ack", {"type": "AckLease", "job_id": lease["job_id"], "lease_id": lease["lease_id"],
                                               "runner_id": self.args.runner, "accepted_at": now()})
        if status == 200 and answer.get("type") == "StaleLease":
            log("offer of job", lease["job_id"], "is stale:", answer.get("reason"), "- not running it")
            self.nats.publish(reply, "+TERM")
            return
        if status != 200:
            log("AckLease refused:", status, answer)
            self.nats.publish(reply, "-NAK")
            return
        self.nats.publish(reply, "+ACK")
        self.run(lease)
        self.done += 1

    def run(self, lease):
        lease_id = lease["lease_id"]
        steps = lease["job_spec"].get("steps") or []
        interval = max(1, int(lease.get("heartbeat_interval_seconds", 20)))
        started = now()
        self.cancel = None
        process = subprocess.Popen(["sh", "-c", " && ".join(steps) or "true"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True)
        log("running job", lease["job_id"])
        next_beat = time.monotonic() + interval
        deadline = time.monotonic() + int(lease.get("max_runtime_seconds", 3600))
        stale = False
        while process.poll() is None:
            self.nats.poll(0.2)
            if time.monotonic() >= next_beat:
                next_beat = time.monotonic() + interval
                status, ack = self.api.post("heartbeat", {"type": "Heartbeat", "lease_id": lease_id, "runner_id": self.args.runner,
                                                          "progress": {"message": "running"}, "ts": now()})
                if ack.get("type") == "StaleLease":
                    stale = True
                elif ack.get("cancel_requested") and self.cancel is None:
                    self.cancel = {"lease_id": lease_id, "deadline_seconds": ack.get("cancel_deadline_seconds", 30)}
            if self.cancel is not None and self.cancel.get("lease_id") == lease_id or stale or time.monotonic() > deadline:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                break
        out, err = process.communicate()
        if stale:
            log("lease of job", lease["job_id"], "is stale: stopped, nothing reported")
            return
        if self.cancel is not None and self.cancel.get("lease_id") == lease_id:
            status, answer = self.api.post("cancel-ack", {"type": "CancelAck", "lease_id": lease_id, "runner_id": self.args.runner,
                                                          "final_status": "CANCELED", "ts": now(), "artifacts": [],
                                                          "summary": "canceled"})
            log("CancelAck:", answer)
            return
        code = process.returncode
        status, answer = self.api.post("complete", {
            "type": "Complete", "lease_id": lease_id, "runner_id": self.args.runner,
            "status": "SUCCEEDED" if code == 0 else "FAILED", "exit_code": code,
            "timings": {"started_at": started, "finished_at": now()}, "artifacts": [],
            "summary": (err or out).decode(errors="replace")[-2000:] or ("exit code %d" % code)})
        log("Complete of job", lease["job_id"], "->", answer)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", required=True)
    p.add_argument("--runner", required=True)
    p.add_argument("--key-file", required=True)
    p.add_argument("--nats", required=True, help="host:port")
    p.add_argument("--spec", required=True)
    p.add_argument("--jobs", type=int, default=0, help="exit after this many jobs (0: until SIGTERM)")
    args = p.parse_args()
    with open(args.key_file) as f:
        key = f.read().strip()
    runner = Runner(args, key)

    def stop(*_):
        runner.stopping = True

    signal.signal(signal.SIGTERM, stop)
    runner.serve()


if __name__ == "__main__":
    main()

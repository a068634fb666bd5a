#!/usr/bin/env python3
"""A worker written from seed 002 alone (issue 47): its "normal flow", with no Baton code.

Usage: seed_worker.py BASE_URL TOKEN QUEUE
Registers, fetches up to 5 jobs, heartbeats with their ids, acks each; prints one line per step.
Exits 0 when the flow went as the seed says, 1 otherwise.
"""
import json
import sys
import urllib.request

BASE, TOKEN, QUEUE = sys.argv[1], sys.argv[2], sys.argv[3]
WORKER = "worker-abc-123"


def post(path, body):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data if data is not None else b"", method="POST")
    req.add_header("Authorization", "Bearer " + TOKEN)
    req.add_header("Content-Type", "application/openjobspec+json")
    with urllib.request.urlopen(req) as answer:
        return answer.status, json.loads(answer.read() or b"{}")


def check(step, ok):
    print(step, "ok" if ok else "FAILED", flush=True)
    if not ok:
        sys.exit(1)


status, reg = post("/ojs/v1/workers/register", {"worker_id": WORKER, "hostname": "web-01.example.com", "pid": 12345,
                                                 "queues": [QUEUE], "concurrency": 10,
                                                 "labels": ["region:us-east-1", "pool:critical"]})
check("register", status == 200 and reg.get("state") == "running" and reg.get("visibility_timeout") == 1800)
status, fetched = post("/ojs/v1/jobs/fetch", {"queues": [QUEUE], "count": 5, "worker_id": WORKER})
ids = [job["id"] for job in fetched.get("jobs", [])]
check("fetch %d" % len(ids), status == 200 and len(ids) > 0)
status, beat = post("/ojs/v1/workers/heartbeat", {"worker_id": WORKER, "state": "running", "active_job_ids": ids})
check("heartbeat", status == 200 and beat.get("state") == "running")
for job_id in ids:
    status, _ = post("/ojs/v1/jobs/%s/ack" % job_id, {"worker_id": WORKER, "result": {"done": True}})
    check("ack " + job_id, status == 200)

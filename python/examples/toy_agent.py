"""A toy agent loop recorded with primgraph.TraceWriter, then replayed.

The "agent" runs graphs/runs/fix-failing-test.graph.json with canned tools: it parses the issue,
drafts a patch, asks the policy gate, applies the patch, runs the tests (which fail once, so the
loop retries), and finishes. Each step is recorded as it happens; replay then checks the run
against the graph and the registry's contracts.

    python python/examples/toy_agent.py [OUT_DIR]
"""

import hashlib
import json
import pathlib
import sys

import primgraph as pg

GRAPH = pathlib.Path(__file__).resolve().parents[2] / "graphs" / "runs" / "fix-failing-test.graph.json"


def evidence(kind, payload):
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
    return {"kind": kind, "digest": f"sha256:{digest}"}


def run_agent(trace_path, issue="test_parse fails on empty input"):
    # overwrite=True: running the example again replaces its own trace (without it, an existing
    # file is refused).
    with pg.TraceWriter.create(trace_path, graph=GRAPH, run="toy-1", input={"issue": issue},
                               overwrite=True) as w:
        task = {"title": "empty input", "body": issue, "summary": "handle empty input",
                "test_ids": ["tests/test_parse.py::test_empty"], "paths": ["src/parse.py"]}
        w.step("read_task", input={"text": issue}, output=task,
               evidence=[evidence("task_record", task)], cost={"usd": 0.001, "tokens": 120})
        for attempt in range(1, 3):
            draft_in = {k: task[k] for k in ("paths", "summary", "test_ids")}
            patch = {"patch": f"--- a/src/parse.py\n+++ b/src/parse.py\n@@ attempt {attempt} @@\n",
                     "paths": ["src/parse.py"]}
            w.step("draft", input=draft_in, output=patch,
                   evidence=[evidence("model_transcript", draft_in), evidence("diff", patch)],
                   cost={"usd": 0.02, "tokens": 2400})
            grant = {"decision": "allow", "reason": "patch within src/",
                     "grant": {"token": "grant-token-0123456789", "scope": "src/", "issued_by": "policy"}}
            w.step("gate", input={"patch": patch["patch"]}, output=grant, outcome="allow",
                   evidence=[evidence("policy_decision", grant)])
            applied = {"paths": ["src/parse.py"]}
            w.step("apply", input={"patch": patch["patch"], "grant": grant["grant"]}, output=applied,
                   evidence=[evidence("diff", applied), evidence("policy_decision", grant)])
            passed = attempt == 2
            result = {"passed": passed, "failed": [] if passed else task["test_ids"],
                      "log": "ok" if passed else "AssertionError", "duration_ms": 40}
            w.step("test", input={"test_ids": task["test_ids"]}, output=result,
                   outcome="pass" if passed else "fail",
                   evidence=[evidence("test_report", result), evidence("command_log", result)])
            if passed:
                break
            decision = {"decision": "retry", "rationale": "one test still fails"}
            w.step("decide", input={"log": result["log"], "passed": result["passed"]},
                   output=decision, outcome="retry", evidence=[evidence("model_transcript", decision)])
        done = {"status": "success", "summary": task["summary"]}
        w.step("done", input={"summary": task["summary"]}, output=done,
               evidence=[evidence("run_record", done)])
        w.end("success")


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    trace = out / "toy-1.trace.jsonl"
    run_agent(trace)
    report = pg.replay(GRAPH, trace)
    print(report.verdict, report.steps, "steps,", report.end)
    for d in report.diagnostics:
        print(f"  {d['code']} seq {d.get('seq')}: {d['message']}")
    return 0 if report.faithful else 1


if __name__ == "__main__":
    sys.exit(main())

"""`primgraph import` against the real producers (SPEC §10, issue 26 item 7), installed from the
package registry by `.ci/requirements-import.txt`:

- Inspect AI writes an `.eval` log itself: `mockllm/model` scripts the tool calls (every output
  carries a `usage`, so mockllm never counts tokens with tiktoken, which would download);
- the OpenTelemetry SDK records GenAI spans, written as OTLP/JSON by an exporter that appends one
  `ExportTraceServiceRequest` per line, as the collector's file exporter does (IDs in base64, as
  protobuf's JSON mapping writes bytes);
- the OpenAI Agents SDK runs an agent on a fake model and a tracing processor writes its
  exported traces and spans, one item per line.

Each is imported with the installed wheel (`primgraph.import_runs`) and with the CLI, and the
traces replayed against `tests/fixtures/import/lookup.graph.json`. Nothing reaches the network:
the offline variables are set before any producer is imported, and the Agents SDK's backend
exporter is replaced by the file processor.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import subprocess

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TIKTOKEN_CACHE_DIR", "/nonexistent-offline")
os.environ.setdefault("INSPECT_DISABLE_TELEMETRY", "1")
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "0")
os.environ.setdefault("OPENAI_API_KEY", "sk-offline-test-not-used")

import pytest

import primgraph as pg

from conftest import REPO

inspect_ai = pytest.importorskip("inspect_ai")

GRAPH = REPO / "tests" / "fixtures" / "import" / "lookup.graph.json"
MAP = """
[tools]
grep = "search"

[final]
node = "answer"
"""


def _nodes(trace: pathlib.Path) -> list:
    lines = [json.loads(l) for l in trace.read_text().splitlines()]
    return [l.get("node") for l in lines if "seq" in l and "end" not in l]


def _cli(cli, *args, codes=(0,)):
    done = subprocess.run(
        [str(cli), *map(str, args)], capture_output=True, text=True, timeout=600, cwd=REPO
    )
    assert done.returncode in codes, done.stdout + done.stderr
    return done


# --- Inspect AI -------------------------------------------------------------------------------


def _inspect_log(tmp_path: pathlib.Path) -> pathlib.Path:
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate, use_tools
    from inspect_ai.tool import tool

    @tool
    def grep():
        async def execute(query: str):
            """Search the workspace.

            Args:
                query: what to look for.
            """
            return json.dumps({"matches": ["src/lib.rs"]})

        return execute

    @tool
    def read_file():
        async def execute(path: str):
            """Read a file.

            Args:
                path: the file.
            """
            if path == "missing.rs":
                raise FileNotFoundError(path)
            return json.dumps({"text": "fn main() {}"})

        return execute

    def script(input, tools, tool_choice, config):
        # By the conversation so far, so samples running at once each get their own script.
        question = next(m.text for m in input if m.role == "user")
        calls = sum(1 for m in input if m.role == "tool")
        path = "missing.rs" if "elsewhere" in question else "src/lib.rs"
        if calls == 0:
            out = ModelOutput.for_tool_call("mockllm/model", "grep", {"query": question})
        elif calls == 1:
            out = ModelOutput.for_tool_call("mockllm/model", "read_file", {"path": path})
        else:
            out = ModelOutput.from_content("mockllm/model", "main is in src/lib.rs")
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    task = Task(
        dataset=[
            Sample(id="main", input="where is main?", target="src/lib.rs"),
            Sample(id="else", input="where is it elsewhere?", target="nowhere"),
        ],
        solver=[use_tools(grep(), read_file()), generate()],
        scorer=includes(),
        epochs=2,
    )
    logs = inspect_eval(
        task,
        model="mockllm/model",
        model_args={"custom_outputs": script},
        log_dir=str(tmp_path / "logs"),
        log_format="eval",
        display="none",
    )
    assert logs[0].status == "success", logs[0].error
    return pathlib.Path(logs[0].location)


def test_an_inspect_eval_log_imports_and_replays(tmp_path, cli):
    from inspect_ai.log import read_eval_log

    log = _inspect_log(tmp_path)
    assert log.suffix == ".eval"
    mapping = tmp_path / "map.toml"
    mapping.write_text(MAP)
    out = tmp_path / "out"
    report = pg.import_runs("inspect", [log], graph=GRAPH, map=mapping, out=out)
    summary = report["summary"]
    # 2 samples × 2 epochs; each: grep, read_file, and the final answer.
    assert summary["runs"] == 4, report
    assert summary["steps"] == 12, report
    assert summary["errors"] == 0 and summary["unmapped"] == {}, report
    # As many tool steps per run as Inspect itself reads tool events.
    whole = read_eval_log(str(log))
    tools = {
        f"{s.id}_epoch_{s.epoch}": sum(1 for e in s.events if e.event == "tool")
        for s in whole.samples
    }
    assert sorted(tools) == sorted(pathlib.Path(r["trace"]).name[: -len(".trace.jsonl")] for r in report["runs"])
    for r in report["runs"]:
        trace = pathlib.Path(r["trace"])
        assert r["steps"] == tools[trace.name[: -len(".trace.jsonl")]] + 1
        nodes = _nodes(trace)
        assert nodes == ["search", "read", "answer"], nodes
        header = json.loads(trace.read_text().splitlines()[0])
        assert header["imported"]["format"] == "inspect"
        assert header["input"]["input"].startswith("where is")
    ends = {pathlib.Path(r["trace"]).name: r["end"] for r in report["runs"]}
    assert ends["main_epoch_1.trace.jsonl"] == "success"
    assert ends["else_epoch_2.trace.jsonl"] == "failure"
    failed = [json.loads(l) for l in (out / "else_epoch_1.trace.jsonl").read_text().splitlines()]
    read = next(l for l in failed if l.get("node") == "read")
    assert read["error"]["mode"] == "tool_error", read

    # Replayed against the graph with the wheel, and with the CLI: the same verdicts.
    reports, replay_summary = pg.replay_corpus(GRAPH, out)
    assert len(reports) == 4
    assert all(json.loads(r.to_json())["provenance"] == "imported" for r in reports)
    done = _cli(cli, "replay", "--graph", GRAPH, "--format", "json", out, codes=(0, 1))
    cli_runs = json.loads(done.stdout)["runs"]
    assert sorted(r["verdict"] for r in cli_runs) == sorted(r.verdict for r in reports)

    # The CLI imports the same log to the same traces.
    out2 = tmp_path / "cli"
    done = _cli(cli, "import", "inspect", log, "--graph", GRAPH, "--map", mapping, "--out", out2)
    assert "imported 4 run(s), 12 step(s) (4 partial)" in done.stdout, done.stdout
    for name in sorted(p.name for p in out.iterdir()):
        assert _nodes(out / name) == _nodes(out2 / name)


def test_import_runs_raises_located_errors_and_never_panics(tmp_path):
    bad = tmp_path / "bad.eval"
    bad.write_bytes(b"PK\x03\x04 this is no zip")
    with pytest.raises(pg.InputError) as info:
        pg.import_runs("inspect", [bad], graph=GRAPH, out=tmp_path / "o")
    err = info.value
    assert err.code == "I901" and err.file == str(bad), err
    assert err.report["summary"]["errors"] == 1
    # strict=False: the findings come back in the report instead.
    report = pg.import_runs("inspect", bad, graph=GRAPH, out=tmp_path / "o", strict=False)
    assert report["diagnostics"][0]["code"] == "I901"
    assert report["diagnostics"][0]["file"] == str(bad)

    # A mapping file that names no node of the graph: its line and column.
    mapping = tmp_path / "map.toml"
    mapping.write_text('[tools]\ngrep = "nowhere"\n')
    with pytest.raises(pg.InputError) as info:
        pg.import_runs("inspect", [bad], graph=GRAPH, map=mapping, out=tmp_path / "o")
    assert info.value.file == str(mapping) and info.value.line == 2, info.value

    with pytest.raises(ValueError, match="not one of"):
        pg.import_runs("langsmith", [bad], graph=GRAPH, out=tmp_path / "o")
    with pytest.raises(TypeError, match="sources"):
        pg.import_runs("inspect", [1], graph=GRAPH, out=tmp_path / "o")
    with pytest.raises(pg.GraphError):
        pg.import_runs("inspect", [bad], graph=tmp_path / "map.toml", out=tmp_path / "o")
    # A source that is not there: the exception's `file` is that path (SPEC §7: the location).
    with pytest.raises(pg.InputError, match="absent") as info:
        pg.import_runs("inspect", [tmp_path / "absent"], graph=GRAPH, out=tmp_path / "o")
    assert info.value.file == str(tmp_path / "absent"), info.value
    assert info.value.line is None and "No such file" in info.value.message, info.value
    with pytest.raises(pg.InputError) as info:
        pg.import_runs("inspect", [bad], graph=tmp_path / "no.graph.json", out=tmp_path / "o")
    assert info.value.file == str(tmp_path / "no.graph.json"), info.value


# --- OpenTelemetry ----------------------------------------------------------------------------


def _otel_spans(path: pathlib.Path, capture_content: bool) -> None:
    from google.protobuf.json_format import MessageToJson
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

    class OtlpJsonLines(SpanExporter):
        """One OTLP/JSON `ExportTraceServiceRequest` per export, one per line (the collector's
        file exporter's format)."""

        def export(self, spans):
            with open(path, "a", encoding="utf-8") as f:
                f.write(MessageToJson(encode_spans(spans), indent=None) + "\n")
            return SpanExportResult.SUCCESS

        def shutdown(self):
            pass

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(OtlpJsonLines()))
    tracer = provider.get_tracer("lookup-agent")
    for question in ("where is main?", "where is lib?"):
        with tracer.start_as_current_span(
            "invoke_agent lookup",
            attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "lookup"},
        ):
            for name, args, result in (
                ("search_text", {"query": question}, {"matches": ["src/lib.rs"]}),
                ("read_file", {"path": "src/lib.rs"}, {"text": "fn main() {}"}),
            ):
                attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
                if capture_content:
                    attributes["gen_ai.tool.call.arguments"] = json.dumps(args)
                    attributes["gen_ai.tool.call.result"] = json.dumps(result)
                with tracer.start_as_current_span(f"execute_tool {name}", attributes=attributes):
                    pass
    provider.shutdown()


def test_opentelemetry_genai_spans_import_and_replay(tmp_path, cli):
    spans = tmp_path / "spans.jsonl"
    _otel_spans(spans, capture_content=True)
    first = json.loads(spans.read_text().splitlines()[0])
    span = first["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert not all(c in "0123456789abcdef" for c in span["traceId"]), "protobuf writes base64 IDs"
    out = tmp_path / "out"
    report = pg.import_runs("otel", spans, graph=GRAPH, out=out)
    assert report["summary"]["runs"] == 2, report
    assert report["summary"]["steps"] == 4 and report["summary"]["partial_steps"] == 0, report
    for r in report["runs"]:
        assert _nodes(pathlib.Path(r["trace"])) == ["search", "read"]
        lines = [json.loads(l) for l in pathlib.Path(r["trace"]).read_text().splitlines()]
        assert lines[1]["output"] == {"matches": ["src/lib.rs"]}
    reports, _ = pg.replay_corpus(GRAPH, out)
    assert len(reports) == 2

    # Without the opt-in content attributes: partial steps (I903), nothing invented.
    bare = tmp_path / "bare.jsonl"
    _otel_spans(bare, capture_content=False)
    done = _cli(cli, "import", "otel", bare, "--graph", GRAPH, "--out", tmp_path / "bare", "--format", "json")
    report = json.loads(done.stdout)
    assert report["summary"]["partial_steps"] == 4, report
    assert any(d["code"] == "I903" for d in report["diagnostics"]), report
    for r in report["runs"]:
        steps = [json.loads(l) for l in pathlib.Path(r["trace"]).read_text().splitlines()][1:-1]
        for step in steps:
            assert step["partial"] is True, step
            assert "input" not in step and "output" not in step, step
    # The partial steps replay: their node and order are checked, their content is not.
    reports, _ = pg.replay_corpus(GRAPH, tmp_path / "bare")
    assert len(reports) == 2
    for r in reports:
        # The run's own input was not captured either: the header's D606 (seq 0) is what follows
        # from that; no step's content is checked.
        codes = {d["code"] for d in r.diagnostics if d.get("seq")}
        assert not codes & {"D605", "D606", "D607", "D616"}, r.diagnostics


# --- OpenAI Agents SDK ------------------------------------------------------------------------


def _agents_traces(path: pathlib.Path) -> None:
    from agents import Agent, Runner, function_tool, set_trace_processors
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.tracing import TracingProcessor
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    class FileProcessor(TracingProcessor):
        """Writes every finished trace and span as the SDK exports it, one item per line."""

        def _write(self, item):
            exported = item.export()
            if exported:
                with open(path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(exported) + "\n")

        def on_trace_start(self, trace):
            pass

        def on_trace_end(self, trace):
            self._write(trace)

        def on_span_start(self, span):
            pass

        def on_span_end(self, span):
            self._write(span)

        def shutdown(self):
            pass

        def force_flush(self):
            pass

    class FakeModel(Model):
        """Calls `search_text`, then `read_file`, then answers: by the tool outputs so far."""

        async def get_response(self, system_instructions, input, *args, **kwargs):
            done = sum(1 for i in input if isinstance(i, dict) and i.get("type") == "function_call_output") if isinstance(input, list) else 0
            usage = Usage(requests=1, input_tokens=1, output_tokens=1, total_tokens=2)
            if done < 2:
                name, arguments = [("search_text", {"query": "main"}), ("read_file", {"path": "src/lib.rs"})][done]
                call = ResponseFunctionToolCall(
                    type="function_call", call_id=f"call_{done}", name=name,
                    arguments=json.dumps(arguments), id=f"fc_{done}", status="completed",
                )
                return ModelResponse(output=[call], usage=usage, response_id=None)
            message = ResponseOutputMessage(
                id="msg_1", type="message", role="assistant", status="completed",
                content=[ResponseOutputText(type="output_text", text="src/lib.rs", annotations=[])],
            )
            return ModelResponse(output=[message], usage=usage, response_id=None)

        def stream_response(self, *args, **kwargs):  # pragma: no cover - not streamed here
            raise NotImplementedError

    @function_tool
    def search_text(query: str) -> str:
        """Search the workspace."""
        return json.dumps({"matches": ["src/lib.rs"]})

    @function_tool
    def read_file(path: str) -> str:
        """Read a file."""
        return json.dumps({"text": "fn main() {}"})

    set_trace_processors([FileProcessor()])
    agent = Agent(name="lookup", instructions="find it", tools=[search_text, read_file], model=FakeModel())
    result = asyncio.run(Runner.run(agent, "where is main?"))
    assert result.final_output == "src/lib.rs"


def test_openai_agents_traces_import_and_replay(tmp_path, cli):
    traces = tmp_path / "agents.jsonl"
    _agents_traces(traces)
    kinds = [json.loads(l)["object"] for l in traces.read_text().splitlines()]
    assert "trace" in kinds and "trace.span" in kinds
    out = tmp_path / "out"
    done = _cli(cli, "import", "openai-agents", traces, "--graph", GRAPH, "--out", out, "--format", "json")
    report = json.loads(done.stdout)
    assert report["summary"]["runs"] == 1, report
    assert report["summary"]["unmapped"] == {}, report
    trace = pathlib.Path(report["runs"][0]["trace"])
    assert _nodes(trace) == ["search", "read"]
    lines = [json.loads(l) for l in trace.read_text().splitlines()]
    assert lines[1]["input"] == {"query": "main"}
    assert lines[2]["output"] == {"text": "fn main() {}"}
    same = pg.import_runs("openai-agents", [traces], graph=GRAPH, out=tmp_path / "py")
    assert same["summary"] == report["summary"]
    reports, _ = pg.replay_corpus(GRAPH, out)
    assert json.loads(reports[0].to_json())["provenance"] == "imported"

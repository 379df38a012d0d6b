"""The real ``hwbot slack`` process: answers a signed mention over loopback, and fails in one line."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.harness.fake_slack import FakeSlackApi
from tests.harness.slack_app import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, block_texts, blocks_of
from tests.harness.slack_requests import SlackSender, mention

HWBOT = str(Path(sys.executable).parent / "hwbot")
SECRETS = (BOT_TOKEN, SIGNING_SECRET, APP_TOKEN)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(base: dict[str, str], fake: FakeSlackApi, tmp_path: Path, **overrides: str | None) -> dict[str, str]:
    env = dict(base)
    for name in ("SLACK_APP_TOKEN", "HWBOT_ALLOWED_CHANNELS", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"):
        env.pop(name, None)
    env.update(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SIGNING_SECRET,
        HWBOT_SLACK_API_URL=fake.api_url,
        HWBOT_FEEDBACK_DB=str(tmp_path / "feedback.sqlite3"),
    )
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([HWBOT, *args], env=env, capture_output=True, text=True, timeout=120)


def _one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr
    for secret in SECRETS:
        assert secret not in result.stderr + result.stdout
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: ")
    return last


@pytest.mark.slow
def test_hwbot_slack_http_answers_a_signed_mention_in_its_thread(fake_slack: FakeSlackApi, hwbot_env, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    port = _free_port()
    env = _env(hwbot_env, fake_slack, tmp_path)
    proc = subprocess.Popen(
        [HWBOT, "slack", "--http", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "listening on" in line:
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 240
        while not ready.wait(0.5):
            assert proc.poll() is None, "hwbot slack exited early:\n" + "".join(lines)
            assert time.monotonic() < deadline, "hwbot slack never started listening:\n" + "".join(lines)
        url = f"http://127.0.0.1:{port}/slack/events"
        assert any(url in line for line in lines)  # bound to loopback by default

        sender = SlackSender(url, SIGNING_SECRET)
        event = mention("Where are TPUs strongest?")
        assert sender.event(event).status == 200
        post = fake_slack.wait_for("chat.postMessage", timeout=120)[0]
        assert post.body["channel"] == event["channel"]
        assert post.body["thread_ts"] == event["ts"]
        sources = [b for b in blocks_of(post.body) if b.get("block_id") == "hwbot_sources"]
        assert sources and "[file_gpu" in "\n".join(block_texts(sources))
        forged = sender.raw('{"type": "event_callback"}', content_type="application/json", signature="v0=" + "0" * 64)
        assert forged.status == 401
        fake_slack.wait_for("reactions.remove", timeout=30)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait(timeout=10)
        reader.join(timeout=10)
    assert code == 0, "".join(lines)
    log = "".join(lines)
    for secret in SECRETS:
        assert secret not in log
    assert "TPUs strongest" not in log  # message text never logged
    assert "answered a mention" in log


def test_missing_token_is_one_line_and_exit_2(fake_slack: FakeSlackApi, tmp_path: Path) -> None:
    env = _env(dict(os.environ), fake_slack, tmp_path, SLACK_BOT_TOKEN=None)
    result = _run(["slack", "--http", "--port", "0"], env)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "SLACK_BOT_TOKEN is not set" in _one_error_line(result)
    assert fake_slack.calls() == []


def test_a_rejected_token_is_one_line_and_exit_2(fake_slack: FakeSlackApi, tmp_path: Path) -> None:
    wrong = "xoxb-9999-8888-wrongTOKENvalue"
    env = _env(dict(os.environ), fake_slack, tmp_path, SLACK_BOT_TOKEN=wrong)
    result = _run(["slack", "--http", "--port", "0"], env)
    assert result.returncode == 2
    line = _one_error_line(result)
    assert "SLACK_BOT_TOKEN was rejected" in line and "invalid_auth" in line
    assert wrong not in result.stderr
    assert [c.method for c in fake_slack.calls()] == ["auth.test"]


def test_socket_mode_with_a_rejected_app_token_fails_fast_in_one_line(fake_slack: FakeSlackApi, tmp_path: Path) -> None:
    env = _env(dict(os.environ), fake_slack, tmp_path, SLACK_APP_TOKEN="xapp-1-A0-0-wrongAPPtoken", SLACK_SIGNING_SECRET=None)
    result = _run(["slack"], env)
    assert result.returncode == 2
    line = _one_error_line(result)
    assert "SLACK_APP_TOKEN was rejected" in line
    assert "xapp-1-A0-0-wrongAPPtoken" not in result.stderr
    # Checked before the slow start-up: nothing but the two token checks happened.
    assert [c.method for c in fake_slack.calls()] == ["auth.test", "apps.connections.open"]


def test_an_unreachable_api_is_one_line(fake_slack: FakeSlackApi, tmp_path: Path) -> None:
    env = _env(dict(os.environ), fake_slack, tmp_path, HWBOT_SLACK_API_URL=f"http://127.0.0.1:{_free_port()}/api/")
    result = _run(["slack", "--http", "--port", "0"], env)
    assert result.returncode == 1
    assert "cannot reach the Slack Web API" in _one_error_line(result)

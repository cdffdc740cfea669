"""Every adapter, record type by record type: who wrote each text decides its class.

The fixtures under tests/fixtures/journals are hand-written in the shapes each agent
really writes. Every text that is injected by a harness or written by a model carries the
word NOTHUMAN, so one test can check across every format that none of it is ever filed as
the person's words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kura_core.distill.journals import (
    ADAPTERS,
    JournalError,
    guess_adapter,
    read_aider,
    read_claude,
    read_codex,
    read_gemini,
    read_journal,
    read_opencode,
)

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "journals"
CLAUDE_V2 = FIX / "claude_v2_session.jsonl"
CLAUDE_V1 = FIX / "claude_v1_session.jsonl"
CODEX = next((FIX / "codex").glob("rollout-2025-*.jsonl"))
CODEX_LEGACY = FIX / "codex" / "rollout-legacy.jsonl"
CODEX_SUBAGENT = FIX / "codex" / "rollout-subagent.jsonl"
AIDER = FIX / "aider" / ".aider.chat.history.md"
GEMINI_DOC = next((FIX / "gemini").glob("*.json"))
GEMINI_STREAM = next((FIX / "gemini").glob("*.jsonl"))
OPENCODE = FIX / "opencode" / "export-ses_7f3a2b1c.json"
OPENCODE_STORAGE = FIX / "opencode" / "storage" / "session" / "prj1" / "ses_7f3a2b1c0d9eXyZ.json"

ALL = [
    ("claude", CLAUDE_V2),
    ("claude", CLAUDE_V1),
    ("claude", FIX / "claude_session.jsonl"),
    ("claude", FIX / "gate_session.jsonl"),
    ("claude", FIX / "subagents" / "agent-a1.jsonl"),
    ("codex", CODEX),
    ("codex", CODEX_LEGACY),
    ("codex", CODEX_SUBAGENT),
    ("aider", AIDER),
    ("gemini", GEMINI_DOC),
    ("gemini", GEMINI_STREAM),
    ("opencode", OPENCODE),
    ("opencode", OPENCODE_STORAGE),
    ("evidence", FIX / "evidence.jsonl"),
    ("text", FIX / "notes.md"),
]


def pairs(read) -> list[tuple[str, str]]:
    return [(s.cls, s.text) for s in read.segments]


CLAUDE_V2_EXPECTED = [
    (
        "TOOL",
        "The user selected the lines 3 to 4 from /home/mika/rig/pump.toml:\nNOTHUMAN duty_cycle = 55\n\nThis may or may not be related to the current task.",
    ),
    ("USER", "please look at the pump controller config"),
    ("SELF", "I'll read the config and check the pump's current duty cycle."),
    ("ACT", "Read: /home/mika/rig/pump.toml"),
    ("TOOL", '1→[pump]\n     2→port = "/dev/ttyUSB0"\n     3→duty_cycle = 55'),
    ("ACT", "Bash: grep -n \"duty\" pump.toml &&\tprintf 'checked\\n'"),
    ("SELF", "NOTHUMAN look for the duty setting"),
    ("SELF", "checked"),
    ("TOOL", "3:duty_cycle = 55\nchecked"),
    ("ACT", 'Bash: echo "NOTHUMAN expected flow 12 l/min"'),
    ("SELF", "NOTHUMAN note the expected flow"),
    ("SELF", "NOTHUMAN expected flow 12 l/min"),
    ("SELF", "NOTHUMAN expected flow 12 l/min"),
    (
        "ACT",
        'Write: /home/mika/rig/pump.toml\n[pump]\nport = "/dev/ttyUSB0"\nduty_cycle = 40\n40 # minimum rpm percent',
    ),
    ("TOOL", "File created successfully at: /home/mika/rig/pump.toml"),
    ("ACT", "Write: /home/mika/rig/NOTES.md"),
    ("SELF", "# Pump notes\nNOTHUMAN The pump probably draws 30 W at full duty."),
    ("SELF", "File created successfully at: /home/mika/rig/NOTES.md"),
    ("ACT", "Bash: cat NOTES.md"),
    ("SELF", "NOTHUMAN show the notes"),
    ("SELF", "# Pump notes\nNOTHUMAN The pump probably draws 30 W at full duty."),
    ("ACT", "Read: /home/mika/rig/NOTES.md"),
    ("SELF", "1→# Pump notes\n     2→NOTHUMAN The pump probably draws 30 W at full duty."),
    ("ACT", "Edit: /home/mika/rig/pump.service\nRestart=always\nRestartSec=5"),
    ("TOOL", "The file /home/mika/rig/pump.service has been updated."),
    ("ACT", "MultiEdit: /home/mika/rig/crontab\n15 4 * * * /usr/local/bin/pump-flush"),
    ("ACT", "MultiEdit: /home/mika/rig/crontab\nMAILTO=mika"),
    ("TOOL", "Applied 2 edits to /home/mika/rig/crontab"),
    ("SELF", "NOTHUMAN lower the duty cycle\nNOTHUMAN restart the service"),
    ("SELF", "Todos have been modified successfully. NOTHUMAN"),
    ("ACT", "Task: general-purpose"),
    ("SELF", "NOTHUMAN check pump datasheet"),
    ("SELF", "NOTHUMAN Find the rated flow of the pump"),
    ("SELF", "NOTHUMAN The datasheet says 14 l/min rated flow."),
    ("ACT", "WebFetch: https://example.org/pump"),
    ("SELF", "NOTHUMAN What is the max head?"),
    ("SELF", "NOTHUMAN The page says max head is 6 m."),
    ("ACT", "WebSearch: pump 12V brushless max head"),
    (
        "SELF",
        'Web search results for query: "pump"\n\nLinks: []\n\nNOTHUMAN Most such pumps reach 5 m.',
    ),
    ("ACT", "mcp__homeassistant__set_state:\nentity_id: switch.pump\nstate: on"),
    ("SELF", "NOTHUMAN test the new duty"),
    ("TOOL", "switch.pump is on"),
    (
        "SELF",
        "NOTHUMAN Which duty cycle should stay?\nDuty\n40 percent\nNOTHUMAN quieter\n55 percent\nNOTHUMAN stronger",
    ),
    ("SELF", "NOTHUMAN Which duty cycle should stay?"),
    ("USER", "40 percent"),
    ("ACT", "Bash: rm -rf /home/mika/rig/logs"),
    ("SELF", "NOTHUMAN clear old logs"),
    ("USER", "keep the logs, they are evidence for the warranty claim"),
    ("ACT", "Read: /home/mika/rig/missing.txt"),
    ("TOOL", "<tool_use_error>File does not exist.</tool_use_error>"),
    ("SELF", "NOTHUMAN 1. lower duty 2. restart"),
    ("SELF", "User has approved your plan. NOTHUMAN"),
    ("USER", "/review-config focus on the flush schedule"),
    ("USER", "/model opus"),
    ("SELF", "NOTHUMAN Background command finished\nNOTHUMAN flush took 41 s"),
    ("USER", "also log the pump current please"),
    ("USER", "this photo shows the wiring\n[image]"),
    ("SELF", "NOTHUMAN The wiring looks fine."),
    ("USER", "never run the pump dry"),
    ("SELF", "The duty cycle is now 40 and the service restarts on failure."),
    (
        "SELF",
        "This session is being continued from a previous conversation that ran out of context. NOTHUMAN The user wanted 40 percent.",
    ),
    ("SELF", "Implement the following plan:\n\n# NOTHUMAN Plan\n1. keep 40 percent"),
    ("USER", "and make the log rotate weekly"),
]

CLAUDE_V1_EXPECTED = [
    ("USER", "the cache dir must stay on tmpfs"),
    ("ACT", "Task"),
    ("SELF", "NOTHUMAN survey"),
    ("SELF", "NOTHUMAN Check where the cache lives"),
    ("SELF", "NOTHUMAN Check where the cache lives"),
    ("ACT", "LS: /srv/app"),
    ("TOOL", "- /srv/app/\n  - cache/\n  - app.py"),
    ("SELF", "NOTHUMAN The cache lives in /srv/app/cache."),
    (
        "ACT",
        "Bash: cat > /etc/fstab.d/cache <<'EOF'\ntmpfs /srv/app/cache tmpfs size=512m 0 0\nEOF",
    ),
    ("SELF", "NOTHUMAN mount the cache on tmpfs"),
    ("ACT", "Bash: df -h /srv/app/cache"),
    ("TOOL", "tmpfs 512M 0 512M 0% /srv/app/cache"),
]

CODEX_EXPECTED = [
    ("USER", "raise the upload limit to 64 megabytes"),
    ("ACT", 'shell: grep -rn "client_max_body_size" /etc/nginx'),
    ("SELF", "NOTHUMAN find the current limit"),
    ("TOOL", "/etc/nginx/nginx.conf:31:\tclient_max_body_size 8m;"),
    ("SELF", "The limit is 8m today; I'll raise it."),
    ("ACT", "apply_patch: update /etc/nginx/nginx.conf\n\tclient_max_body_size 64m;"),
    ("ACT", "apply_patch: add /home/ana/site/CHANGES.md"),
    ("SELF", "NOTHUMAN Raised the upload limit for large photos."),
    ("TOOL", "Success. Updated the following files:\nM /etc/nginx/nginx.conf\nA CHANGES.md"),
    ("ACT", "exec_command: printf 'NOTHUMAN reload should take 2 s\\n'"),
    ("SELF", "NOTHUMAN say what happens next"),
    ("SELF", "NOTHUMAN reload should take 2 s"),
    (
        "SELF",
        "Chunk ID: 1a\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\nNOTHUMAN reload should take 2 s",
    ),
    ("SELF", "NOTHUMAN next steps\nNOTHUMAN reload nginx"),
    ("SELF", "Plan updated"),
    ("ACT", "local_shell: sudo nginx -s reload"),
    ("TOOL", "signal process started"),
    ("ACT", "web_search: nginx client_max_body_size default"),
    ("ACT", "spawn_agent"),
    ("SELF", "NOTHUMAN review"),
    ("SELF", "NOTHUMAN review the nginx change"),
    ("SELF", "NOTHUMAN The change looks correct; 64m is fine."),
    ("ACT", "shell: curl -sI localhost | head -1"),
    ("TOOL", "Exit code: 0\nDuration: 0.02 seconds\nOutput:\nHTTP/1.1 200 OK"),
    ("USER", "looks good, thanks\n[image]"),
    ("SELF", "NOTHUMAN Summary: the limit was raised to 64m."),
]

CODEX_LEGACY_EXPECTED = [
    ("USER", "rename the backup job to nightly-backup"),
    ("ACT", "shell: systemctl list-timers --all"),
    ("TOOL", "backup.timer  backup.service"),
    ("SELF", "Found backup.timer."),
]

AIDER_EXPECTED = [
    (
        "TOOL",
        "/home/lee/.local/bin/aider --model sonnet\nAider v0.86.1\nMain model: anthropic/claude-sonnet-4 with diff edit format\nGit repo: .git with 12 files\nRepo-map: using 4096 tokens, auto refresh",
    ),
    (
        "USER",
        "the backup retention should be 14 days, not 30\nand keep the weekly ones for 8 weeks",
    ),
    (
        "SELF",
        "NOTHUMAN I'll change the retention in the restic config and note it in the README.\n\n[edit: backup/restic.env]\n\n[edit: README.md]",
    ),
    ("ACT", "edit: backup/restic.env\nRETENTION_DAYS=14\nKEEP_WEEKLY=8"),
    ("ACT", "edit: README.md"),
    ("SELF", "NOTHUMAN Backups are kept for 14 days, weekly ones for 8 weeks."),
    (
        "TOOL",
        "Tokens: 4.1k sent, 212 received. Cost: $0.02 message, $0.02 session.\nApplied edit to README.md\nApplied edit to backup/restic.env\nCommit 3f2a9c1 chore: shorten backup retention",
    ),
    ("USER", "/run restic snapshots --compact"),
    (
        "TOOL",
        "Add 0.3k tokens of command output to the chat? (Y)es/(N)o [Yes]: y\nID        Time                 Host\n3c1d2e4f  2025-09-14 02:00:01  nas\n9a8b7c6d  2025-09-13 02:00:02  nas",
    ),
    (
        "SELF",
        "NOTHUMAN Two snapshots are listed, so the nightly job works.\n\n[edit: backup/crontab]",
    ),
    ("ACT", "edit: backup/crontab\n30 1 * * * restic backup /srv"),
    ("USER", "what time does the backup run now?"),
    ("SELF", "NOTHUMAN It runs at 01:30 every night."),
]

GEMINI_DOC_EXPECTED = [
    ("TOOL", "Content from @mqtt.conf:\nNOTHUMAN keepalive 60\nlistener 1883"),
    ("USER", "check @mqtt.conf and set the keepalive to 45 seconds"),
    ("SELF", "NOTHUMAN I will update the keepalive."),
    ("ACT", "replace: /etc/mosquitto/mqtt.conf\nkeepalive 45"),
    ("SELF", "NOTHUMAN lower the keepalive"),
    ("TOOL", "Successfully modified file: /etc/mosquitto/mqtt.conf (1 replacements)."),
    ("ACT", "run_shell_command: systemctl restart mosquitto && systemctl is-active mosquitto"),
    ("SELF", "NOTHUMAN restart the broker"),
    ("TOOL", "Command: systemctl restart mosquitto\nStdout: active\nExit Code: 0"),
    ("ACT", "web_fetch: https://mosquitto.org/man/mosquitto-conf-5.html"),
    ("SELF", "NOTHUMAN summarise https://mosquitto.org/man/mosquitto-conf-5.html keepalive"),
    ("SELF", "NOTHUMAN The page says the default keepalive is 60 s."),
    ("ACT", "google_web_search: mosquitto keepalive recommended"),
    ("SELF", "NOTHUMAN Most guides suggest 30 to 60 s."),
    ("ACT", "write_file: /home/kai/notes/broker.md"),
    ("SELF", "NOTHUMAN keepalive lowered to 45 s on Oct 2"),
    ("SELF", "Successfully created and wrote to new file."),
    ("ACT", "read_file: /home/kai/notes/broker.md"),
    ("SELF", "NOTHUMAN keepalive lowered to 45 s on Oct 2"),
    ("SELF", "NOTHUMAN the broker keepalive is 45 s"),
    ("SELF", "NOTHUMAN Okay, I've remembered that."),
    ("ACT", "run_shell_command: ls /nonexistent"),
    ("TOOL", "ls: cannot access '/nonexistent': No such file or directory"),
    ("TOOL", "Request cancelled."),
    ("USER", "good, leave the listener alone\n[image]"),
    ("SELF", "Understood, the listener stays on 1883."),
]

GEMINI_STREAM_EXPECTED = [
    ("USER", "turn the heat pump's night setback to 18 degrees"),
    ("ACT", "run_shell_command: heatctl set night 18"),
    ("SELF", "NOTHUMAN apply the setback"),
    ("TOOL", "night setback: 18.0 C"),
    ("SELF", "Done: the night setback is 18 degrees."),
    ("USER", "thanks"),
]

OPENCODE_EXPECTED = [
    ("USER", "set the grafana refresh to 30s on the lab dashboard\n[image]"),
    (
        "TOOL",
        'Called the Read tool with the following input: {"filePath":"/home/jo/lab/NOTHUMAN.json"}',
    ),
    ("TOOL", 'NOTHUMAN {"refresh": "5m"}'),
    ("SELF", "NOTHUMAN I'll change the dashboard JSON."),
    ("ACT", 'edit: /home/jo/lab/dashboard.json\n"refresh": "30s"'),
    ("TOOL", "Edit applied successfully."),
    ("ACT", "bash: jq -r .refresh /home/jo/lab/dashboard.json"),
    ("SELF", "NOTHUMAN verify the refresh"),
    ("TOOL", "30s"),
    ("ACT", "write: /home/jo/lab/CHANGELOG.md"),
    ("SELF", "NOTHUMAN - refresh every 30s"),
    ("SELF", "Wrote file successfully."),
    ("ACT", "webfetch: https://grafana.example/docs/refresh (format=markdown)"),
    ("SELF", "NOTHUMAN Dashboards refresh at the chosen interval."),
    ("ACT", "task: general"),
    ("SELF", "NOTHUMAN check alerts"),
    ("SELF", "NOTHUMAN look at alert rules"),
    ("SELF", "NOTHUMAN alerts fire every 2 minutes"),
    ("SELF", "NOTHUMAN restart grafana"),
    ("SELF", '[{"content":"NOTHUMAN restart grafana"}]'),
    ("ACT", "read: /home/jo/lab/missing.yaml"),
    ("TOOL", "Error: File not found: /home/jo/lab/missing.yaml"),
    ("SELF", "NOTHUMAN Restart grafana now?\nRestart\nyes\nNOTHUMAN restart\nlater\nNOTHUMAN wait"),
    ("SELF", "NOTHUMAN Restart grafana now?"),
    ("USER", "later, after the demo"),
    ("USER", "thanks, that's it for today"),
    ("SELF", "Done: refresh is 30s."),
]


@pytest.mark.parametrize(
    ("path", "reader", "expected"),
    [
        pytest.param(CLAUDE_V2, read_claude, CLAUDE_V2_EXPECTED, id="claude-2.x"),
        pytest.param(CLAUDE_V1, read_claude, CLAUDE_V1_EXPECTED, id="claude-1.0"),
        pytest.param(CODEX, read_codex, CODEX_EXPECTED, id="codex"),
        pytest.param(CODEX_LEGACY, read_codex, CODEX_LEGACY_EXPECTED, id="codex-legacy"),
        pytest.param(AIDER, read_aider, AIDER_EXPECTED, id="aider"),
        pytest.param(GEMINI_DOC, read_gemini, GEMINI_DOC_EXPECTED, id="gemini-saved-chat"),
        pytest.param(GEMINI_STREAM, read_gemini, GEMINI_STREAM_EXPECTED, id="gemini-stream"),
        pytest.param(OPENCODE, read_opencode, OPENCODE_EXPECTED, id="opencode-export"),
        pytest.param(OPENCODE_STORAGE, read_opencode, OPENCODE_EXPECTED, id="opencode-storage"),
    ],
)
def test_every_text_lands_in_its_class(path, reader, expected):
    read = reader(path, 0)
    assert pairs(read) == expected
    assert read.fatal == "" and dict(read.skipped) == {}


@pytest.mark.parametrize(("adapter", "path"), ALL, ids=[f"{a}-{p.name}" for a, p in ALL])
def test_no_injected_or_model_written_text_is_ever_user(adapter, path):
    if adapter == "text":  # plain text is read only when named, never detected
        with pytest.raises(JournalError, match="--adapter text"):
            guess_adapter(path)
    else:
        assert guess_adapter(path) == adapter  # detected by content
    _, read = read_journal(path, adapter)
    users = [s.text for s in read.segments if s.cls == "USER"]
    assert not [t for t in users if "NOTHUMAN" in t]
    if path not in (CODEX_SUBAGENT, FIX / "subagents" / "agent-a1.jsonl"):
        assert users, "the person's own words must survive"
    assert all(s.text == s.text.strip("\n") and s.text.strip() for s in read.segments)


def test_a_subagent_rollout_has_no_person_in_it():
    read = read_codex(CODEX_SUBAGENT, 0)
    assert [s.cls for s in read.segments] == ["SELF", "SELF"]


# ---------------------------------------------------------------------------- ACT as typed


def test_a_command_is_quotable_exactly_as_typed():
    from kura_core.distill.gate import run_gate

    segs = list(read_claude(CLAUDE_V2, 0).segments)
    act = [s.text for s in segs if s.cls == "ACT" and "grep" in s.text]
    assert act == ["Bash: grep -n \"duty\" pump.toml &&\tprintf 'checked\\n'"]
    cand = {
        "kind": "fact",
        "title": "Duty setting looked up",
        "description": "grep for duty",
        "body": "The duty setting was looked up with grep.",
        "tags": [],
        "quotes": ["[ACT] grep -n \"duty\" pump.toml &&\tprintf 'checked\\n'"],
        "belongs_because": "",
        "keep": "",
        "may_fade": "",
    }
    (res,) = run_gate([cand], segs)
    assert [(q.status, q.cls) for q in res.quotes] == [("verified", "ACT")]


def test_written_configuration_is_decoded_line_by_line():
    segs = read_claude(CLAUDE_V2, 0).segments
    (write,) = [
        s.text
        for s in segs
        if s.cls == "ACT" and s.text.startswith("Write: /home/mika/rig/pump.toml")
    ]
    lines = write.split("\n")
    assert "duty_cycle = 40" in lines
    assert "40 # minimum rpm percent" in lines  # a number at the start of a line is a number
    assert "\\n" not in write and '{"' not in write


def test_prose_written_by_the_agent_and_read_back_is_self():
    segs = read_claude(CLAUDE_V2, 0).segments
    notes = [s for s in segs if "draws 30 W" in s.text]
    assert len(notes) == 3 and {s.cls for s in notes} == {"SELF"}  # written, cat, Read


def test_the_agent_echoing_its_guess_vouches_no_more_than_self():
    segs = read_claude(CLAUDE_V2, 0).segments
    echoed = [s for s in segs if "expected flow 12" in s.text]
    assert [s.cls for s in echoed] == ["ACT", "SELF", "SELF"]  # command, its literal, its output


def test_a_result_is_classed_the_same_wherever_the_window_starts():
    from kura_core.distill.journals.base import CONTEXTS

    for path, reader in ((CLAUDE_V2, read_claude), (CLAUDE_V1, read_claude), (CODEX, read_codex)):
        whole = reader(path, 0)
        expect = {(s.start, s.text): s.cls for s in whole.segments}
        starts = sorted({s.start for s in whole.segments} | {n.start for n in whole.notes})
        for off in starts:
            CONTEXTS.clear()  # as a fresh process would: nothing cached
            part = reader(path, off)
            assert {(s.start, s.text): s.cls for s in part.segments} == {
                k: v for k, v in expect.items() if k[0] >= off
            }, (path.name, off)
        # and reading window by window in small steps gives the whole, in order
        CONTEXTS.clear()
        mark, got = 0, []
        while mark < whole.end:
            step = reader(path, mark, limit_bytes=700)
            assert step.end > mark
            got += pairs(step)
            mark = step.end
        assert got == pairs(whole)


def test_beyond_the_backward_scan_the_entry_metadata_still_decides(monkeypatch):
    from kura_core.distill.journals import base

    whole = read_claude(CLAUDE_V2, 0)
    (answer,) = [s for s in whole.segments if "14 l/min rated flow" in s.text]
    monkeypatch.setattr(base, "BACKSCAN_BYTES", 16)
    base.CONTEXTS.clear()
    part = read_claude(CLAUDE_V2, answer.start)
    assert [s.cls for s in part.segments if "14 l/min" in s.text] == ["SELF"]


def test_adapters_are_all_registered_with_one_signature(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    for name, reader in ADAPTERS.items():
        read = reader(empty, 0, limit_bytes=1024)
        assert read.segments == () and read.end == 0 and read.fatal == "", name

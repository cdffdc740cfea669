"""The provenance rules every adapter shares: tool calls, shell commands, file kinds."""

from __future__ import annotations

import pytest

from kura_core.distill.journals import provenance as pv
from kura_core.distill.journals.paths import is_prose_path
from kura_core.distill.journals.shell import analyze


@pytest.mark.parametrize(
    ("path", "prose"),
    [
        ("/home/a/NOTES.md", True),
        ("README", True),
        ("docs/guide.rst", True),
        ("todo.txt", True),
        ("CHANGELOG", True),
        ("journal.org", True),
        ("build.log", True),
        ("requirements.txt", False),
        ("requirements-dev.txt", False),
        ("CMakeLists.txt", False),
        ("pump.toml", False),
        ("app.yaml", False),
        ("x.json", False),
        ("gpu.service", False),
        ("nginx.conf", False),
        (".env", False),
        ("main.py", False),
        ("run.sh", False),
        ("crontab", False),
        ("Dockerfile", False),
        ("Makefile", False),
        ("", False),
    ],
)
def test_prose_documents_versus_configuration_code_and_data(path, prose):
    assert is_prose_path(path) is prose


SHELL = [
    # (command, literal output?, prose texts, prose files written, files read)
    ('echo "throughput 99 tok/s"', True, ["throughput 99 tok/s"], [], []),
    ("printf '%s rows\\n' 42", True, [" rows\n"], [], []),
    ("echo -e 'first line\\nsecond line'", True, ["first line\nsecond line"], [], []),
    ('echo "GPU1_FLOOR=30" | sudo tee /etc/gpu.conf', False, [], [], []),
    ("echo 'FLOOR=30' >> /etc/fan.conf && echo done writing", False, ["done writing"], [], []),
    ("cat > /etc/x.conf <<EOF\nA=30\nEOF", False, [], [], []),
    (
        "cat > notes.md <<'EOF'\nThe floor is 30 percent.\nEOF",
        False,
        ["The floor is 30 percent.\n"],
        ["/w/notes.md"],
        [],
    ),
    (
        "tee -a /w/LOG.md <<'EOF' >/dev/null\nran the bench twice\nEOF",
        False,
        ["ran the bench twice\n"],
        ["/w/LOG.md"],
        [],
    ),
    ('echo "disk: $(df -h /)"', False, ["disk: "], [], []),
    ('echo "SELECT count(*) FROM t" | psql', False, [], [], []),
    ("python3 - <<EOF\nprint(40)\nEOF", False, [], [], []),
    ('git commit -m "Lower the fan floor to 30%"', False, ["Lower the fan floor to 30%"], [], []),
    ("git commit -F - <<'EOF'\nSet the floor\nEOF", False, ["Set the floor\n"], [], []),
    ("cat NOTES.md", False, [], [], ["/w/NOTES.md"]),
    ("head -n 5 /var/log/syslog | grep fan", False, [], [], ["/var/log/syslog"]),
    ("df -h /data && echo checked the disks", False, ["checked the disks"], [], []),
    ("sudo -u bob echo hello from bob", True, ["hello from bob"], [], []),
    ("echo 'never closed", False, [], [], []),
    ('echo a > "$OUT"', False, [], [], []),
]


@pytest.mark.parametrize(
    ("command", "literal", "texts", "writes", "reads"), SHELL, ids=[c[0][:40] for c in SHELL]
)
def test_shell_commands_are_read_for_what_they_print(command, literal, texts, writes, reads):
    facts = analyze(command, "/w")
    assert facts.literal_output is literal
    assert facts.self_texts == texts
    assert facts.prose_writes == writes
    assert facts.reads == reads


def test_an_unparsable_command_makes_no_claims():
    facts = analyze("echo 'oops", "/w")
    assert not facts.parsed and not facts.literal_output and not facts.self_texts


def test_an_unknown_tool_follows_the_general_rule():
    pieces, call = pv.decode_call(
        "mcp__mail__send_email",
        {
            "to": "ops@example.org",
            "subject": "NOTHUMAN fan report",
            "body": "NOTHUMAN all fans at 30%",
            "priority": 2,
            "attachments": [{"path": "/tmp/r.csv", "note": "NOTHUMAN see row 4"}],
        },
    )
    act = [p.text for p in pieces if p.cls == "ACT"]
    self_ = [p.text for p in pieces if p.cls == "SELF"]
    assert act == [
        "mcp__mail__send_email:\nto: ops@example.org\npriority: 2\nattachments[0].path: /tmp/r.csv"
    ]
    assert sorted(self_) == [
        "NOTHUMAN all fans at 30%",
        "NOTHUMAN fan report",
        "NOTHUMAN see row 4",
    ]
    assert not any("{" in t for t in act)  # never a JSON dump
    assert call.family == pv.OTHER and not call.model


def test_an_unknown_tool_writing_a_file_is_act_for_config_and_self_for_prose():
    pieces, call = pv.decode_call(
        "mcp__fs__write_file", {"path": "/etc/app.ini", "content": "workers = 4\n"}
    )
    assert [(p.cls, p.text) for p in pieces] == [
        ("ACT", "mcp__fs__write_file: /etc/app.ini\nworkers = 4\n")
    ]
    pieces, call = pv.decode_call(
        "mcp__fs__write_file", {"path": "/srv/notes.md", "content": "NOTHUMAN idea"}
    )
    assert ("SELF", "NOTHUMAN idea") in [(p.cls, p.text) for p in pieces]
    assert call.prose_writes == ("/srv/notes.md",)


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("Task", "SELF"),
        ("Agent", "SELF"),
        ("WebFetch", "SELF"),
        ("web_fetch", "SELF"),
        ("WebSearch", "SELF"),
        ("google_web_search", "SELF"),
        ("mcp__gemini__ask", "SELF"),
        ("mcp__openai__chat_completion", "SELF"),
        ("mcp__sequential-thinking__sequentialthinking", "SELF"),
        ("TodoWrite", "SELF"),
        ("ExitPlanMode", "SELF"),
        ("Bash", "TOOL"),
        ("Read", "TOOL"),
        ("Grep", "TOOL"),
        ("mcp__postgres__query", "TOOL"),
        ("mcp__github__list_issues", "TOOL"),
    ],
)
def test_results_written_by_a_model_vouch_no_more_than_self(name, cls):
    _, call = pv.decode_call(name, {})
    assert pv.result_class(call)[0] == cls


def test_a_shell_argv_is_the_script_as_typed():
    assert pv.command_text(["bash", "-lc", "cd /srv && make\tall"]) == "cd /srv && make\tall"
    assert pv.command_text(["ls", "-la", "my dir"]) == "ls -la 'my dir'"


def test_patches_are_decoded_per_file():
    patch = (
        "*** Begin Patch\n*** Update File: app/settings.toml\n@@\n-port = 80\n+port = 8080\n"
        "*** Add File: docs/NOTES.md\n+NOTHUMAN moved the port\n*** Delete File: old.cfg\n*** End Patch"
    )
    pieces, call = pv.decode_call("apply_patch", patch, cwd="/repo")
    assert [(p.cls, p.text) for p in pieces] == [
        ("ACT", "apply_patch: update /repo/app/settings.toml\nport = 8080"),
        ("ACT", "apply_patch: add /repo/docs/NOTES.md"),
        ("SELF", "NOTHUMAN moved the port"),
        ("ACT", "apply_patch: delete /repo/old.cfg"),
    ]
    assert call.prose_writes == ("/repo/docs/NOTES.md",)


def test_the_person_refusing_a_tool_call_is_user_and_the_harness_text_is_not():
    text = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
        "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
        "the user said:\nuse the second disk instead"
    )
    assert [(p.cls, p.text) for p in pv.rejection(text)] == [
        ("USER", "use the second disk instead")
    ]
    bare = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected. STOP what "
        "you are doing and wait for the user to tell you how to proceed."
    )
    # refused without a reason: the host's first sentence answers the call as a refusal
    assert [(p.cls, p.text, p.kind) for p in pv.rejection(bare)] == [
        ("TOOL", "The user doesn't want to proceed with this tool use.", "tool_result (refused)")
    ]
    assert pv.rejection("ls: no such file") is None


@pytest.mark.parametrize(
    ("name", "opening", "closing"),
    [
        ("replace_in_file", "------- SEARCH", "+++++++ REPLACE"),  # Cline since 3.x
        ("replace_in_file", "<<<<<<< SEARCH", ">>>>>>> REPLACE"),
        ("apply_diff", "<<<<<<< SEARCH\n:start_line:3\n-------", ">>>>>>> REPLACE"),  # Roo
    ],
)
def test_an_edit_given_as_search_replace_blocks_sets_their_new_sides(name, opening, closing):
    diff = (
        f'{opening}\n  "adult": 75,\n=======\n  "adult": 85,\n{closing}\n'
        f'{opening}\n  "home_visit": "all"\n=======\n  "home_visit": "first_time_only"\n{closing}'
    )
    pieces, call = pv.decode_call(name, {"path": "src/fees.json", "diff": diff})
    act = "\n".join(p.text for p in pieces if p.cls == "ACT")
    assert '"adult": 85' in act and '"first_time_only"' in act
    assert '"adult": 75' not in act and '"all"' not in act  # what it replaced is not set
    assert call.written == ("src/fees.json",)


def test_search_replace_sides_read_in_linear_time():
    from tests.core.linear_inputs import grows_linearly

    def family(n: int) -> str:
        return "<<<<<<< SEARCH\n" + "x\n=======\n" * (n // 10) + ">>>>>>> REPLACE"

    assert grows_linearly(pv.replace_sides, family, 2000).ok


def test_a_kimi_str_replace_sets_its_new_text_only():
    args = {"path": "/home/lin/reno/plan.yaml", "edit": {"old": "橱柜: 欧派", "new": "橱柜: 志邦"}}
    pieces, call = pv.decode_call("StrReplaceFile", args)
    text = "\n".join(p.text for p in pieces if p.cls == "ACT")
    assert call.family == pv.EDIT and "志邦" in text and "欧派" not in text

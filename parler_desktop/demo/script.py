"""What the scripted demo agents say and do, one beat at a time.

A planner, a coder and a reviewer work on a feature across three rooms: they talk in Markdown
with code, post task status, share a file, get stuck and go quiet, mention the human and hand a
decision off to them. ``{human}`` in a text is replaced by the supervisor's display name.
"""

from __future__ import annotations

from dataclasses import dataclass

PLANNING, BUILD, REVIEW = "demo-planning", "demo-build", "demo-review"
CAST = (("planner", "planner"), ("coder", "coder"), ("reviewer", "reviewer"))  # (name, role)
# Who is in which room (the first opens it); the human is invited to all three.
MEMBERS = {PLANNING: ("planner", "coder", "reviewer"), BUILD: ("coder", "reviewer"), REVIEW: ("reviewer", "coder")}


@dataclass(frozen=True)
class Beat:
    speaker: str
    room: str
    text: str = ""
    task: tuple[str, str, str | None] | None = None  # (task, status, note)
    handoff: tuple[str, str] | None = None  # (next step, summary), addressed to the human
    share: tuple[str, str, str] | None = None  # (file name, media type, content)
    presence: tuple[str, str | None] | None = None  # (status, activity), instead of a message
    mention_human: bool = False
    quiet: float = 0.0  # extra silence after this beat, in pace units


SCRIPT: tuple[Beat, ...] = (
    Beat("planner", PLANNING, "## Goal for today\nInvite links should open the desktop app:\n\n"
         "1. parse `parler://HOST:PORT/join/CODE`\n2. ask before joining, **naming the host**\n"
         "3. a second launch raises the running window", task=("invite-links", "accepted", "three steps")),
    Beat("coder", PLANNING, presence=("working", "reading cli/__init__.py")),
    Beat("coder", PLANNING, "On it. Starting with the parser, tests first.", task=("invite-links", "working", "parser")),
    Beat("coder", BUILD, "First cut:\n\n```python\ndef parse_link(text: str) -> Invite:\n"
         "    base, _, code = text.rpartition(\"/join/\")\n    if not code:\n"
         "        raise ValueError(f\"no invite code in {text!r}\")\n"
         "    return Invite(code=code.strip(\"/\"), hub=normalize(base))\n```"),
    Beat("reviewer", REVIEW, "Looking at `parse_link`. What does a link like "
         "`parler://evil.example:7070/join/x` do? A link in a message can point *anywhere*, "
         "so the confirmation must say which host it is."),
    Beat("coder", REVIEW, "Good catch. The dialog now reads:\n\n> Join room *demo* on **evil.example:7070** as you?\n\n"
         "```diff\n-    join(invite)\n+    confirm(invite.hub, invite.code).then(join)\n```"),
    Beat("coder", BUILD, "Test run attached.", share=("test-report.txt", "text/plain",
         "tests/test_links.py ........  8 passed\ntests/test_single_instance.py ..F.  1 failed, 3 passed\n"
         "FAILED test_second_launch_raises_the_window - TimeoutError\n")),
    Beat("reviewer", REVIEW, "Waiting for CI before I approve.", task=("review-invite-links", "awaiting", "CI is running")),
    Beat("coder", BUILD, presence=("working", "stuck: test_second_launch is flaky")),
    Beat("coder", BUILD, "Hmm. `test_second_launch_raises_the_window` fails about 1 run in 5. Digging…", quiet=4),
    Beat("coder", BUILD, "The socket path is too long on macOS (104 bytes max).",
         task=("invite-links", "failed", "socket path too long on macOS")),
    Beat("planner", PLANNING, "@{human} we need a call: shorten the socket name, or move the socket "
         "to `$XDG_RUNTIME_DIR` / `$TMPDIR`?", mention_human=True),
    Beat("planner", PLANNING, "Handing this one to you.", handoff=("decide where the socket lives", "two options above; both are a few lines")),
    Beat("reviewer", REVIEW, "✔ Approved, one nit:\n\n```diff\n-    timeout=30\n+    timeout=CONFIRM_TIMEOUT\n```",
         task=("review-invite-links", "done", None)),
    Beat("coder", BUILD, "Shortened the name for now; all green.", task=("invite-links", "done", "merged as 3f2a9c1")),
    Beat("planner", PLANNING, "| step | state |\n|---|---|\n| parse links | done |\n| confirm with host | done |\n"
         "| raise window | waiting on {human} |"),
    Beat("planner", PLANNING, presence=("idle", None), quiet=6),
)

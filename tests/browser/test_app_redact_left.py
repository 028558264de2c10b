"""The "Redact" switch's preview lists what redaction leaves in an id-like field (a JWT as a
session's id) beside what it removes (a provider's key planted in an id), against the built site."""

from __future__ import annotations

import json

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
AWS = "AKIAQ3EGRZ7XKWLM5TN4"
LINES = [
    {"type": "system", "subtype": "init", "session_id": JWT, "cwd": "/tmp/app", "model": "claude-sonnet-4-5"},
    {"type": "assistant", "session_id": "s", "uuid": "5d1c2f4e-8b7a-4c3d-9e2f-1a0b9c8d7e6f",
     "message": {"id": AWS, "role": "assistant", "content": [{"type": "text", "text": "done"}]}},
]


def test_the_preview_lists_a_jwt_left_in_an_id_like_field_and_a_key_taken_from_one(app) -> None:
    app.paste("\n".join(json.dumps(line) for line in LINES) + "\n")
    app.tab("share")
    app.testid("redact-switch").click()
    app.page.wait_for_selector('[data-testid="redact-switch"][aria-checked="true"]')
    rows = app.page.eval_on_selector_all("#redact-rows tr", "trs => trs.map(t => [...t.cells].map(c => c.textContent))")
    assert ["1", "jwt", "eyJ… (92 chars), left: id-like field"] in rows, rows
    assert ["2", "aws-key", "AKIA… (20 chars)"] in rows, rows
    summary = app.testid("redact-summary").text_content()
    assert "1 secret in 1 place" in summary and "1 left in id-like fields" in summary, summary
    assert JWT not in app.testid("redact-preview").text_content()

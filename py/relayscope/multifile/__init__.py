"""multifile: any set of files (a dropped folder, a project folder) or one text in; sessions
translated and audited out. The layer above ``analysis`` and ``audit``, below the CLI and the web.

Theory of operation
-------------------
:func:`group_files` sorts files into sessions (a main file and its sub-agent files, linked by
folder, by ``toolUseResult.agentId`` or by ``sessionId``) and files of other formats, each a
group of its own (the format from ``formats.detect``). :func:`translate_files` translates each
group: a session through :func:`translate_session`, any other file through an ``Analyzer``.

Several files of one session (:func:`translate_session`) share one
:class:`~relayscope.formats.session.SessionTranslator`, so seq numbers, de-dup state and lanes
span the files. **Emission order**: the main file(s) in the order given, and each sub-agent
file's relays right after the record holding the call that spawned it (recursively, so a nested
sub-agent's file comes right after its spawn inside its parent's file); sub-agent files whose
spawning call is in none of the files (orphans, compaction runs) come last, in file-name order.
A sub-agent's ``lane_end`` still comes at the parent's tool_result, with the usage of the
sub-agent's last message just before it. Every relay's ``file`` names the file its row came
from and ``line`` is the line in that file. A sub-agent file is linked to its spawning call by
its ``agent-<id>.meta.json`` (``toolUseId``), by the spawn's result (``toolUseResult.agentId``)
or, failing both, by the one unbound call whose prompt is the file's first prompt.

The audit has one entry point, :func:`audit_steps` (:func:`audit_input` without the progress):
the CLI and the web model both call it, and it audits each group exactly as it is translated
for display (one text: through an ``Analyzer``, as the CLI and the page read it; a set of files:
group by group as :func:`translate_files` does), every strategy against one inventory. One text
is read line by line, every strategy's translator fed each line in turn (``audit.Audit``
counts as they go): given its lines lazily, its audit holds no line it has passed. Given also a
way to read them again (``again``: a file), it translates one strategy a pass, so that only one
translator's windows are held at once (the inventory is built along the first pass).

State: none between calls; each call builds its own translators. No I/O: callers pass file
contents. Must not import the CLI or the web package.
"""

from __future__ import annotations

from .audits import INVENTORY_SHARE, InputAudit, audit_input, audit_lines, audit_steps, merge_audits
from .groups import (
    FileGroup,
    group_files,
    group_names,
    meta_errors,
    translate_files,
    translate_groups,
)
from .growing import (
    agent_file_id,
    file_head,
    is_journal,
    line_time,
    message_links,
    meta_file_id,
    notified_call,
    read_meta,
    result_links,
    workflow_links,
    workflow_run,
)
from .scan import BAD_META, JOURNAL, WORKFLOWS, Errors, Message, Text, is_companion
from .session import (
    SessionResult,
    answers,
    end_workflow_agent,
    journal_results,
    pair_runs,
    translate_session,
    user_words,
    workflow_lane,
)
from .unreadable import READERS, files_problems

__all__ = [
    "BAD_META",
    "INVENTORY_SHARE",
    "JOURNAL",
    "READERS",
    "WORKFLOWS",
    "Errors",
    "FileGroup",
    "InputAudit",
    "Message",
    "SessionResult",
    "Text",
    "agent_file_id",
    "answers",
    "audit_input",
    "audit_lines",
    "audit_steps",
    "end_workflow_agent",
    "file_head",
    "files_problems",
    "group_files",
    "group_names",
    "is_companion",
    "is_journal",
    "journal_results",
    "line_time",
    "merge_audits",
    "message_links",
    "meta_errors",
    "meta_file_id",
    "notified_call",
    "pair_runs",
    "read_meta",
    "result_links",
    "translate_files",
    "translate_groups",
    "translate_session",
    "user_words",
    "workflow_lane",
    "workflow_links",
    "workflow_run",
]

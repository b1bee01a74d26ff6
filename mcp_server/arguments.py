"""The MCP tools' arguments as the SDK describes them to an agent, each refused in words when malformed
(afterhack.schemas.Refuse)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from afterhack.schemas import Refuse, WholeNumber

Session = Annotated[
    str | None,
    Field(description="The `session` an earlier result gave you; leave it out only to start a new session."),
    Refuse(words="“session” must be the text of a session handle a tool result gave you."),
]
WorkspaceId = Annotated[
    str,
    Field(description="The id of a workspace (list_workspaces lists yours)."),
    Refuse(words="“workspace_id” must be the id of a workspace, as text."),
]
ClaimId = Annotated[
    str, Field(description="The id of a claim."), Refuse(words="“claim_id” must be the id of a claim, as text.")
]


SourceId = Annotated[
    str, Field(description="The id of the source the quote is in."), Refuse(words="“source_id” must be text.")
]
Title = Annotated[str, Field(description="A short title."), Refuse(words="“title” must be text.")]
SourceText = Annotated[
    str,
    Field(description="The source's plain text; line endings are normalised to \\n."),
    Refuse(words="“text” must be text."),
]
Statement = Annotated[
    str, Field(description="A claim's statement, in words."), Refuse(words="“statement” must be text.")
]
Quote = Annotated[
    str,
    Field(description="The evidence, exactly as it occurs in the source's current version."),
    Refuse(words="“evidence_quote” must be text."),
]
Passage = Annotated[
    str,
    Field(description="The passage that says otherwise, exactly as it occurs in the source's current version."),
    Refuse(words="“quote” must be text."),
]
Corrected = Annotated[
    str, Field(description="What the claim should say instead, in words."), Refuse(words="“statement” must be text.")
]
Start = Annotated[
    WholeNumber | None,
    Field(description="Where the quote begins; without it, its first occurrence."),
    Refuse(words="“start” must be a whole number: the offset where the quote begins."),
]

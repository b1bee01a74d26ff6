"""The W3C PROV export of a claim's or a decision's because-chain, or of the whole workspace (docs/prov.md)."""

from __future__ import annotations

from dataclasses import dataclass

from afterhack.errors import UserError
from afterhack.ids import parse_id
from corrections import prov
from corrections.graph import prov as prov_graph
from corrections.prov import ProvFormat as ProvFormat
from workspaces.models import Workspace

# ProvFormat is re-exported (`X as X`): pages and the API name it without corrections/prov.py.


@dataclass(frozen=True)
class ProvExport:
    """An export ready to answer: its text, its media type and a file name for a download."""

    text: str
    content_type: str
    filename: str


def prov_export(*, workspace: Workspace, root: str | None, form: prov.ProvFormat) -> ProvExport:
    """The root's because-chain (a claim or a decision of the workspace), or the whole workspace without a root, as
    W3C PROV in `form`. UserError (422) for a root that is not a claim or decision here, or for an export above
    prov.MAX_PROV_NODES nodes."""
    root_id = parse_id(root) if root else None
    if root and root_id is None:
        raise UserError(
            f"“root” must be the id of a claim or a decision of this workspace; {root[:40]!r} is not an id."
        )
    count = prov_graph.prov_node_count(workspace=workspace)
    if count > prov.MAX_PROV_NODES:
        # A root's chain is cut from a read of the whole workspace (docs/prov.md), so the cap holds for it too.
        instead = (
            "the export of one chain is read from the whole workspace, so it is refused too until chains are cut in "
            "the graph (docs/prov.md)."
            if root_id
            else "export the because-chain of a claim or a decision instead (give “root”)."
        )
        raise UserError(
            f"This workspace has {count:,} nodes to export, more than the {prov.MAX_PROV_NODES:,} one export may hold: "
            + instead
        )
    subgraph = prov_graph.prov_graph(workspace=workspace)
    if root_id is not None:
        node = subgraph.nodes.get(root_id)
        if node is None or node["label"] not in ("Claim", "Decision"):
            raise UserError("“root” must be the id of a claim or a decision of this workspace; there is none with it.")
        subgraph = prov.chain_of(subgraph, root_id)
    text = prov.serialized(prov.document_of(subgraph, workspace_id=str(workspace.id)), form)
    name = f"afterhack-prov-{root_id or workspace.id}.{prov.FILE_SUFFIXES[form]}"
    return ProvExport(text, prov.CONTENT_TYPES[form], name)

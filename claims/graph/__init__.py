"""The claims app's slice of the graph: it creates Source, SourceVersion, SourceFragment (a document's fragments),
Claim (extracted, manual and derived), HAS_VERSION, HAS_FRAGMENT, SUPPORTED_BY, DERIVED_FROM, and the Extraction and
RejectedClaim records of extraction runs; it reads them, and nothing else. It never changes what holds: a claim is
created current, and every later change of a claim's status (superseded, retracted, unsupported) or of a source's
(retracted, a new version) is belief maintenance, written by corrections/graph/ (apply.py, evidence.py); a claim
that must hold is checked with afterhack.holds, and every write that must be atomic is one query (claims recorded or
derived bump the workspace revision). `shapes` holds the dataclasses the modules share (a claim, a fragment, a cited
passage, a background job), `sources` sources, versions and fragments, `claims` recording and reading claims, `past`
claims as they were, `pickers` claims as the pickers show them and what rests on a claim, `search` lexical search
through the fulltext index, `embeddings` the vectors of semantic search, `extraction` extraction runs and the claims
they refused, `lists` the pages' lists of sources and claims."""

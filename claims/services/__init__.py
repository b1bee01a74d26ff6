"""Writes of the claims app, for its pages and API and for the apps above it: `sources` sources (one or a batch)
and the active version a write cites, `claims` evidence-backed and derived claims (and the errors a claim's write
answers), `extraction` extraction runs, `embeddings` the claims' vectors for semantic search.
"""

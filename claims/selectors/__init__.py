"""Reads of the claims app, for its pages and API and for the apps above it: `search` THE claim search (lexical,
semantic and hybrid, as of a moment, and its pages), `claims` claims as they are or were and the claims list,
`sources` the source page and the sources list, `provenance` a claim's because-chain and a correction's cited
passage, `picker` claims as the pickers show them. Each module re-exports (`X as X`) the graph shapes its reads
return, so that pages, API modules and other apps name them without a graph module; the highlighted source text
is rendered by claims/highlight.py.
"""

"""`make bench` (`manage.py bench`): what the app costs, measured on real stores. It imports the apps and the wiring,
never `tests`; nothing imports it but the bench command and the tests. `claims` (quote validation, ingest, the source
page, search; the `Figure` every benchmark reports), `agents` (one run of the agent on the demo), `corrections`
(preview and apply, the past), `memory` (memory per graph node), `shards` (one shard against three), `mcp_server`
(a tool call beside the same REST call), `loadtest` (concurrent clients against a served app), `contradiction`
(the offline contradiction rule's precision, recall and cost on its labelled sets), `watch` (the contradiction
watch's cost per new claim, and the model path's calls); `claims_graph` and
`corrections_graph` hold the benchmarks' own Cypher; `llm_server` is the scripted OpenAI-compatible model server the
agent benchmark and the tests talk to."""

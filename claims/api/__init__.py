"""The claims app's JSON API (docs/api.md, Sources and claims): `sources` the operations on sources and extraction
with their schemas, `claims` the operations on claims and THE search with theirs, `router` the one router the
project's API mounts (both modules' operations under the tag "sources and claims").
"""

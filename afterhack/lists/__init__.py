"""The list toolkit every app's lists are made with: `spec` describes a list once (its sorts and its filters, each
filter declared once with its words, its Cypher condition and its API parameter) and reads the page a person asks
for (`ListSpec`, `Filter`, `Criteria`, `Listing`, `render_listing`); `graph` holds the Cypher side (keyset pages,
`NodeList`, `status_page`, the filters' WHERE and $params); `cursors` pages the JSON API's lists with signed keyset
cursors. The templates draw a list with the tags of afterhack/templatetags/listing.py."""

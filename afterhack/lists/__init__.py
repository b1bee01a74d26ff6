"""The list toolkit every app's lists are made with: `spec` describes a list once (its sorts, its filters, its page
size) and reads the page a person asks for (`ListSpec`, `Listing`, `render_listing`); `filters` declares each filter
once, with its words and input, its Cypher or ORM condition and its API parameter (`Filter`, `choice`, `made`,
`Criteria`);
`graph` holds the Cypher side (keyset pages, `NodeList`, `status_page`, the filters' WHERE and $params), `orm` the
ORM side (a list of database rows filtered by its filters' ORM conditions, `filtered`); `cursors`
pages the JSON API's lists with signed keyset cursors. The templates draw a list with the tags of
afterhack/templatetags/listing.py."""

"""The webhooks app's writes: `endpoints` (an admin's endpoints: add, change, delete, rotate the secret) and
`deliveries` (messages queued for an event, sent by the worker, retried on a schedule, redelivered)."""

"""The Django admin of the workspaces app, one module a page, imported by `WorkspacesConfig.ready()`: `workspaces`
(workspaces with their members, and memberships), `people` (people and groups: what each may do, and no workspace
left without an admin), `tokens` (API tokens), `audit` (the read-only audit trail), `login` (the throttled login
and who is throttled), and `own_filters` (the changelist narrowed only by its own filters, of audit and tokens)."""

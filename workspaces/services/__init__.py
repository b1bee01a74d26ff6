"""Writes of the workspaces app, each with its audit event in the same transaction: `audit` (who acted, and the
audit events every app's services record), `workspaces` (a workspace and its graph, the graphs reconciled, its
settings, and `InvalidInput`, the app's error a person must fix), `memberships` (adding a member, changing their role,
removing them), `admins` (the rule that a workspace keeps an active admin, and its refusals), `tokens` (API tokens
issued and revoked)."""

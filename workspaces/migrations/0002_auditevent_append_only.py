"""The database itself refuses to change or remove an audit event, whatever the code path."""

from django.db import migrations

CREATE = """
CREATE FUNCTION workspaces_auditevent_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit events are append-only: % is not allowed', TG_OP;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER workspaces_auditevent_append_only
BEFORE UPDATE OR DELETE ON workspaces_auditevent
FOR EACH ROW EXECUTE FUNCTION workspaces_auditevent_refuse_change();
"""

DROP = """
DROP TRIGGER IF EXISTS workspaces_auditevent_append_only ON workspaces_auditevent;
DROP FUNCTION IF EXISTS workspaces_auditevent_refuse_change();
"""


class Migration(migrations.Migration):
    dependencies = [("workspaces", "0001_initial")]

    operations = [migrations.RunSQL(CREATE, DROP)]

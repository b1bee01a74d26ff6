# Token expiry and the shared count of failed logins (issue #8).

from datetime import timedelta

import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

import workspaces.models


def expire_existing_tokens(apps, schema_editor):
    """Tokens issued before expiry existed get a full lifetime from the upgrade on.

    Counting from their creation would cut off every script using an older token at the
    moment of the upgrade, without warning; this way their holders have the usual
    AFTERHACK_TOKEN_TTL_DAYS to get a new one.
    """
    ApiToken = apps.get_model("workspaces", "ApiToken")
    expiry = django.utils.timezone.now() + timedelta(days=settings.AFTERHACK_TOKEN_TTL_DAYS)
    ApiToken.objects.filter(expires_at__isnull=True).update(expires_at=expiry)


class Migration(migrations.Migration):

    dependencies = [
        ('workspaces', '0003_apitoken_verbose_name'),
    ]

    operations = [
        migrations.AddField(
            model_name='apitoken',
            name='expires_at',
            field=models.DateTimeField(null=True),
        ),
        migrations.RunPython(expire_existing_tokens, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='apitoken',
            name='expires_at',
            field=models.DateTimeField(default=workspaces.models.token_expiry, help_text='The token is refused from this moment on (UTC).'),
        ),
        migrations.CreateModel(
            name='LoginFailures',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('username', models.CharField(max_length=150)),
                ('client', models.CharField(max_length=64)),
                ('failures', models.PositiveIntegerField(default=0)),
                ('window_started_at', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
            ],
            options={
                'verbose_name_plural': 'login failures',
                'constraints': [models.UniqueConstraint(fields=('username', 'client'), name='one_login_count_per_client')],
            },
        ),
    ]

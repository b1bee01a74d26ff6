from django.apps import AppConfig


class ClaimsConfig(AppConfig):
    name = "claims"

    def ready(self) -> None:
        # Its audit verbs, indexes, dashboard counts and menu links, registered with workspaces.
        from claims.registration import register_parts

        register_parts()

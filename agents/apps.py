from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"

    def ready(self) -> None:
        # Its audit verbs, indexes, dashboard counts and menu links, registered with workspaces.
        from agents.registration import register_parts

        register_parts()

from django.urls import path

from agents.views import actions, decisions, runs

app_name = "agents"

urlpatterns = [
    path("<uuid:ws_id>/ask/", runs.ask, name="ask"),
    path("<uuid:ws_id>/runs/", runs.run_list, name="runs"),
    path("<uuid:ws_id>/runs/<str:run_id>/", runs.run_detail, name="run"),
    path("<uuid:ws_id>/decisions/", decisions.decision_list, name="decisions"),
    path("<uuid:ws_id>/decisions/pick", decisions.decision_pick, name="pick"),
    path("<uuid:ws_id>/decisions/new", decisions.decision_create, name="decision_create"),
    path("<uuid:ws_id>/decisions/<str:decision_id>/", decisions.decision_detail, name="decision"),
    path("<uuid:ws_id>/decisions/<str:decision_id>/actions", actions.action_create, name="action_create"),
    path("<uuid:ws_id>/actions/", actions.action_list, name="actions"),
    path("<uuid:ws_id>/actions/<str:action_id>/", actions.action_detail, name="action"),
    path("<uuid:ws_id>/actions/<str:action_id>/status", actions.action_mark, name="action_mark"),
]

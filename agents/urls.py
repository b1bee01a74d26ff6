from django.urls import path

from agents import views

app_name = "agents"

urlpatterns = [
    path("<uuid:ws_id>/ask/", views.ask, name="ask"),
    path("<uuid:ws_id>/runs/", views.run_list, name="runs"),
    path("<uuid:ws_id>/runs/<str:run_id>/", views.run_detail, name="run"),
    path("<uuid:ws_id>/decisions/", views.decision_list, name="decisions"),
    path("<uuid:ws_id>/decisions/pick", views.decision_pick, name="pick"),
    path("<uuid:ws_id>/decisions/new", views.decision_create, name="decision_create"),
    path("<uuid:ws_id>/decisions/<str:decision_id>/", views.decision_detail, name="decision"),
    path("<uuid:ws_id>/decisions/<str:decision_id>/actions", views.action_create, name="action_create"),
    path("<uuid:ws_id>/actions/", views.action_list, name="actions"),
    path("<uuid:ws_id>/actions/<str:action_id>/", views.action_detail, name="action"),
    path("<uuid:ws_id>/actions/<str:action_id>/status", views.action_mark, name="action_mark"),
]

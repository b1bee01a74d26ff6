from django.urls import path

from workspaces import views

app_name = "workspaces"

urlpatterns = [
    path("", views.workspace_list, name="list"),
    path("new", views.workspace_create, name="create"),
    path("<uuid:ws_id>/", views.dashboard, name="dashboard"),
    path("<uuid:ws_id>/activity/", views.activity, name="activity"),
    path("<uuid:ws_id>/members/", views.members, name="members"),
    path("<uuid:ws_id>/settings", views.workspace_settings, name="settings"),
    path("<uuid:ws_id>/members/add", views.member_add, name="member_add"),
    path("<uuid:ws_id>/members/<int:membership_id>/role", views.member_role, name="member_role"),
    path("<uuid:ws_id>/members/<int:membership_id>/remove", views.member_remove, name="member_remove"),
]
